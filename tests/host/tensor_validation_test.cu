// Tensor layouts: bad sizes, strides and pointers are refused on the host with the member named,
// and the path is chosen from the strides as documented. No GPU needed: nothing is dereferenced.
#include <gtest/gtest.h>
#include <linrec/linear_recurrence.cuh>
#include <linrec/linear_recurrence_backward.cuh>

#include <cstdint>
#include <cstring>

namespace {

using linrec::error;
using linrec::strategy;
using linrec::tensor_layout;
using linrec::tensor_strides;

template <typename T>
T* fake(std::uintptr_t address) {
  return reinterpret_cast<T*>(address);
}

struct call {
  const float* a = fake<float>(0x100000000);
  const float* b = fake<float>(0x200000000);
  float* h = fake<float>(0x300000000);
  tensor_layout layout = tensor_layout::batch_time_channels(2, 100, 64);
  const float* h0 = nullptr;
  float* h_final = nullptr;
  void* temp = fake<void>(0x400000000);
  std::size_t temp_bytes = std::size_t(1) << 30;

  linrec::status run() { return linrec::linear_recurrence<float>(temp, temp_bytes, a, b, h, layout, h0, h_final); }
  linrec::status run_allocating() { return linrec::linear_recurrence<float>(a, b, h, layout, h0, h_final); }
};

TEST(tensor_validation, negative_sizes_and_strides_are_refused) {
  call c;
  c.layout.batch = -1;
  EXPECT_EQ(c.run(), error::negative_batch);
  c = call{};
  c.layout.length = -3;
  EXPECT_EQ(c.run(), error::negative_length);
  c = call{};
  c.layout.channels = -1;
  EXPECT_EQ(c.run_allocating(), error::negative_channels);
  c = call{};
  c.layout.a.time = -64;
  EXPECT_EQ(c.run(), error::negative_stride_a);
  c = call{};
  c.layout.b.channel = -1;
  EXPECT_EQ(c.run(), error::negative_stride_b);
  c = call{};
  c.layout.h.batch = -1;
  EXPECT_EQ(c.run(), error::negative_stride_h);
}

TEST(tensor_validation, extents_past_64_bits_are_refused) {
  call c;
  c.layout = tensor_layout::batch_time_channels(std::int64_t(1) << 22, std::int64_t(1) << 20, std::int64_t(1) << 20);
  EXPECT_EQ(c.run(), error::size_overflow);
  c = call{};
  c.layout.a.batch = std::int64_t(1) << 62;  // (batch - 1) * 2^62 elements of 4 bytes
  EXPECT_EQ(c.run(), error::size_overflow);
  std::size_t bytes = 0;
  EXPECT_EQ(linrec::linear_recurrence<float>(nullptr, bytes, c.a, c.b, c.h, c.layout), error::size_overflow);
}

TEST(tensor_validation, an_output_that_overlaps_itself_is_refused) {
  call c;
  c.layout.h.batch = 0;  // both batch entries written to one place
  EXPECT_EQ(c.run(), error::h_overlaps_itself);
  c = call{};
  c.layout.h = {6400, 64, 32};  // channel stride 32 with 64 channels runs into the next time step
  EXPECT_EQ(c.run(), error::h_overlaps_itself);
  c = call{};
  c.layout.h = {1, 1, 200};  // batch and time share a stride: (1, 0, c) is (0, 1, c)
  EXPECT_EQ(c.run(), error::h_overlaps_itself);
  // Inputs may overlap themselves (broadcast): only h must not.
  c = call{};
  c.layout.a.batch = 0;
  c.layout.b.time = 0;
  c.temp_bytes = 0;
  EXPECT_EQ(c.run(), error::temp_storage_too_small);  // every argument check passed
}

TEST(tensor_validation, null_misaligned_and_overlapping_pointers_are_refused) {
  call c;
  c.b = nullptr;
  EXPECT_EQ(c.run(), error::null_b);
  c = call{};
  c.h = fake<float>(0x300000002);
  EXPECT_EQ(c.run(), error::misaligned_h);
  c = call{};
  c.h_final = fake<float>(0x500000001);
  EXPECT_EQ(c.run(), error::misaligned_h_final);
  c = call{};
  c.h = const_cast<float*>(c.a) + 64;  // a shifted by one time step
  EXPECT_EQ(c.run(), error::h_overlaps_a);
  c = call{};
  c.h = const_cast<float*>(c.b);  // b itself, but with other strides
  c.layout.h = {64, 128, 1};
  EXPECT_EQ(c.run(), error::h_overlaps_b);
}

TEST(tensor_validation, in_place_needs_the_same_pointer_and_strides) {
  call c;
  c.h = const_cast<float*>(c.b);
  c.temp_bytes = 0;
  EXPECT_EQ(c.run(), error::temp_storage_too_small);  // h == b accepted; only the size is left
  c.h = const_cast<float*>(c.a);
  EXPECT_EQ(c.run(), error::temp_storage_too_small);
}

TEST(tensor_validation, empty_problems_need_no_pointers) {
  call c;
  c.a = c.b = nullptr;
  c.h = nullptr;
  for (const tensor_layout& l : {tensor_layout::batch_time_channels(0, 10, 4), tensor_layout::batch_time_channels(2, 0, 4),
                                 tensor_layout::batch_time_channels(2, 10, 0)}) {
    c.layout = l;
    EXPECT_TRUE(c.run().ok());
  }
}

// The temporary storage a float call on `layout` asks for (the size query: nothing is launched).
std::size_t temp_bytes_of(const tensor_layout& layout) {
  std::size_t bytes = 0;
  EXPECT_TRUE(linrec::linear_recurrence<float>(nullptr, bytes, nullptr, nullptr, nullptr, layout).ok());
  return bytes;
}

TEST(tensor_path_choice, follows_the_strides) {
  // Time contiguous, one row stride: the row strategies.
  EXPECT_EQ(linrec::chosen_strategy<float>(tensor_layout::batch_channels_time(1, 1 << 24, 1)), strategy::tiled_lookback);
  EXPECT_EQ(linrec::chosen_strategy<float>(tensor_layout::batch_channels_time(4, 4096, 1024)), strategy::block_per_row);
  EXPECT_EQ(linrec::chosen_strategy<float>(tensor_layout::batch_channels_time(8, 100, 64)), strategy::warp_per_row);
  // Padded rows are still rows; [batch, 1, time]-style single channels too.
  tensor_layout padded = tensor_layout::uniform(2, 1000, 3, {3 * 1024, 1, 1024});
  EXPECT_EQ(linrec::chosen_strategy<float>(padded), linrec::chosen_strategy<float>(linrec::row_layout{6, 1000, 1024}));
  EXPECT_NE(linrec::chosen_strategy<float>(padded), strategy::channel_tiles);
  // Channels contiguous, or anything else, in few channel groups: channel tiles (1000 channels
  // are 125 narrow groups of 8, fewer than the 128 the narrow walk asks for).
  EXPECT_EQ(linrec::chosen_strategy<float>(tensor_layout::batch_time_channels(1, 4096, 1000)), strategy::channel_tiles);
  EXPECT_EQ(linrec::chosen_strategy<float>(tensor_layout::batch_time_channels(1, 1 << 22, 64)), strategy::channel_tiles);
  // fp32 sequences of at most 4096 steps in fewer than 512 groups of 64 channels, but at least
  // 128 groups of 8: a block walks each narrow group, and there is no tile status to hold.
  EXPECT_EQ(linrec::chosen_strategy<float>(tensor_layout::batch_time_channels(1, 4096, 1024)), strategy::channel_walk);
  EXPECT_EQ(linrec::chosen_strategy<float>(tensor_layout::time_batch_channels(2, 4096, 4096)), strategy::channel_walk);
  // Longer sequences, and the other types: the tiles (the narrow walk measured slower there).
  EXPECT_EQ(linrec::chosen_strategy<float>(tensor_layout::batch_time_channels(1, 4097, 1024)), strategy::channel_tiles);
  EXPECT_EQ(linrec::chosen_strategy<double>(tensor_layout::batch_time_channels(1, 4096, 1024)), strategy::channel_tiles);
  EXPECT_EQ((linrec::chosen_strategy<__nv_bfloat16>(tensor_layout::batch_time_channels(1, 4096, 1024))),
            strategy::channel_tiles);
  EXPECT_LT(temp_bytes_of(tensor_layout::batch_time_channels(1, 4096, 1024)),
            temp_bytes_of(tensor_layout::batch_time_channels(1, 4096, 1000)));
  // Many channel groups (batch x channels / 64 >= 512 for float): a block walks each group.
  EXPECT_EQ(linrec::chosen_strategy<float>(tensor_layout::time_batch_channels(8, 4096, 4096)), strategy::channel_walk);
  EXPECT_EQ(linrec::chosen_strategy<float>(tensor_layout::batch_time_channels(1, 1024, 262144)), strategy::channel_walk);
  tensor_layout broadcast = tensor_layout::batch_channels_time(4, 1000, 8);
  broadcast.a.batch = 0;  // not one row stride for all three operands
  EXPECT_EQ(linrec::chosen_strategy<float>(broadcast), strategy::channel_tiles);
}

// The forward plan of default_policy<T> for a layout.
template <typename T>
linrec::detail::tensor_plan forward_plan_of(const tensor_layout& l) {
  return linrec::detail::forward_tensor_plan<T, linrec::auto_policy>(l);
}

TEST(tensor_path_choice, few_channel_groups_take_taller_fp32_tiles_forward) {
  // fp32 tiles are 32 channels wide; up to 16 groups (batch x tiles across channels) take one run
  // in shared memory, so 32 rows x 16 steps x 2 = 1024 steps a tile; more groups 512.
  struct expect {
    tensor_layout layout;
    int shared_chunks;
    std::int64_t steps;
  };
  for (const expect& e : {expect{tensor_layout::batch_time_channels(1, 1 << 22, 64), 1, 1024},
                          expect{tensor_layout::batch_time_channels(1, 1 << 21, 128), 1, 1024},
                          expect{tensor_layout::batch_time_channels(2, 1 << 20, 64), 1, 1024},
                          expect{tensor_layout::time_batch_channels(4, 5000, 3), 1, 1024},
                          expect{tensor_layout::batch_time_channels(1, 1 << 20, 256), 1, 1024},
                          expect{tensor_layout::batch_time_channels(2, 1 << 20, 128), 1, 1024},
                          expect{tensor_layout::batch_time_channels(1, 1 << 19, 512), 1, 1024},
                          expect{tensor_layout::batch_time_channels(16, 1 << 16, 17), 1, 1024},
                          expect{tensor_layout::batch_time_channels(1, 1 << 19, 544), 0, 512},
                          expect{tensor_layout::batch_time_channels(17, 1 << 16, 32), 0, 512},
                          expect{tensor_layout::batch_time_channels(1, 65536, 1024), 0, 512}}) {
    SCOPED_TRACE(::testing::Message() << e.layout.batch << " x " << e.layout.length << " x " << e.layout.channels);
    const auto plan = forward_plan_of<float>(e.layout);
    EXPECT_EQ(plan.chosen, strategy::channel_tiles);
    EXPECT_EQ(plan.shared_chunks, e.shared_chunks);
    EXPECT_EQ(plan.tiling.steps, e.steps);
    EXPECT_EQ(plan.tiling.chunks, (e.layout.length + e.steps - 1) / e.steps);
    // The backward pass keeps the tiles of every other shape (channel_few_groups is forward only),
    // so where the forward's tiles are taller it holds twice the tiles' status.
    const auto backward = linrec::detail::backward_plan<float, linrec::default_policy<float>>(e.layout);
    EXPECT_EQ(backward.shared_chunks, 0);
    EXPECT_EQ(backward.tiling.steps, 512);
    if (e.shared_chunks > 0) EXPECT_GT(backward.temp_bytes, plan.temp_bytes);
  }
  // The other types keep channel_shared_chunks at any number of groups: none for double; three
  // for complex64 and bf16 (tiles of 1024 steps: 32 rows of 4 runs of 8 steps), whose backward
  // passes take none of 16 steps (complex64: channel_backward_steps) and one of 8 (bf16,
  // channel_backward_shared_chunks).
  EXPECT_EQ(forward_plan_of<double>(tensor_layout::batch_time_channels(1, 1 << 22, 64)).shared_chunks, 0);
  using complex64 = cuda::std::complex<float>;
  // Forward and backward tiles of type T: their runs in shared memory and their steps.
  const auto expect_tiles = [](auto type, int forward_chunks, int backward_chunks) {
    using T = decltype(type);
    SCOPED_TRACE(::testing::Message() << "elements of " << sizeof(T) << " bytes");
    for (const auto& l : {tensor_layout::batch_time_channels(1, 1 << 22, 64), tensor_layout::batch_time_channels(1, 65536, 1024)}) {
      const auto forward = forward_plan_of<T>(l);
      EXPECT_EQ(forward.shared_chunks, forward_chunks);
      EXPECT_EQ(forward.tiling.steps, 1024);
      const auto backward = linrec::detail::backward_plan<T, linrec::default_policy<T>>(l);
      EXPECT_EQ(backward.shared_chunks, backward_chunks);
      EXPECT_EQ(backward.tiling.steps, 512);
    }
  };
  expect_tiles(complex64{}, 3, 0);
  expect_tiles(__nv_bfloat16{}, 3, 1);
  // Only where all three operands are complex64: a real a keeps none.
  EXPECT_EQ((linrec::detail::forward_tensor_plan<complex64, linrec::auto_policy, float, complex64>(
                 tensor_layout::batch_time_channels(1, 65536, 1024))
                 .shared_chunks),
            0);
}

TEST(tensor_path_choice, channel_tile_storage_grows_with_tiles) {
  const std::size_t small = temp_bytes_of(tensor_layout::batch_time_channels(1, 32, 128));
  const std::size_t large = temp_bytes_of(tensor_layout::batch_time_channels(1, 3200, 128));
  EXPECT_GT(large, small);
  EXPECT_GT(small, std::size_t(16));
}

TEST(tensor_validation, messages_name_the_member) {
  EXPECT_NE(std::strstr(linrec::error_string(error::negative_stride_a), "layout.a"), nullptr);
  EXPECT_NE(std::strstr(linrec::error_string(error::h_overlaps_itself), "layout.h"), nullptr);
  EXPECT_NE(std::strstr(linrec::error_string(error::negative_channels), "channels"), nullptr);
}

}  // namespace
