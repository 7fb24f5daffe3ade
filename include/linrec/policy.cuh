// linrec/policy.cuh — the tuning knobs of linear_recurrence, as one type with documented defaults.
#pragma once

#include <linrec/value_types.cuh>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace linrec {

/// How linear_recurrence spreads rows of time-contiguous data over the GPU.
enum class strategy {
  automatic,       ///< chosen from the shape by the policy's thresholds (see default_policy)
  tiled_lookback,  ///< rows cut into tiles, one block per tile, carries by decoupled look-back
  block_per_row,   ///< one block walks each row tile by tile, the carry kept on chip
  warp_per_row,    ///< one warp walks each row, the carry kept in registers
  channel_tiles,   ///< tensor layouts whose time is not contiguous: lanes across channels, time
                   ///< cut into chunks, carries per channel by decoupled look-back
  channel_walk,    ///< the same tiles, but a block walks all of time for its channel group,
                   ///< carrying on chip: for many channel groups
};

/// The defaults, tuned on an H200 (sm_90), for h stored as H, a as A and b as B, with the state
/// carried in Accumulator. To change a knob, derive and shadow it:
///
///     struct my_policy : linrec::default_policy<float> {
///       static constexpr linrec::strategy forced = linrec::strategy::block_per_row;
///     };
///     linrec::linear_recurrence<float, my_policy>(...);
///
/// and to carry, say, float storage in a double state:
///
///     struct double_state : linrec::default_policy<float, float, float, double> {};
///
/// Items per thread scale with the element sizes: each is a whole number of 16-byte vectors of
/// every operand, and about 32 bytes of state a thread, so a tile holds the same number of bytes
/// for float and double.
template <typename H, typename A = H, typename B = H, typename Accumulator = accumulator_t<A, B, H>>
struct default_policy {
  /// The type the state is carried in: float, double, cuda::std::complex<float> or
  /// cuda::std::complex<double> (complex when any operand is).
  using accumulator_type = Accumulator;
  /// Elements of the narrowest operand in one 16-byte vector: every count of items or channels a
  /// thread owns is a multiple of it.
  static constexpr int vector_items = 16 / int(std::min({sizeof(A), sizeof(B), sizeof(H)}));
  /// Items a thread scans in the row strategies: 32 bytes of state (8 for float, 4 for double),
  /// at least one vector. (16 items for the 2-byte types measured 0.24 of copy against 0.72 for
  /// 8 at 1024 rows × 65536 in bf16 on the H200.)
  static constexpr int thread_items = std::max(vector_items, 32 / int(sizeof(Accumulator)));
  /// Whether a, b and h are all complex64 (cuda::std::complex<float>), carried as complex64,
  /// whose channel tiles take their own defaults (channel_steps, channel_shared_chunks,
  /// channel_prefetch_rounds).
  static constexpr bool complex64_storage =
      std::is_same_v<A, cuda::std::complex<float>> && std::is_same_v<B, cuda::std::complex<float>> &&
      std::is_same_v<H, cuda::std::complex<float>> && std::is_same_v<Accumulator, cuda::std::complex<float>>;

