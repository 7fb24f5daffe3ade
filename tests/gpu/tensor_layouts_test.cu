// linear_recurrence over tensor layouts: channel-last, time-major, time-contiguous and arbitrary
// strides, broadcast and fused inputs, in place, h0/h_final and chunking, in float and double.
#include "../common/tensor_support.cuh"

#include <linrec/linear_recurrence.cuh>

#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <random>

namespace {

using namespace linrec::testing;
using linrec::strategy;
using linrec::tensor_layout;
using linrec::tensor_strides;

struct channel_tiles_policy_f : linrec::default_policy<float> {
  static constexpr strategy forced = strategy::channel_tiles;
};
struct channel_tiles_policy_d : linrec::default_policy<double> {
  static constexpr strategy forced = strategy::channel_tiles;
};

template <typename T>
struct walk_policy : linrec::default_policy<T> {
  static constexpr strategy forced = strategy::channel_walk;
};
// The walk with each thread's tiles staged in shared memory, two tiles ahead (off by default for these types).
template <typename T>
struct staged_walk_policy : walk_policy<T> {
  static constexpr bool channel_walk_prefetch = true;
};
// Staged two tiles ahead (the 2-byte types' default) for these types, in blocks of 64 threads:
// a second block shape, with tiles of fewer steps, so short sequences go round the stages.
template <typename T>
struct staged_walk_2_policy : staged_walk_policy<T> {
  static constexpr int channel_walk_threads = 64;
  static constexpr int channel_walk_stage_tiles = 2;
};

// Tiles taller than a warp holds rows, whose rows scan by warps (channel_tile_scan): the walk
// over narrow channel groups (forced_narrow_walk: two lanes, 128 rows of 256 threads, staged two
// tiles ahead), and channel tiles of 512 threads (64 rows of 8 lanes).
template <typename T>
struct tall_tiles_policy : linrec::default_policy<T> {
  static constexpr strategy forced = strategy::channel_tiles;
  static constexpr int channel_threads = 512;
  static constexpr int channel_steps = 8;
};

// The channel tiles asking L2 for the tile a grid's round ahead (off by default for fp32 since session 28).
template <typename T>
struct prefetching_tiles_policy : linrec::default_policy<T> {
  static constexpr strategy forced = strategy::channel_tiles;
  static constexpr int channel_prefetch_rounds = 1;
};

// The channel tiles looking back over 64 chunks a round (two a look-back lane) instead of 32
// wherever there are at least as many blocks as channel groups (the default: 32 chunks a group).
template <typename T>
struct wide_window_tiles_policy : linrec::default_policy<T> {
  static constexpr strategy forced = strategy::channel_tiles;
  static constexpr std::int64_t channel_wide_lookback_in_flight = 1;
};

// The channel tiles with each thread's run continued in shared memory (channel_shared_chunks):
// one more run of the default steps (fp32 and double: 128 KB a block), or three runs of 4 steps.
template <typename T, int Chunks, int Steps = linrec::default_policy<T>::channel_steps>
struct shared_runs_tiles_policy : linrec::default_policy<T> {
  static constexpr strategy forced = strategy::channel_tiles;
  static constexpr int channel_steps = Steps;
  static constexpr int channel_shared_chunks = Chunks;
  static constexpr std::int64_t channel_few_groups = 0;  // these runs for every shape
};

// The look-back kernel that resolves each tile before claiming the next (the default defers).
template <typename T>
struct direct_lookback_policy : linrec::default_policy<T> {
  static constexpr bool lookback_deferred = false;
};

template <typename T>
class tensor_layouts_test : public gpu_test {
 protected:
  using forced_channel_tiles = std::conditional_t<std::is_same_v<T, float>, channel_tiles_policy_f, channel_tiles_policy_d>;

