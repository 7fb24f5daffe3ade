// Two properties of the storage types that need long or special inputs:
// - bf16 and fp16 storage keep the error of rounding once to the storage type at every length up
//   to 2^20 with long-memory coefficients a ~ U(0.999, 1) (a scan carried in bf16 itself errs by
//   about 1e-2 there);
// - NaN and infinity propagate as in the sequential loop: from their step on, never before.
#include "typed_cases.cuh"

namespace linrec::testing {
namespace {

class long_sequences_test : public gpu_test {};

template <typename A, typename B, typename H>
void check_long_memory(const tensor_layout& l) {
  using P = default_policy<H, A, B>;
  const auto p = random_typed_problem<A, B, H>(l, coefficients::long_memory, true);
  expect_typed_matches<typename P::accumulator_type>(p, run_typed<P>(p));
}

template <typename A, typename B, typename H>
void check_long_memory_lengths() {
  for (const std::int64_t length : {std::int64_t(32), std::int64_t(4097), std::int64_t(65537), std::int64_t(1) << 20}) {
    check_long_memory<A, B, H>(tensor_layout::batch_channels_time(1, length, 1));
    check_long_memory<A, B, H>(tensor_layout::batch_channels_time(1, length, 1).reversed());
  }
  // Channel-last, through the channel paths.
  check_long_memory<A, B, H>(tensor_layout::batch_time_channels(1, std::int64_t(1) << 16, 16));
  check_long_memory<A, B, H>(tensor_layout::batch_time_channels(2, std::int64_t(1) << 15, 1024).reversed());
}

TEST_F(long_sequences_test, bf16_up_to_2_pow_20) { check_long_memory_lengths<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16>(); }
TEST_F(long_sequences_test, fp16_up_to_2_pow_20) { check_long_memory_lengths<__half, __half, __half>(); }
TEST_F(long_sequences_test, float_a_bf16_b_and_h_up_to_2_pow_20) {
  check_long_memory_lengths<float, __nv_bfloat16, __nv_bfloat16>();
}
TEST_F(long_sequences_test, complex64_up_to_2_pow_20) { check_long_memory_lengths<cfloat, cfloat, cfloat>(); }

class nonfinite_test : public gpu_test {};

// One sequence of each shape gets `value` in a or b at one step; the others stay finite.
// Coefficients: U(0.5, 1) by default. An infinity needs long memory, U(0.999, 1): with shorter
// memory a run of a few hundred a's multiplies to an underflowed 0, and the scan's 0 * inf is NaN
// where the loop, multiplying one a at a time, keeps inf (documented; no product of a's here gets
// below 1e-22).
template <typename A, typename B, typename H>
void check_poisoned(bool in_a, double value, coefficients kind = coefficients::half_to_one) {
  using P = default_policy<H, A, B>;
  const tensor_layout shapes[] = {
      tensor_layout::batch_channels_time(1, 50001, 2),            // tiled look-back
      tensor_layout::batch_channels_time(1, 50001, 2).reversed(),
      tensor_layout::batch_channels_time(1, 5000, 1024),          // block per row
      tensor_layout::batch_time_channels(2, 3001, 40),            // channel tiles
      tensor_layout::time_batch_channels(16, 1000, 2048),         // channel walk
  };
  for (const tensor_layout& l : shapes) {
    auto p = random_typed_problem<A, B, H>(l, kind, true);
    const std::int64_t t = l.length * 2 / 5, n = l.batch - 1, c = l.channels / 2;
    if (in_a) {
      p.a[std::size_t(l.a.offset(n, t, c))] = from_double<A>(value, 0);
    } else {
      p.b[std::size_t(l.b.offset(n, t, c))] = from_double<B>(value, 0);
    }
    expect_typed_matches<typename P::accumulator_type>(p, run_typed<P>(p));
  }
}

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();

TEST_F(nonfinite_test, nan_in_b_poisons_from_its_step_on) {
  check_poisoned<float, float, float>(false, nan);
  check_poisoned<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16>(false, nan);
  check_poisoned<cfloat, cfloat, cfloat>(false, nan);
}
TEST_F(nonfinite_test, nan_in_a_poisons_from_its_step_on) {
  check_poisoned<float, float, float>(true, nan);
  check_poisoned<__half, __half, __half>(true, nan);
  check_poisoned<cfloat, cfloat, cfloat>(true, nan);
}
// With a > 0, an infinite b stays +inf from its step on, as in the loop.
TEST_F(nonfinite_test, infinite_b_stays_infinite) {
  check_poisoned<float, float, float>(false, inf, coefficients::long_memory);
  check_poisoned<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16>(false, inf, coefficients::long_memory);
  check_poisoned<double, double, double>(false, -inf, coefficients::long_memory);
}

}  // namespace
}  // namespace linrec::testing