  /// tiled_lookback: threads per block and items per thread (a tile is their product). With the
  /// deferred look-back, 512 x 8 measured 0.63 of copy at 2^28 on the H200, against 0.61 for
  /// 256 x 16 and 0.54 for 256 x 16 without deferring (0.74 for 512 x 8 since session 20 cut the
  /// instructions a tile; 256 x 16 not measured since). Fewer threads where a tile's scanned
  /// state would pass 32 KB of shared memory (the deferred kernel parks a whole tile there): a
  /// narrow operand (many items a thread) with a wide state, e.g. bf16 a with complex<double> b.
  /// (Up to 1024 threads: a block whose parked tile passes 32 KB parks it in dynamic shared
  /// memory. Tiles of 8192 at one block per SM, which halve the aggregates each deferred
  /// look-back combines, measured 0.69 of copy at 2^28 for 1024 x 8 with 8 look-back warps and
  /// 0.65-0.67 for 512 x 16, against 0.74 for the default: H200, session 23.)
  static constexpr int lookback_threads =
      std::clamp(32768 / (thread_items * 2 * int(sizeof(Accumulator))), 64, 512);
  static constexpr int lookback_items = thread_items;
  /// tiled_lookback: launch only as many blocks as fit on the GPU at once, each taking tile after
  /// tile, instead of one block per tile (measured on the H200: 0.54 vs 0.52 of copy at 2^28).
  static constexpr bool lookback_persistent = true;
  /// tiled_lookback: defer each tile's look-back until the block has loaded, scanned and
  /// published its next tile (see deferred_lookback_kernel), and the blocks per SM that kernel is
  /// compiled to fit.
  static constexpr bool lookback_deferred = true;
  static constexpr int lookback_min_blocks = 2;
  /// tiled_lookback, deferred: predecessors each look-back lane inspects per round, so a round
  /// reaches lookback_threads × this many tiles back.
  static constexpr int lookback_tiles_per_lane = 1;
  /// tiled_lookback (deferred or staged): how many of the block's warps look back (each reads 32
  /// × lookback_tiles_per_lane predecessors a round), at most all of them (lookback_threads / 32,
  /// which 0 also asks for). A round must reach past the tiles still unresolved, about one per
  /// resident block (264 on an H200). H200, fp32, session 21 (two same-run rounds): 8 of 16 warps
  /// 0.744 / 0.741 of copy at 1 x 2^28 against 0.736 / 0.739 for all, 265 / 265 us at 64 x 2^20
  /// against 271 / 267; 4 warps (128 tiles a round) 0.40. 256 x 16 tiles, 8 warps: 0.68. Session
  /// 24, with striped stores (two same-run rounds): 8 warps 0.769 / 0.771 at 1 x 2^28 against
  /// 0.757 / 0.761 for all 16 and 0.764 / 0.765 for 12.
  static constexpr int lookback_warps = 8;
  /// tiled_lookback, deferred: a block that claims tile t asks L2 for the inputs of the tile this
  /// many rounds of the grid ahead (t + rounds × blocks), so DRAM reads run ahead of the blocks'
  /// look-backs; 0 turns it off. Forward only (the backward pass measured slower with it). H200,
  /// fp32 1 × 2^28 and 64 × 2^20: 1 round 0.63 and 0.62 of copy, none 0.59 and 0.61, 2 rounds
  /// 0.62 and 0.62.
  static constexpr int lookback_prefetch_rounds = 1;
  /// tiled_lookback (deferred or staged): store a whole tile's h striped across the block from
  /// its parked items, so each warp's store covers 512 contiguous bytes, instead of each thread
  /// its own run of lookback_items steps (for fp32 tiles of 8 items a warp's store then
  /// half-fills every sector of 1 KB, and two stores fill them). The look-back kernel is bound by
  /// the L2's fabric between its two partitions (Nsight Compute, H200, 1 x 2^28 fp32:
  /// lts__ltcfabric2ltc_cycles_active 87 % of peak, against 93 % for block_per_row at the copy
  /// roofline); striped stores cut the L2 write requests from 11.4 M to 8.5 M a launch. With 8
  /// look-back warps: 0.769 / 0.771 of copy against 0.744 / 0.749 (session 24, same runs), 64 x
  /// 2^20 255 / 254 us against 265 / 263. Forward in time only (rows_problem::striped_stores).
  static constexpr bool lookback_striped_stores = true;
  /// tiled_lookback on sm_90 and later: how many claimed tiles each block keeps streaming into
  /// shared memory through the bulk-copy engine while it scans (see staged_lookback_kernel); 0
  /// turns staging off. Builds for earlier architectures never stage.
  static constexpr int lookback_stages = 0;  // off: staged 256x8 s4 d2 measured 0.62 vs 0.63 unstaged at 2^28 (H200)
  /// tiled_lookback, staged: how many tiles a block scans (and publishes the aggregate of) ahead
  /// of its look-backs; at least 1 and at most lookback_stages - 2.
  static constexpr int lookback_staged_deferral = 2;
  /// tiled_lookback: stage only with at least this many tiles per resident block; below that,
  /// claiming tiles ahead would leave some blocks without work.
  static constexpr std::int64_t lookback_staged_min_tiles_per_block = 4;

