// Problems above 2^31 elements in total (ctest label "large"; about 26 GB of device memory).
// Inputs come from an index hash on the device; every output element is checked written on the
// device, and windows of the output are checked against a float64 reference on the host. With
// a ~ U(0.5, 1) the influence of an element decays below 1e-300 within 2500 steps, so a window
// started 4096 steps early from h = 0 reproduces the exact state.
#include "../common/gpu_support.cuh"
#include "../common/hash_inputs.cuh"

#include <linrec/linear_recurrence.cuh>

namespace {

using namespace linrec::testing;
using linrec::row_layout;

__global__ void fill(float* a, float* b, std::int64_t n, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x) {
    a[i] = hash_a(seed, std::uint64_t(i));
    b[i] = hash_b(seed, std::uint64_t(i));
  }
}

__global__ void count_poison(const float* h, std::int64_t n, unsigned long long* count) {
  unsigned long long local = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x) {
    local += __float_as_uint(h[i]) == 0xffffffffu;
  }
  atomicAdd(count, local);
}

void check_large(row_layout layout, linrec::strategy expected) {
  ASSERT_EQ(linrec::chosen_strategy<float>(layout), expected);
  const std::int64_t n = layout.rows * layout.length;
  ASSERT_GT(n, std::int64_t(1) << 31);
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  device_buffer<float> a{std::size_t(n)}, b{std::size_t(n)}, h{std::size_t(n)};
  device_buffer<unsigned long long> poisoned(1);
  fill<<<4096, 256>>>(a.get(), b.get(), n, seed);
  LINREC_CUDA_CHECK(cudaGetLastError());
  h.poison();
  LINREC_CUDA_CHECK(cudaMemset(poisoned.get(), 0, sizeof(unsigned long long)));
  const linrec::status s = linrec::linear_recurrence<float>(a.get(), b.get(), h.get(), layout);
  ASSERT_TRUE(s.ok()) << s.message();
  LINREC_CUDA_CHECK(cudaGetLastError());
  count_poison<<<4096, 256>>>(h.get(), n, poisoned.get());
  LINREC_CUDA_CHECK(cudaGetLastError());
  LINREC_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(poisoned.download()[0], 0ull) << "output elements never written";

  // Windows: each row's start, the elements around flat index 2^31, and the very end.
  constexpr std::int64_t warmup = 4096, window = 8192;
  std::vector<std::int64_t> ends = {std::min<std::int64_t>(window, layout.length),
                                    (std::int64_t(1) << 31) + window / 2, n};
  for (int k = 1; k <= 4; ++k) ends.push_back(n / 5 * k + 12345);
  double worst = 0;
  for (const std::int64_t end : ends) {
    const std::int64_t row = (end - 1) / layout.length;
    const std::int64_t row_begin = row * layout.length;
    const std::int64_t start = std::max(row_begin, end - window - warmup);
    const std::int64_t check_from = start == row_begin ? start : start + warmup;
    std::vector<float> got(std::size_t(end - check_from));
    LINREC_CUDA_CHECK(cudaMemcpy(got.data(), h.get() + check_from, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
    double state = 0;
    for (std::int64_t i = start; i < end; ++i) {
      state = double(hash_a(seed, std::uint64_t(i))) * state + double(hash_b(seed, std::uint64_t(i)));
      if (i >= check_from) worst = std::fmax(worst, std::fabs(double(got[std::size_t(i - check_from)]) - state));
    }
  }
  // |h| <= 1 / (1 - 1) is unbounded in principle but ~2 in practice here; a sequential fp32 loop on
  // such data stays within ~1e-6 absolute.
  EXPECT_LT(worst, 2e-5) << "max error in the checked windows";
}

class large_test : public gpu_test {};

TEST_F(large_test, one_row_above_2_pow_31_through_tiled_lookback) {
  check_large(row_layout::contiguous(1, (std::int64_t(1) << 31) + 4099), linrec::strategy::tiled_lookback);
}

TEST_F(large_test, many_rows_above_2_pow_31_through_block_per_row) {
  check_large(row_layout::contiguous(32769, 65537), linrec::strategy::block_per_row);
}

// [1, T, 1024] channel-last with T * 1024 > 2^31: offsets past 32 bits on the channel path.
template <typename Policy>
void check_channel_last_large(linrec::strategy expected) {
  constexpr std::int64_t channels = 1024, length = (std::int64_t(1) << 21) + 3;
  const auto layout = linrec::tensor_layout::batch_time_channels(1, length, channels);
  ASSERT_EQ((linrec::chosen_strategy<float, Policy>(layout)), expected);
  const std::int64_t n = layout.elements();
  ASSERT_GT(n, std::int64_t(1) << 31);
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  device_buffer<float> a{std::size_t(n)}, b{std::size_t(n)}, h{std::size_t(n)}, h_final{std::size_t(channels)};
  device_buffer<unsigned long long> poisoned(1);
  fill<<<4096, 256>>>(a.get(), b.get(), n, seed);
  LINREC_CUDA_CHECK(cudaGetLastError());
  h.poison();
  h_final.poison();
  LINREC_CUDA_CHECK(cudaMemset(poisoned.get(), 0, sizeof(unsigned long long)));
  const linrec::status s =
      linrec::linear_recurrence<float, Policy>(a.get(), b.get(), h.get(), layout, nullptr, h_final.get());
  ASSERT_TRUE(s.ok()) << s.message();
  LINREC_CUDA_CHECK(cudaGetLastError());
  count_poison<<<4096, 256>>>(h.get(), n, poisoned.get());
  LINREC_CUDA_CHECK(cudaGetLastError());
  LINREC_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(poisoned.download()[0], 0ull) << "output elements never written";

  // Time windows of every channel: the start, around flat index 2^31, and the end (+ h_final).
  constexpr std::int64_t warmup = 4096, window = 512;
  const std::vector<float> finals = h_final.download();
  double worst = 0, worst_final = 0;
  // (Flat index 2^31 is time step 2^21, channel 0: the middle window ends just past it.)
  for (const std::int64_t end : {window, ((std::int64_t(1) << 31) / channels) + 1, length}) {
    const std::int64_t start = std::max<std::int64_t>(0, end - window - warmup);
    const std::int64_t check_from = start == 0 ? 0 : start + warmup;
    std::vector<float> got(std::size_t((end - check_from) * channels));
    LINREC_CUDA_CHECK(cudaMemcpy(got.data(), h.get() + check_from * channels, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (std::int64_t c = 0; c < channels; ++c) {
      double state = 0;
      for (std::int64_t t = start; t < end; ++t) {
        const std::uint64_t i = std::uint64_t(t * channels + c);
        state = double(hash_a(seed, i)) * state + double(hash_b(seed, i));
        if (t >= check_from) worst = std::fmax(worst, std::fabs(double(got[std::size_t((t - check_from) * channels + c)]) - state));
      }
      if (end == length) worst_final = std::fmax(worst_final, std::fabs(double(finals[std::size_t(c)]) - state));
    }
  }
  EXPECT_LT(worst, 2e-5) << "max error in the checked windows";
  EXPECT_LT(worst_final, 2e-5) << "max error of h_final";
}

// 128 groups of 8 channels: a block walks each narrow group (the kernel of channel_narrow_walk_*,
// which the automatic choice takes for short sequences only).
TEST_F(large_test, channel_last_above_2_pow_31_through_narrow_walk) {
  check_channel_last_large<forced_narrow_walk<linrec::default_policy<float>>>(linrec::strategy::channel_walk);
}

TEST_F(large_test, channel_last_above_2_pow_31_through_channel_tiles) {
  check_channel_last_large<linrec::default_policy<float>>(linrec::strategy::channel_tiles);
}

}  // namespace