  template <typename Policy = linrec::default_policy<T>>
  void check(const tensor_layout& l, a_dist dist = a_dist::half_to_one, bool with_h0 = true,
             std::int64_t b_at = -1, std::int64_t misalign = 0) {
    const auto p = random_tensor_problem<T>(l, dist, with_h0, b_at);
    const auto out = run_tensor_on_device<T, Policy>(p, tensor_alias::none, misalign);
    expect_tensor_matches_reference(p, out);
  }
  // The default policy's plan for a long [batch, time, channels] tensor (channel tiles).
  static linrec::detail::tensor_plan tiles_plan(std::int64_t batch, std::int64_t channels) {
    return linrec::detail::forward_tensor_plan<T, linrec::auto_policy>(
        tensor_layout::batch_time_channels(batch, std::int64_t(1) << 20, channels));
  }
  // Time steps per channel tile for `batch` × `channels` channels (taller where the groups are few).
  static std::int64_t tile_steps(std::int64_t batch, std::int64_t channels) {
    const auto plan = tiles_plan(batch, channels);
    EXPECT_EQ(plan.chosen, strategy::channel_tiles);
    return plan.tiling.steps;
  }
};

using value_types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(tensor_layouts_test, value_types);

TYPED_TEST(tensor_layouts_test, common_layouts_match_float64_reference) {
  using T = TypeParam;
  struct shape {
    std::int64_t batch, length, channels;
  };
  for (const shape s : {shape{2, 1000, 33}, shape{1, 300, 1000}, shape{3, 129, 4}, shape{2, 65, 3},
                        shape{1, 77, 1}, shape{1, 50, 4096}, shape{5, 31, 64}}) {
    SCOPED_TRACE(::testing::Message() << s.batch << "x" << s.length << "x" << s.channels);
    const auto btc = tensor_layout::batch_time_channels(s.batch, s.length, s.channels);
    const auto tbc = tensor_layout::time_batch_channels(s.batch, s.length, s.channels);
    const auto bct = tensor_layout::batch_channels_time(s.batch, s.length, s.channels);
    if (s.channels > 1) {  // tiles, or a walk over narrow channel groups where there are enough
      for (const strategy chosen : {linrec::chosen_strategy<T>(btc), linrec::chosen_strategy<T>(tbc)}) {
        EXPECT_TRUE(chosen == strategy::channel_tiles || chosen == strategy::channel_walk);
      }
    }
    EXPECT_NE(linrec::chosen_strategy<T>(bct), strategy::channel_tiles);  // time contiguous: rows
    this->check(btc);
    this->check(tbc, a_dist::minus_one_to_one);
    this->check(bct, a_dist::long_memory, false);
  }
}

TYPED_TEST(tensor_layouts_test, matches_reference_at_chunk_edges_for_every_lane_count) {
  for (const std::int64_t channels : {4, 20, 33, 64, 65, 129}) {
    const std::int64_t steps = TestFixture::tile_steps(2, channels);
    for (const std::int64_t length : {std::int64_t(1), std::int64_t(2), steps - 1, steps, steps + 1, 3 * steps + 5}) {
      SCOPED_TRACE(::testing::Message() << "channels " << channels << " length " << length);
      this->check(tensor_layout::batch_time_channels(2, length, channels));
    }
  }
}

TYPED_TEST(tensor_layouts_test, channel_counts_from_one_to_4096) {
  for (const std::int64_t channels : {1, 3, 4, 33, 1000, 4096}) {
    SCOPED_TRACE(channels);
    this->check(tensor_layout::batch_time_channels(2, 97, channels));
    this->check(tensor_layout::time_batch_channels(3, 45, channels), a_dist::minus_one_to_one);
  }
}

TYPED_TEST(tensor_layouts_test, random_stride_permutations_with_padding) {
  std::mt19937_64 rng(fresh_seed());
  for (int trial = 0; trial < 24; ++trial) {
    const std::int64_t sizes[3] = {std::int64_t(1 + rng() % 4), std::int64_t(1 + rng() % 300), std::int64_t(1 + rng() % 70)};
    // Each operand: its own order of the three dimensions in memory, and padding after each.
    const auto random_strides = [&]() {
      std::array<int, 3> order = {0, 1, 2};
      std::shuffle(order.begin(), order.end(), rng);
      std::int64_t stride = 1, out[3];
      for (const int d : order) {
        out[d] = stride;
        stride *= sizes[d] + std::int64_t(rng() % 3);
      }
      return tensor_strides{out[0], out[1], out[2]};
    };
    tensor_layout l{sizes[0], sizes[1], sizes[2], random_strides(), random_strides(), random_strides()};
    SCOPED_TRACE(trial);
    this->check(l, trial % 2 ? a_dist::half_to_one : a_dist::minus_one_to_one, trial % 3 != 0);
  }
}

TYPED_TEST(tensor_layouts_test, broadcast_a_and_fused_gate_views) {
  // a shared by every batch entry (stride 0 over batch), b and h channel-last.
  tensor_layout broadcast = tensor_layout::batch_time_channels(4, 300, 40);
  broadcast.a.batch = 0;
  this->check(broadcast);
  // One gate tensor [batch, time, 2 * channels]: a is its first half of channels, b the second.
  const std::int64_t B = 3, T = 257, C = 36;
  const tensor_strides gates{T * 2 * C, 2 * C, 1};
  const tensor_layout fused{B, T, C, gates, gates, {T * C, C, 1}};
  this->check(fused, a_dist::half_to_one, true, /*b_at=*/C);
  // The same for time-major gates [time, batch, 2 * channels].
  const tensor_strides major{2 * C, B * 2 * C, 1};
  this->check(tensor_layout{B, T, C, major, major, {C, B * C, 1}}, a_dist::minus_one_to_one, false, C);
}

TYPED_TEST(tensor_layouts_test, in_place_on_a_or_b) {
  using T = TypeParam;
  for (const tensor_alias alias : {tensor_alias::h_is_a, tensor_alias::h_is_b}) {
    const auto p = random_tensor_problem<T>(tensor_layout::batch_time_channels(2, 500, 70));
    const auto out = run_tensor_on_device<T>(p, alias);
    expect_tensor_matches_reference(p, out, /*own_buffer=*/false);
  }
}

TYPED_TEST(tensor_layouts_test, misaligned_operands_take_the_element_wise_path) {
  // One element off 16 bytes: vector accesses would fault or read the wrong elements.
  this->check(tensor_layout::batch_time_channels(2, 130, 67), a_dist::half_to_one, true, -1, 1);
  this->check(tensor_layout::time_batch_channels(2, 130, 67), a_dist::half_to_one, true, -1, 1);
}

TYPED_TEST(tensor_layouts_test, forced_channel_tiles_on_time_contiguous_data) {
  using Forced = typename TestFixture::forced_channel_tiles;
  EXPECT_EQ((linrec::chosen_strategy<TypeParam, Forced>(tensor_layout::batch_channels_time(2, 100, 10))),
            strategy::channel_tiles);
  this->template check<Forced>(tensor_layout::batch_channels_time(2, 300, 10));
  this->template check<Forced>(tensor_layout::batch_channels_time(1, 1000, 3), a_dist::minus_one_to_one);
}

TYPED_TEST(tensor_layouts_test, long_time_few_channels_and_many_tiles) {
  this->check(tensor_layout::batch_time_channels(1, (1 << 17) + 7, 64), a_dist::half_to_one, true);
  this->check(tensor_layout::time_batch_channels(4, 3000, 500), a_dist::long_memory, true);
  // The benchmark's [1, T, 1024] family: few groups, each looking back over many chunks at once.
  this->check(tensor_layout::batch_time_channels(1, 20011, 1000), a_dist::minus_one_to_one, false);
  // With L2 asked for tiles ahead, up to past the last tile, where the default does not (fp32):
  // for the rest the checks above already run it.
  if constexpr (linrec::default_policy<TypeParam>::channel_prefetch_rounds == 0) {
    using Prefetching = prefetching_tiles_policy<TypeParam>;
    this->template check<Prefetching>(tensor_layout::batch_time_channels(1, 20011, 1000), a_dist::minus_one_to_one, false);
    this->template check<Prefetching>(tensor_layout::batch_time_channels(2, 3001, 67), a_dist::half_to_one, true, -1, 1);
  }
  // Looking back over 64 chunks a round: one group of many chunks (some rounds then reach the
  // first chunk), a few groups, and a reverse scan.
  using WideWindow = wide_window_tiles_policy<TypeParam>;
  this->template check<WideWindow>(tensor_layout::batch_time_channels(1, (1 << 17) + 7, 64), a_dist::half_to_one, true);
  this->template check<WideWindow>(tensor_layout::batch_time_channels(2, 3001, 67), a_dist::half_to_one, true, -1, 1);
  this->template check<WideWindow>(tensor_layout::batch_time_channels(1, 50001, 5).reversed(), a_dist::long_memory);
}

// Few channel groups take tiles with channel_few_groups_shared_chunks runs in shared memory
// (fp32 by default: up to 16 groups, one run), more groups channel_shared_chunks: both sides of
// the threshold, at chunk edges, reversed, with a tail and element-wise.
TYPED_TEST(tensor_layouts_test, few_channel_groups_take_their_own_runs) {
  using T = TypeParam;
  using P = linrec::default_policy<T>;
  const std::int64_t group = TestFixture::tiles_plan(1, 4096).tiling.group;
  const std::int64_t few = std::max<std::int64_t>(P::channel_few_groups, 2);  // (double: no threshold)
  for (const std::int64_t groups : {std::int64_t(1), few, few + 1}) {
    const std::int64_t channels = groups * group;
    const auto plan = TestFixture::tiles_plan(1, channels);
    EXPECT_EQ(plan.tiling.groups, groups);
    const int runs = groups <= P::channel_few_groups ? P::channel_few_groups_shared_chunks : P::channel_shared_chunks;
    EXPECT_EQ(plan.shared_chunks, runs);
    const std::int64_t steps = plan.tiling.steps;
    for (const std::int64_t length : {steps - 1, steps + 1, 3 * steps + 5}) {
      SCOPED_TRACE(::testing::Message() << "groups " << groups << ", runs " << runs << ", length " << length);
      this->check(tensor_layout::batch_time_channels(1, length, channels));
      this->check(tensor_layout::batch_time_channels(1, length, channels - 3).reversed(), a_dist::minus_one_to_one);
      this->check(tensor_layout::batch_time_channels(1, length, channels), a_dist::long_memory, true, -1, 1);
    }
  }
  if constexpr (std::is_same_v<T, float>) {  // the default's threshold for fp32, as documented
    EXPECT_EQ(TestFixture::tiles_plan(2, 64).shared_chunks, 1);
    EXPECT_EQ(TestFixture::tiles_plan(1, 512).shared_chunks, 1);
    EXPECT_EQ(TestFixture::tiles_plan(1, 1024).shared_chunks, 0);
  }
}

// Tiles whose threads hold part of their runs in shared memory: chunk edges, several channel
// groups, reverse scans, time-major operands, element-wise paths (runs that are not staged are
// read from global memory) and many chunks a group.
TYPED_TEST(tensor_layouts_test, tiles_with_runs_in_shared_memory) {
  using T = TypeParam;
  const auto each = [this](auto policy) {
    using P = decltype(policy);
    for (const std::int64_t channels : {4, 33, 129}) {
      const std::int64_t steps =
          std::int64_t(P::channel_threads / linrec::detail::channel_lanes<linrec::detail::vector_width<T>, P::channel_max_lanes>(channels)) *
          P::channel_steps * (1 + P::channel_shared_chunks);
      for (const std::int64_t length : {std::int64_t(1), std::int64_t(2), steps - 1, steps, steps + 1, 3 * steps + 5}) {
        SCOPED_TRACE(::testing::Message() << "shared runs " << P::channel_shared_chunks << ", channels " << channels
                                          << ", length " << length);
        this->template check<P>(tensor_layout::batch_time_channels(2, length, channels));
      }
    }
    SCOPED_TRACE(::testing::Message() << "shared runs " << P::channel_shared_chunks);
    this->template check<P>(tensor_layout::batch_time_channels(1, 5003, 1000).reversed(), a_dist::minus_one_to_one);
    this->template check<P>(tensor_layout::time_batch_channels(3, 2000, 40), a_dist::long_memory, false);
    this->template check<P>(tensor_layout::batch_time_channels(2, 1300, 67), a_dist::half_to_one, true, -1, 1);
    this->template check<P>(tensor_layout::batch_time_channels(1, (1 << 17) + 7, 64), a_dist::half_to_one, true);
  };
  each(shared_runs_tiles_policy<T, 1>{});
  each(shared_runs_tiles_policy<T, 3, 4>{});
}

// Two chunks of time, each run on its own, chained through h_final (the earlier chunk first going
// forward, the later one first in reverse), equal one run over the whole.
template <typename T>
void expect_chunked_runs_equal_one_run(const tensor_layout& whole) {
  const auto p = random_tensor_problem<T>(whole);
  const std::int64_t split = 389;
  tensor_problem<T> early = p, late = p;
  early.layout.length = split;
  late.layout.length = whole.length - split;
  // The later chunk's views start `split` steps in.
  late.a_at += split * whole.a.time;
  late.b_at += split * whole.b.time;
  tensor_result<T> out_early, out_late;
  if (whole.reverse) {
    out_late = run_tensor_on_device<T>(late);
    early.h0 = out_late.h_final;
    out_early = run_tensor_on_device<T>(early);
  } else {
    out_early = run_tensor_on_device<T>(early);
    late.h0 = out_early.h_final;
    out_late = run_tensor_on_device<T>(late);
  }
  // Each chunk against the whole sequence's reference at its own positions.
  std::vector<reference_t<T>> ref_final;
  const auto ref = tensor_sequential<reference_t<T>>(p, &ref_final);
  const auto loop_err = tensor_compare(tensor_sequential<T>(p), ref, whole);
  double worst = 0;
  for (std::int64_t bi = 0; bi < whole.batch; ++bi) {
    for (std::int64_t t = 0; t < whole.length; ++t) {
      for (std::int64_t c = 0; c < whole.channels; ++c) {
        const double got = t < split ? double(out_early.h[std::size_t(early.layout.h.offset(bi, t, c))])
                                     : double(out_late.h[std::size_t(late.layout.h.offset(bi, t - split, c))]);
        worst = std::fmax(worst, std::fabs(got - double(ref[std::size_t(whole.h.offset(bi, t, c))])));
      }
    }
  }
  const double floor = 8 * std::numeric_limits<T>::epsilon() * loop_err.ref_max;
  EXPECT_LE(worst, std::max(2 * loop_err.max_abs, floor)) << p.describe();
  const auto& final_out = whole.reverse ? out_early.h_final : out_late.h_final;
  for (std::size_t i = 0; i < ref_final.size(); ++i) {
    EXPECT_LE(std::fabs(double(final_out[i]) - double(ref_final[i])), std::max(2 * loop_err.max_abs, floor));
  }
}

TYPED_TEST(tensor_layouts_test, chunked_runs_equal_one_run) {
  for (const tensor_layout& whole : {tensor_layout::batch_time_channels(3, 1000, 45),
                                    tensor_layout::time_batch_channels(2, 777, 130)}) {
    expect_chunked_runs_equal_one_run<TypeParam>(whole);
  }
}

TYPED_TEST(tensor_layouts_test, empty_problems_touch_only_h_final) {
  using T = TypeParam;
  // length 0: h_final = h0 (or 0); batch or channels 0: nothing at all.
  const auto p = random_tensor_problem<T>(tensor_layout::batch_time_channels(3, 0, 5));
  const auto out = run_tensor_on_device<T>(p);
  ASSERT_EQ(out.h_final.size(), p.h0.size());
  for (std::size_t i = 0; i < p.h0.size(); ++i) EXPECT_EQ(out.h_final[i], p.h0[i]);
  const auto no_h0 = run_tensor_on_device<T>(random_tensor_problem<T>(tensor_layout::batch_time_channels(2, 0, 3), a_dist::half_to_one, false));
  for (const T x : no_h0.h_final) EXPECT_EQ(x, T(0));
  EXPECT_TRUE(run_tensor_on_device<T>(random_tensor_problem<T>(tensor_layout::batch_time_channels(0, 10, 5))).h.empty());
  EXPECT_TRUE(run_tensor_on_device<T>(random_tensor_problem<T>(tensor_layout::batch_time_channels(2, 10, 0))).h.empty());
}

TYPED_TEST(tensor_layouts_test, direct_lookback_matches_reference) {
  using P = direct_lookback_policy<TypeParam>;
  for (const std::int64_t length : {std::int64_t(1), std::int64_t(33), std::int64_t(4095), std::int64_t(4097),
                                    std::int64_t(100000), std::int64_t(1 << 20) + 7}) {
    SCOPED_TRACE(length);
    // One long row: tiled look-back; a few: the same, more rows in flight.
    this->template check<P>(tensor_layout::batch_channels_time(1, length, 1));
    this->template check<P>(tensor_layout::batch_channels_time(3, length / 3 + 1, 1), a_dist::minus_one_to_one);
  }
  for (const std::int64_t channels : {3, 33, 64, 1000}) {
    this->template check<P>(tensor_layout::batch_time_channels(2, 517, channels));
    this->template check<P>(tensor_layout::time_batch_channels(2, 300, channels), a_dist::minus_one_to_one);
  }
  this->template check<P>(tensor_layout::batch_time_channels(1, 100003, 64), a_dist::long_memory);
  this->template check<P>(tensor_layout::batch_time_channels(2, 130, 67), a_dist::half_to_one, true, -1, 1);
  this->template check<P>(tensor_layout::batch_channels_time(1, 5000, 1), a_dist::half_to_one, true, -1, 1);
}

TYPED_TEST(tensor_layouts_test, channel_walk_matches_reference) {
  using P = walk_policy<TypeParam>;
  EXPECT_EQ((linrec::chosen_strategy<TypeParam, P>(tensor_layout::batch_time_channels(1, 10, 10))), strategy::channel_walk);
  using D = linrec::default_policy<TypeParam>;
  constexpr std::int64_t steps = D::channel_walk_steps * (D::channel_walk_threads / D::channel_walk_lanes);  // a walk tile's steps
  for (const std::int64_t channels : {1, 3, 33, 1000}) {
    for (const std::int64_t length : {std::int64_t(1), steps - 1, steps, steps + 1, 5 * steps + 3}) {
      SCOPED_TRACE(::testing::Message() << "channels " << channels << " length " << length);
      this->template check<P>(tensor_layout::batch_time_channels(2, length, channels));
    }
    this->template check<P>(tensor_layout::time_batch_channels(3, 301, channels), a_dist::minus_one_to_one, false);
  }
  tensor_layout broadcast = tensor_layout::batch_time_channels(3, 200, 40);
  broadcast.a.batch = 0;
  this->template check<P>(broadcast);
  this->template check<P>(tensor_layout::batch_time_channels(2, 130, 67), a_dist::half_to_one, true, -1, 1);
  this->template check<P>(tensor_layout::batch_channels_time(2, 300, 10), a_dist::long_memory);
  // Staged: whole tiles come through shared memory, the ragged last tile and unaligned operands
  // (element-wise) straight from global memory, and groups after the first reuse the stage.
  using Staged = staged_walk_policy<TypeParam>;
  for (const std::int64_t length : {std::int64_t(1), steps - 1, steps + 1, 5 * steps + 3}) {
    SCOPED_TRACE(::testing::Message() << "staged, length " << length);
    this->template check<Staged>(tensor_layout::batch_time_channels(3, length, 1000));
    this->template check<Staged>(tensor_layout::time_batch_channels(2, length, 33), a_dist::minus_one_to_one);
    this->template check<Staged>(tensor_layout::batch_time_channels(2, length, 130).reversed(), a_dist::long_memory);
  }
  this->template check<Staged>(tensor_layout::batch_time_channels(2, 130, 67), a_dist::half_to_one, true, -1, 1);
  // Two tiles ahead: sequences of one tile and of two (no more than the stages ahead), and a
  // ragged tile after whole ones that went round the stages.
  using Staged2 = staged_walk_2_policy<TypeParam>;
  constexpr std::int64_t steps2 =
      Staged2::channel_walk_steps * (Staged2::channel_walk_threads / Staged2::channel_walk_lanes);
  for (const std::int64_t length : {std::int64_t(1), steps2, 2 * steps2 + 1, 5 * steps2 + 3}) {
    SCOPED_TRACE(::testing::Message() << "staged two ahead, length " << length);
    this->template check<Staged2>(tensor_layout::batch_time_channels(3, length, 1000));
    this->template check<Staged2>(tensor_layout::batch_time_channels(2, length, 130).reversed(), a_dist::long_memory);
  }
  this->template check<Staged2>(tensor_layout::batch_time_channels(2, 130, 67), a_dist::half_to_one, true, -1, 1);
  // Chosen automatically once there are enough channel groups.
  const auto many = tensor_layout::batch_time_channels(8, 50, 8200);
  EXPECT_EQ(linrec::chosen_strategy<TypeParam>(many), strategy::channel_walk);
  this->check(many);
}

TYPED_TEST(tensor_layouts_test, tiles_taller_than_a_warp_match_reference) {
  using T = TypeParam;
  using Walk = forced_narrow_walk<linrec::default_policy<T>>;
  constexpr std::int64_t walk_steps = Walk::channel_walk_steps * (Walk::channel_walk_threads / Walk::channel_walk_lanes);
  for (const std::int64_t channels : {1, 3, 33, 1000}) {
    for (const std::int64_t length : {std::int64_t(1), std::int64_t(31), walk_steps - 1, walk_steps, walk_steps + 1,
                                      5 * walk_steps + 3}) {
      SCOPED_TRACE(::testing::Message() << "narrow walk, channels " << channels << " length " << length);
      this->template check<Walk>(tensor_layout::batch_time_channels(2, length, channels));
    }
  }
  this->template check<Walk>(tensor_layout::time_batch_channels(3, 2 * walk_steps + 7, 33).reversed(),
                             a_dist::minus_one_to_one, false);
  this->template check<Walk>(tensor_layout::batch_time_channels(2, 3 * walk_steps + 1, 67), a_dist::half_to_one, true, -1, 1);
  this->template check<Walk>(tensor_layout::batch_time_channels(1, 20011, 1000), a_dist::long_memory);
  // Chosen automatically where the walk's groups are few but narrow ones are about one per SM
  // (on by default for fp32 sequences of at most 4096 steps; here for both types, any length).
  using Auto = narrow_walk_everywhere<linrec::default_policy<T>>;
  constexpr std::int64_t narrow_group = std::int64_t(Auto::channel_narrow_walk_lanes) * Auto::vector_items;
  const auto narrow = tensor_layout::batch_time_channels(1, 5003, Auto::channel_narrow_walk_min_groups * narrow_group);
  EXPECT_EQ((linrec::chosen_strategy<T, Auto>(narrow)), strategy::channel_walk);
  this->template check<Auto>(narrow);
  this->template check<Auto>(narrow.reversed(), a_dist::minus_one_to_one, true);
  // Ragged last groups, rows not 16-byte aligned: element-wise.
  this->template check<Auto>(
      tensor_layout::time_batch_channels(4, 3001, Auto::channel_narrow_walk_min_groups * narrow_group / 4 - 1),
      a_dist::long_memory);
  const auto defaults = tensor_layout::batch_time_channels(1, 4096, 1024);  // fp32: the narrow walk by default
  this->check(defaults);
  this->check(defaults.reversed(), a_dist::half_to_one, false);
  using Tall = tall_tiles_policy<T>;
  constexpr std::int64_t tile_steps = std::int64_t(Tall::channel_threads / 8) * Tall::channel_steps;  // at 8 lanes
  for (const std::int64_t length : {std::int64_t(1), tile_steps - 1, tile_steps, tile_steps + 1, 7 * tile_steps + 3}) {
    SCOPED_TRACE(::testing::Message() << "tall tiles, length " << length);
    this->template check<Tall>(tensor_layout::batch_time_channels(2, length, 64));
    this->template check<Tall>(tensor_layout::batch_time_channels(1, length, 1000).reversed(), a_dist::minus_one_to_one);
  }
  this->template check<Tall>(tensor_layout::batch_time_channels(1, 50001, 5), a_dist::long_memory, false);
}

// Backwards in time on every path: rows (time contiguous), channel walk, channel tiles (look-back
// over chunks taken from the end), element-wise accesses, broadcast a and fused gate views.
TYPED_TEST(tensor_layouts_test, reverse_matches_float64_reference_on_every_path) {
  using T = TypeParam;
  using Forced = typename TestFixture::forced_channel_tiles;
  const std::int64_t steps = this->tile_steps(2, 64);
  for (const std::int64_t length : {std::int64_t(1), steps - 1, steps + 1, 7 * steps + 3}) {
    SCOPED_TRACE(length);
    this->check(tensor_layout::batch_time_channels(2, length, 64).reversed());
    this->check(tensor_layout::time_batch_channels(3, length, 33).reversed(), a_dist::minus_one_to_one, false);
    this->check(tensor_layout::batch_channels_time(2, length, 5).reversed(), a_dist::long_memory);
    this->template check<Forced>(tensor_layout::batch_channels_time(1, length, 3).reversed());
    this->template check<walk_policy<T>>(tensor_layout::batch_time_channels(2, length, 1000).reversed());
  }
  this->check(tensor_layout::batch_time_channels(1, (1 << 16) + 5, 64).reversed(), a_dist::long_memory);
  this->check(tensor_layout::batch_time_channels(2, 130, 67).reversed(), a_dist::half_to_one, true, -1, 1);
  this->template check<walk_policy<T>>(tensor_layout::time_batch_channels(2, 130, 67).reversed(), a_dist::half_to_one,
                                       true, -1, 1);
  tensor_layout broadcast = tensor_layout::batch_time_channels(3, 200, 40).reversed();
  broadcast.a.batch = 0;
  this->check(broadcast);
  const std::int64_t B = 2, L = 150, C = 48;  // a and b: halves of one gate tensor [B, L, 2C]
  const tensor_strides gate{L * 2 * C, 2 * C, 1};
  this->check(tensor_layout{B, L, C, gate, gate, {L * C, C, 1}}.reversed(), a_dist::half_to_one, true, C);
}

TYPED_TEST(tensor_layouts_test, reverse_chunked_runs_equal_one_run) {
  for (const tensor_layout& whole : {tensor_layout::batch_time_channels(3, 1000, 45).reversed(),
                                    tensor_layout::time_batch_channels(2, 777, 130).reversed(),
                                    tensor_layout::batch_channels_time(2, 5000, 3).reversed()}) {
    expect_chunked_runs_equal_one_run<TypeParam>(whole);
  }
}

TYPED_TEST(tensor_layouts_test, repeated_runs_on_fresh_data) {
  for (int run = 0; run < 4; ++run) this->check(tensor_layout::batch_time_channels(2, 2000, 129), a_dist::minus_one_to_one);
}

}  // namespace