  /// block_per_row: threads per block and items per thread of each tile a block walks: 256
  /// threads for the 2-byte types, 128 for the rest. H200, session 26, 1024 rows × 65536, the
  /// tile ahead held as loaded, two rounds each: bf16 at 256 threads 0.97–0.98 of copy in four
  /// runs against 0.95 for 128 and 0.96 for 512; fp32 at 128 threads 1.048 / 1.033 of
  /// linrec_bench's copy against 1.019 / 1.013 for 256 and 0.98 / 0.97 for 512 (in types_bench
  /// 0.93 / 0.92 against 0.91 / 0.91), complex64 0.945 / 0.945 against 0.93 / 0.93.
  static constexpr int row_block_threads = vector_items >= 8 ? 256 : 128;
  static constexpr int row_block_items = thread_items;
  /// block_per_row: a block also asks L2 for the inputs of the tile this many tiles past the one
  /// it loads (0: off). It was on (2 tiles) for the 2-byte types while the tile ahead was
  /// converted as it was loaded (0.86 of copy at 1024 rows × 65536 bf16 against 0.72 without);
  /// with it held as loaded, none measured 0.98 / 0.97 for bf16 at 256 threads, 1 tile 0.98 /
  /// 0.98, 2 tiles 0.92 / 0.92 (H200, session 26). fp32 with 4 tiles: 0.65 against 0.88.
  static constexpr int row_block_prefetch_tiles = 0;
  /// block_per_row: hold the tile a block loads while it scans the one before as the 16-byte
  /// vectors the loads return, converting it to the state type only when it is scanned. A
  /// conversion next to its load waits for the load (the compiler cannot move it past the branch
  /// between the vector and element paths), so a thread converting 2-byte storage on load waited
  /// for the next tile before scanning this one. H200, session 26, 1024 rows × 65536, two
  /// same-run rounds: at 256 threads bf16 0.97 / 0.98 of copy held against 0.67 / 0.67
  /// converted, fp32 0.91 / 0.91 against 0.86 / 0.86, complex64 0.93 / 0.93 against 0.92 / 0.92;
  /// bf16 at 128 threads 0.94 / 0.94 held against 0.87 / 0.87 converted with L2 asked 2 tiles
  /// ahead (the default before).
  static constexpr bool row_block_hold_loaded = true;
  /// block_per_row, rows of at most row_block_short_max_length steps: tiles of fewer items a
  /// thread (one vector), so a row's few tiles take shorter dependent chains (H200, against 128 x
  /// 8 then: 5.3 vs 6.1 us at 1024 x 1024 and 1.13 vs 1.05 of copy at 16384 x 4096). For the
  /// 2-byte types one vector is the long rows' items, so the tiles are the same.
  static constexpr int row_block_short_threads = 256;
  static constexpr int row_block_short_items = vector_items;
  static constexpr std::int64_t row_block_short_max_length = 4096;

  /// warp_per_row: threads per block (a multiple of 32; each warp owns rows) and items per lane.
  static constexpr int row_warp_block_threads = 256;
  static constexpr int row_warp_items = thread_items;

  /// block_per_row and warp_per_row: launch with programmatic dependent launch (sm_90 and later;
  /// no effect before), so the kernel's launch overlaps the end of the kernel ahead of it on the
  /// stream. Stream order is kept: the kernel waits for its predecessor before touching memory.
  static constexpr bool programmatic_launch = true;

  /// automatic: rows no longer than this go one per warp.
  static constexpr std::int64_t warp_per_row_max_length = 256;
  /// automatic: with at least this many rows (about one block per row resident on an H200's
  /// 132 SMs), rows go one per block; fewer, longer rows are tiled with look-back.
  static constexpr std::int64_t block_per_row_min_rows = 1024;

