// Bad input is refused on the host, before any CUDA call, with the argument named. These tests
// run without a GPU: no pointer below is ever dereferenced, since validation fails first.
#include <gtest/gtest.h>
#include <linrec/linear_recurrence.cuh>

#include <cstdint>
#include <cstring>

namespace {

using linrec::error;
using linrec::row_layout;

// Distinct, aligned, never-dereferenced device addresses.
template <typename T>
T* fake(std::uintptr_t address) {
  return reinterpret_cast<T*>(address);
}

struct call {
  const float* a = fake<float>(0x10000000);
  const float* b = fake<float>(0x20000000);
  float* h = fake<float>(0x30000000);
  row_layout layout = row_layout::contiguous(4, 1000);
  const float* h0 = nullptr;
  float* h_final = nullptr;
  void* temp = fake<void>(0x40000000);
  std::size_t temp_bytes = std::size_t(1) << 30;

  linrec::status run() {
    return linrec::linear_recurrence<float>(temp, temp_bytes, a, b, h, layout, h0, h_final);
  }
  linrec::status run_allocating() {
    return linrec::linear_recurrence<float>(a, b, h, layout, h0, h_final);
  }
};

TEST(validation, negative_sizes_are_refused) {
  call c;
  c.layout = {-1, 10, 10};
  EXPECT_EQ(c.run(), error::negative_rows);
  c.layout = {1, -1, 10};
  EXPECT_EQ(c.run(), error::negative_length);
  EXPECT_EQ(c.run_allocating(), error::negative_length);
}

TEST(validation, row_stride_below_length_is_refused) {
  call c;
  c.layout = {2, 100, 99};
  EXPECT_EQ(c.run(), error::row_stride_less_than_length);
  std::size_t bytes = 0;
  EXPECT_EQ(linrec::linear_recurrence<float>(nullptr, bytes, c.a, c.b, c.h, c.layout),
            error::row_stride_less_than_length);
}

TEST(validation, extents_past_64_bits_are_refused) {
  call c;
  c.layout = {std::int64_t(1) << 40, std::int64_t(1) << 30, std::int64_t(1) << 30};
  EXPECT_EQ(c.run(), error::size_overflow);
  c.layout = {3, std::int64_t(1) << 61, std::int64_t(1) << 61};  // 2^63 elements of 4 bytes
  EXPECT_EQ(c.run(), error::size_overflow);
}

TEST(validation, null_pointers_are_refused_for_nonempty_problems) {
  call c;
  c.a = nullptr;
  EXPECT_EQ(c.run(), error::null_a);
  EXPECT_EQ(c.run_allocating(), error::null_a);
  c = call{};
  c.b = nullptr;
  EXPECT_EQ(c.run(), error::null_b);
  c = call{};
  c.h = nullptr;
  EXPECT_EQ(c.run(), error::null_h);
}

TEST(validation, misaligned_pointers_are_refused) {
  call c;
  c.a = fake<float>(0x10000002);
  EXPECT_EQ(c.run(), error::misaligned_a);
  c = call{};
  c.b = fake<float>(0x20000001);
  EXPECT_EQ(c.run(), error::misaligned_b);
  c = call{};
  c.h = fake<float>(0x30000003);
  EXPECT_EQ(c.run(), error::misaligned_h);
  c = call{};
  c.h0 = fake<float>(0x50000001);
  EXPECT_EQ(c.run(), error::misaligned_h0);
  c = call{};
  c.h_final = fake<float>(0x60000001);
  EXPECT_EQ(c.run(), error::misaligned_h_final);
}

TEST(validation, partial_overlap_of_h_with_an_input_is_refused) {
  call c;
  c.h = const_cast<float*>(c.b) + 1;
  EXPECT_EQ(c.run(), error::h_overlaps_b);
  c = call{};
  c.h = const_cast<float*>(c.a) + 3999;  // the last element of a
  EXPECT_EQ(c.run(), error::h_overlaps_a);
  c = call{};
  c.a = c.h + 4000;  // just past the end of h: no overlap, so the only error left is temp size
  c.temp_bytes = 0;
  EXPECT_EQ(c.run(), error::temp_storage_too_small);
}

TEST(validation, too_little_temporary_storage_is_refused) {
  call c;
  c.layout = row_layout::contiguous(1, 1 << 24);  // tiled look-back needs tile status
  std::size_t needed = 0;
  ASSERT_TRUE(linrec::linear_recurrence<float>(nullptr, needed, c.a, c.b, c.h, c.layout).ok());
  EXPECT_GT(needed, std::size_t(16));
  c.temp_bytes = needed - 1;
  EXPECT_EQ(c.run(), error::temp_storage_too_small);
}

TEST(validation, size_query_reads_sizes_only_and_is_never_zero) {
  std::size_t bytes = 0;
  EXPECT_TRUE(linrec::linear_recurrence<float>(nullptr, bytes, nullptr, nullptr, nullptr,
                                               row_layout::contiguous(3, 5))
                  .ok());
  EXPECT_GT(bytes, 0u);
  bytes = 0;
  EXPECT_TRUE(linrec::linear_recurrence<double>(nullptr, bytes, nullptr, nullptr, nullptr,
                                                row_layout::contiguous(0, 0))
                  .ok());
  EXPECT_GT(bytes, 0u);
}

TEST(validation, tile_status_size_grows_with_the_tile_count) {
  using policy = linrec::default_policy<float>;
  constexpr std::int64_t tile = std::int64_t(policy::lookback_threads) * policy::lookback_items;
  std::size_t one = 0, many = 0;
  ASSERT_TRUE(linrec::linear_recurrence<float>(nullptr, one, nullptr, nullptr, nullptr,
                                               row_layout::contiguous(1, 2 * tile))
                  .ok());
  ASSERT_TRUE(linrec::linear_recurrence<float>(nullptr, many, nullptr, nullptr, nullptr,
                                               row_layout::contiguous(1, 1000 * tile + 1))
                  .ok());
  // 16 bytes of packed value and state per tile for affine<float>.
  EXPECT_EQ(many - one, std::size_t(1001 - 2) * 16);
}

TEST(validation, empty_problems_succeed_without_touching_pointers) {
  call c;
  c.a = c.b = nullptr;
  c.h = nullptr;
  c.layout = row_layout::contiguous(0, 100);
  EXPECT_TRUE(c.run().ok());
  c.layout = row_layout::contiguous(100, 0);
  EXPECT_TRUE(c.run().ok());  // no h_final: nothing to write, nothing launched
}

TEST(validation, messages_name_the_argument) {
  EXPECT_NE(std::strstr(linrec::error_string(error::null_b), "b"), nullptr);
  EXPECT_NE(std::strstr(linrec::error_string(error::row_stride_less_than_length), "row_stride"), nullptr);
  EXPECT_NE(std::strstr(linrec::error_string(error::temp_storage_too_small), "temp_storage_bytes"), nullptr);
  const linrec::status s = error::misaligned_h0;
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::strstr(s.message(), "h0"), nullptr);
  const linrec::status cuda(cudaErrorInvalidValue);
  EXPECT_EQ(cuda, error::cuda_error);
  EXPECT_EQ(cuda.cuda(), cudaErrorInvalidValue);
  for (int e = 0; e <= int(error::cuda_error); ++e) {
    EXPECT_STRNE(linrec::error_string(error(e)), "unknown linrec::error");
  }
}

struct block_rows_policy : linrec::default_policy<float> {
  static constexpr linrec::strategy forced = linrec::strategy::block_per_row;
};

TEST(strategy_choice, follows_the_documented_thresholds) {
  using linrec::strategy;
  using policy = linrec::default_policy<float>;
  EXPECT_EQ(linrec::chosen_strategy<float>(row_layout::contiguous(1, policy::warp_per_row_max_length)),
            strategy::warp_per_row);
  EXPECT_EQ(linrec::chosen_strategy<float>(row_layout::contiguous(4096, 200)), strategy::warp_per_row);
  EXPECT_EQ(linrec::chosen_strategy<float>(row_layout::contiguous(policy::block_per_row_min_rows, 4096)),
            strategy::block_per_row);
  EXPECT_EQ(linrec::chosen_strategy<float>(row_layout::contiguous(1, 1 << 28)), strategy::tiled_lookback);
  EXPECT_EQ(linrec::chosen_strategy<float>(row_layout::contiguous(policy::block_per_row_min_rows - 1, 4096)),
            strategy::tiled_lookback);
  EXPECT_EQ((linrec::chosen_strategy<float, block_rows_policy>(row_layout::contiguous(1, 1 << 28))), strategy::block_per_row);
}

}  // namespace