  /// channel_walk: threads per block, and lanes across channels (each lane takes vector_items
  /// channels). For 4- to 16-byte operands, 16 lanes: 256 contiguous bytes per operand each time
  /// step of a group (64 channels of float). On the H200 at [8, 4096, 4096] fp32, 128 threads of
  /// 16 lanes measured 0.93 of copy against 0.86–0.87 for 64 threads of 8 lanes (32 channels),
  /// and 0.95 against 0.88 at [1, 1024, 262144] (the sequential loop: 0.93). The 2-byte types take
  /// 128 threads of 8 lanes (64 channels, 128 contiguous bytes), staged (channel_walk_prefetch):
  /// at [8, 4096, 4096] bf16, side by side, 0.81 of copy, against 0.76 unstaged, 0.76 for 64
  /// threads of 4 lanes staged and 0.74 unstaged (the default before; with each tile's rows
  /// scanned with shuffles, channel_tile_scan; before that, 64 × 4 was the best at 0.45–0.48).
  static constexpr int channel_walk_threads = 128;
  static constexpr int channel_walk_lanes = vector_items >= 8 ? 8 : 16;
  /// channel_walk: time steps each thread scans, for 64 registers of state (float: 8 steps of 4
  /// channels; 0.89 of copy at [8, 4096, 4096] against 0.83 with 4, at 64 threads of 8 lanes).
  static constexpr int channel_walk_steps =
      std::clamp(64 * 4 / (vector_items * 2 * int(sizeof(Accumulator))), 1, 8);
  /// channel_walk: copy each thread's next tile into shared memory (cp.async) while the block
  /// scans and stores the current one (see channel_stage). On for the 2-byte types, whose threads
  /// hold 4 steps (above). Off for the rest: at fp32's default tile it measured the same as
  /// loading in registers (0.93–0.95 both ways, H200); it lifts tiles of 4 steps (256 threads of
  /// 32 lanes: 0.92 against 0.85 at [8, 4096, 4096] fp32).
  static constexpr bool channel_walk_prefetch = vector_items >= 8;
  /// channel_walk, staged: how many tiles ahead each thread's runs are copied, each tile in its
  /// own stage of dynamic shared memory (Steps × 2 × 16 bytes a thread), so that many tiles'
  /// loads stay in flight while the block scans and stores. H200, session 27, [8, 4096, 4096]
  /// bf16 at 128 threads of 8 lanes, four same-binary rounds over two calls: 2 tiles 0.85 / 0.87
  /// / 0.85 / 0.84 of copy against 0.82 / 0.83 / 0.82 / 0.82 for 1 (fp16 alike). 64 threads of 8
  /// lanes, 2 tiles: 0.68–0.69; 3 tiles: 0.67–0.68; 64 × 4, 2 tiles: 0.65–0.67. Nsight Compute
  /// then puts the walk at 88 % of L1/TEX throughput with DRAM at 56 %: the staging copies and the
  /// row scan share L1.
  static constexpr int channel_walk_stage_tiles = 2;
  /// (Asking L2 for a walk block's tiles ahead, as row_block_prefetch_tiles does for rows, measured
  /// slower on the H200 at [8, 4096, 4096]: 0.46 (2 tiles) and 0.45 (4) of copy against 0.49 for
  /// bf16, 0.66 (2) against 0.94 for fp32. Not kept.)
  /// channel_walk, automatic: the fewest channel groups (batch × groups of the walk's channels)
  /// that take it: 65536 threads' worth of walk blocks, about one wave on an H200.
  static constexpr std::int64_t channel_walk_min_groups = 65536 / channel_walk_threads;
  /// channel_walk over narrow channel groups, automatic: where the walk's own groups are fewer
  /// than channel_walk_min_groups, sequences are at most channel_narrow_walk_max_length steps,
  /// and groups of channel_narrow_walk_lanes lanes (each lane vector_items channels) number at
  /// least channel_narrow_walk_min_groups (about one per SM), a block of
  /// channel_narrow_walk_threads walks each narrow group over all of time, its tiles staged
  /// channel_walk_stage_tiles ahead, instead of channel tiles with look-back: nothing to wait
  /// for, at the cost of reading 32 contiguous bytes per operand a time step (two lanes). Such a
  /// tile is taller than a warp holds rows (256 threads of 2 lanes: 128 rows), so its rows scan
  /// by warps (channel_tile_scan). min_groups 0: never.
  ///
  /// H200, session 32, fp32, 256 threads of 2 lanes (8 channels) against the channel tiles, same
  /// run: [1, 1024, 1024] 8.6 against 12.4 us, [1, 4096, 1024] 22.3 / 22.2 against 25.5 / 25.4 us
  /// (two rounds); but [1, 16384, 1024] 0.73 of copy against 0.71, [1, 65536, 1024] 0.745
  /// against 0.754, [1, 262144, 1024] 0.75 against 0.79, [4, 16384, 2048] (1024 narrow groups)
  /// 0.66 against 0.75, and the fp32 backward pass at [1, 65536, 1024] 0.57 against 0.85. A
  /// walking block streams at about 0.75 of copy however long its sequence; its gain is the
  /// look-back's latency, which only short sequences feel. Narrower still is far slower: 4 fp32
  /// channels a group (16 bytes a step) 0.11-0.19 of copy, bf16 in groups of 8 channels (16
  /// bytes) 0.16 against the tiles' 0.48, bf16 in 16 (64 groups: half the SMs) 0.22, complex64
  /// in 4 (32 bytes) 0.58 against 0.78 at [1, 65536, 1024]. So it is on by default only where
  /// measured to win: 4-byte operands (fp32), sequences of at most 4096 steps.
  static constexpr int channel_narrow_walk_threads = 256;
  static constexpr int channel_narrow_walk_lanes = 2;
  static constexpr std::int64_t channel_narrow_walk_min_groups = vector_items == 4 ? 128 : 0;
  static constexpr std::int64_t channel_narrow_walk_max_length = 4096;
  /// channel_tiles: threads per block, time steps each thread scans in registers (each for
  /// vector_items consecutive channels: twice the walk's, 128 registers of state), and the blocks
  /// per SM the kernel is compiled to fit: one, so a thread may hold that much. (128 threads two
  /// an SM, so one block's loads overlap the other's look-back, lost: bf16 with three shared runs
  /// 0.65 of copy against 0.76 at [1, 65536, 1024], 0.62 against 0.77 at [1, 2^21, 128]; tiles
  /// half as tall pay the same look-back for half the bytes. H100, session 43.)
  ///
  /// complex64 (all three operands) scans 8 steps in registers, half as many, and continues them
  /// in three runs in shared memory (channel_shared_chunks): tiles of 1024 steps, as tall as one
  /// run of 16 with one shared run (the default in session 49; two shared runs of 16 steps, 256
  /// KB a block, do not fit). H100, session 49, [1, 65536, 1024], three rounds in one call:
  /// 0.919 / 0.917 / 0.922 of copy against 0.868 / 0.870 / 0.875; at [1, 2^21, 128] 0.868 /
  /// 0.864 / 0.870 against 0.882 / 0.877 / 0.878; two runs of 8 steps (768): 0.85. Session 50
  /// (H100, two calls): 0.910 / 0.909 against 0.876 / 0.868; at [1, 2^21, 128] 0.907.
  static constexpr int channel_threads = 256;
  static constexpr int channel_steps = complex64_storage ? 8 : 2 * channel_walk_steps;
  /// channel_tiles, backward pass: the steps each thread scans in registers, in place of
  /// channel_steps (with channel_backward_shared_chunks). Twice the walk's for every type:
  /// complex64's forward runs of 8 steps are not measured in the backward pass, whose runs of 16
  /// measured 0.92 of copy at [1, 65536, 1024] (types_bench complex64_backward; H100, session 50).
  static constexpr int channel_backward_steps = 2 * channel_walk_steps;
  static constexpr int channel_min_blocks = 1;
  /// channel_tiles: runs of channel_steps time steps each thread holds in shared memory beyond
  /// the run in its registers, copied there (cp.async) as the tile is claimed; 0 (the default):
  /// none. A tile then spans (1 + this) × the time steps, so the look-back's latency, paid once a
  /// tile, is paid over that many more bytes; each shared step is read twice from shared memory
  /// (to fold the thread's total before the look-back, then to write h after it). The block's
  /// dynamic shared memory is this × channel_steps × 32 bytes a thread (fp32 at 256 threads and
  /// 16 steps: 128 KB a run), and with the kernel's own (9-41 KB) must fit one block an SM (a
  /// static_assert says where not).
  ///
  /// Three runs by default for 2-byte storage carried in float (bf16, fp16: tiles of 1024 steps,
  /// without the L2 prefetch; 192 KB a block), one where a or b is wider (three runs of float a
  /// and b would need 384 KB), none for the rest. bf16, [1, 65536, 1024] unless named, same
  /// binary: H200, session 35, one run 0.55 of copy against none 0.47 (H100: 0.68 against 0.61).
  /// Two or three runs collapsed to 0.27-0.37 until session 40, when their loops were rolled:
  /// the unrolled code outgrew the instruction cache. Since, three runs without the prefetch
  /// lead one run with it on the H100 in two sessions (40, 41; two rounds each): session 41,
  /// 0.75 / 0.76 of copy against 0.71 / 0.70, at [1, 2^21, 128] 0.78 / 0.78 against 0.67 / 0.67,
  /// at [1, 64512, 1024] 0.76 / 0.76 against 0.70 / 0.71; with the prefetch three runs drop to
  /// 0.57 (session 40). Not yet measured on an H200 (docs/performance.md).
  ///
  /// Three runs of 8 steps for complex64 (all three operands; see channel_steps), without the L2
  /// prefetch (channel_prefetch_rounds), since session 50; one run of 16 steps in session 49:
  /// [1, 65536, 1024] on the H100, session 48, 0.855 / 0.862 of copy against 0.776 / 0.772 for
  /// none with the prefetch (the default before), same binary, two rounds (session 49, this
  /// default's own binary: 0.867 / 0.865 against 0.773 / 0.773); with the prefetch one
  /// run measured 0.64 / 0.65 (tiles twice as tall ask twice the bytes a round ahead). Session 35
  /// measured one run at 0.83 against 0.77 on the H100 but 0.65 against 0.78 on the H200, before
  /// the runs' loops were rolled (session 40: unrolled, taller tiles outgrew the instruction cache
  /// and collapsed); the H200 has not measured it since.
  ///
  /// fp32 keeps none: 0.66 against 0.76 at [1, 65536, 1024] (H200), and its backward pass 0.78
  /// against 0.90 (H100); but at [1, 2^22, 64], two channel groups, 0.70 against 0.64 (H200;
  /// H100 0.82 against 0.75): a taller tile pays where few groups leave each group's look-back
  /// chain long (docs/performance.md).
  static constexpr int channel_shared_chunks =
      vector_items >= 8 && sizeof(Accumulator) == 4 ? (sizeof(A) == 2 && sizeof(B) == 2 ? 3 : 1)
                                                    : (complex64_storage ? 3 : 0);
  /// channel_tiles, backward pass: the runs in shared memory its tiles take, in place of
  /// channel_shared_chunks. One for the 2-byte types, none for the rest: bf16 [1, 65536, 1024],
  /// H100, session 41, two rounds: one run 0.76 / 0.77 of copy, three 0.70 / 0.70; session 28
  /// (H200): none 0.61.
  static constexpr int channel_backward_shared_chunks = vector_items >= 8 && sizeof(Accumulator) == 4 ? 1 : 0;
  /// channel_tiles: where the channel groups (batch × groups of a tile's channels) are at most
  /// channel_few_groups, tiles take channel_few_groups_shared_chunks runs in shared memory instead
  /// of channel_shared_chunks (0 groups: never). Few groups leave each group's look-back chain
  /// long (on an H200's 132 SMs, 2 groups keep 66 chunks of each in flight), so there a taller
  /// tile pays its look-back over more bytes, where with many groups it only slows the tile. On
  /// for fp32 (1 run at up to 16 groups); a policy that sets channel_shared_chunks for every shape
  /// sets this to 0, and so does one whose channel_steps or channel_threads grow the runs past an
  /// SM's shared memory (a static_assert says so). Forward only: the backward pass keeps
  /// channel_shared_chunks (H100, session 36, [1, 2^22, 64]: 0.81 of copy with one run against
  /// 0.85 without). Same binary, two rounds each:
  /// H200, session 35, fp32 [1, 2^22, 64] (2 groups) one run 0.70 of copy against none 0.64,
  /// [1, 65536, 1024] (32 groups) 0.66 against 0.76; H100, session 36, [1, 2^22, 64] 0.82 / 0.82
  /// against 0.75 / 0.75, [1, 2^21, 128] (4 groups) 0.83 / 0.83 against 0.78 / 0.78; session 37,
  /// [1, 2^20, 256] (8 groups) 0.86 / 0.86 against 0.80 / 0.80, [1, 2^19, 512] (16 groups)
  /// 0.87 / 0.88 against 0.83 / 0.84, [1, 65536, 1024] (32 groups) 0.82 / 0.83 against
  /// 0.85 / 0.86: one run pays up to 16 groups (H100) and loses at 32 on both cards.
  static constexpr std::int64_t channel_few_groups = vector_items == 4 && sizeof(Accumulator) == 4 ? 16 : 0;
  static constexpr int channel_few_groups_shared_chunks = 1;
  /// channel_tiles: lanes across channels are the fewest of 8, 16 and 32 that cover the channels,
  /// but at most this many (8, 16 or 32). Fewer lanes make a tile narrower and taller in time, so
  /// each look-back reads fewer channels' carries, over fewer chunks in flight. H200, fp32
  /// [1, T, 1024], T = 4096 … 262144, by tile (lanes × steps, blocks per SM): 8 × 16, 1 block:
  /// 0.54–0.73 of copy; 8 × 8, 2 blocks: 0.53–0.62; 16 × 8: 0.53–0.60; 32 × 8: 0.51–0.55;
  /// 32 × 4 (the earlier default): 0.39; 512 threads of 8 × 8: 0.45–0.55. At [1, 2^22, 64]:
  /// 0.60, 0.48, 0.49, 0.49, 0.28, 0.50.
  static constexpr int channel_max_lanes = 8;
  /// channel_tiles: a block that claims tile t asks L2 for the inputs of the tile this many rounds
  /// of the grid ahead (t + rounds × blocks); 0 turns it off. Forward only (the backward pass
  /// measured 0.62 of copy with it against 0.83). Off where the narrowest operand has 4 bytes
  /// (fp32) since session 28, and 2 bytes (bf16, fp16) since session 41, whose tiles of three
  /// runs in shared memory lose with it (channel_shared_chunks), and complex64 since session 49
  /// for the same reason (its runs in shared memory); on (1 round) for double and complex128.
  /// H200, session 28, four same-binary rounds over two calls, fp32 [1, T, 1024] for T = 4096,
  /// 16384, 65536, 262144 and [1, 2^22, 64]: none 0.60, 0.70, 0.73–0.77, 0.77–0.80, 0.61 of copy; 1
  /// round 0.60–0.62, 0.67–0.69, 0.73–0.74, 0.76–0.77, 0.60–0.61. [1, 65536, 1024], two rounds:
  /// bf16 1 round 0.476 / 0.480 against none 0.462 / 0.469, fp16 0.479 / 0.482 against 0.471 /
  /// 0.473, complex64 0.781 / 0.783 against 0.767 / 0.773. (An earlier fp32 kernel measured 1 round
  /// 0.55, 0.71, 0.74, 0.63 at 4096, 65536, 262144 and 2^22 × 64 against none 0.55, 0.70, 0.72,
  /// 0.60; 2 rounds 0.54, 0.60, 0.60, 0.51, the prefetched tiles outgrowing what L2 keeps.)
  static constexpr int channel_prefetch_rounds = vector_items >= 4 || complex64_storage ? 0 : 1;
  /// channel_tiles: what a tile's store reads (the backward pass's h) is asked into L2 when the
  /// tile is loaded, not read from DRAM after its look-back: 0.84 of copy against 0.80 for the
  /// backward pass at [1, 65536, 1024] fp32 (H200).
  static constexpr bool channel_prefetch_store_inputs = true;
  /// channel_tiles: a tile's look-back inspects 64 earlier chunks of its channels a round (two
  /// for each of warp 0's lanes) instead of 32 where the chunks in flight per channel group, the
  /// resident blocks over the groups, reach this many (0: never). H200, session 29, two same-run
  /// rounds, 64 a round against 32: fp32 [1, 2^22, 64] (2 groups of 32 channels, 66 chunks in
  /// flight each) 0.636 / 0.637 of copy against 0.608 / 0.607; but [1, 65536, 1024] (4 in
  /// flight) 0.737 / 0.731 against 0.754 / 0.756, [1, 262144, 1024] 0.749 / 0.751 against
  /// 0.789 / 0.792, bf16 0.47 against 0.48, complex64 0.77 against 0.79 (call 2). Hence the
  /// threshold; with it (call 3, two rounds) [1, 2^22, 64] 0.641 / 0.642 against 0.612 / 0.610
  /// for 32 always, and [1, T, 1024] as before (0.759 / 0.767 against 0.758 / 0.757 at 65536).
  static constexpr std::int64_t channel_wide_lookback_in_flight = 32;

  /// Overrides the automatic choice when not `strategy::automatic`. A row strategy applies to row
  /// layouts and to tensor layouts that reduce to rows; `channel_tiles` and `channel_walk` apply to
  /// tensor layouts only, and send every one of them, time-contiguous or not, down that path.
  static constexpr strategy forced = strategy::automatic;
};

/// The default Policy argument of linear_recurrence: stands for default_policy<H, A, B> of the
/// call's operand types (h stored as H, a as A, b as B).
struct auto_policy {};

namespace detail {
template <typename Policy, typename H, typename A = H, typename B = H>
using resolved_policy = std::conditional_t<std::is_same_v<Policy, auto_policy>, default_policy<H, A, B>, Policy>;
}  // namespace detail

}  // namespace linrec
