// linrec/detail/channel_rescan_kernel.cuh — EXPERIMENT (policy knob channel_tiles_rescan, off by
// default, not yet run on a GPU): the channel tiles with each tile's look-back deferred by one
// tile, without parking the tile. A block loads and scans a new tile and publishes its aggregate
// at once, keeping of it only each thread's carry within the tile (`before`: width maps) and, in
// the last row, the tile's aggregate; a round later it reads the tile's a and b again (from L2,
// where one round of tiles should still be), looks back for it while those loads are in flight,
// when every predecessor has long published, and rescans the tile from the carry-in to store h.
// So no tile waits behind a chain of predecessors resolving one after another (the direct
// kernel's wait: Nsight Compute, run 11, latency-bound at about 15 % of issue slots), and the
// state a block holds between rounds is a few registers, not the 128 KB a parked tile took (run
// 4's deferred experiment: 0.66 of copy against 0.70 at [1, 65536, 1024]).
// DRAM traffic is unchanged if L2 keeps a round of tiles (132 × 128 KB of a and b on an H200 for
// fp32); L2 traffic for a and b doubles.
#pragma once

#include <linrec/affine.cuh>
#include <linrec/detail/channel_lookback.cuh>
#include <linrec/detail/channel_problem.cuh>
#include <linrec/detail/channel_tile_scan.cuh>
#include <linrec/detail/channel_tile_status.cuh>
#include <linrec/detail/channel_tiles_kernel.cuh>
#include <linrec/detail/tile_io.cuh>

#include <cstdint>

namespace linrec::detail {

/// Forward progress as for deferred_lookback_kernel: a block publishes each tile's aggregate
/// before any look-back, and a look-back waits only on smaller ids.
template <int Threads, int Lanes, int Steps, int MinBlocks, int PrefetchRounds, int LookbackWarps, typename Problem>
__global__ void __launch_bounds__(Threads, MinBlocks)
    channel_rescan_kernel(Problem p, channel_tile_status<typename Problem::value_type> status, channel_tiling tiling) {
  using T = typename Problem::value_type;
  using V = affine<T>;
  constexpr int width = Problem::width;
  constexpr int group = Lanes * width;
  constexpr int rows = Threads / Lanes;
  static_assert(Threads % 32 == 0 && 32 % Lanes == 0, "lanes must tile whole warps");
  const affine_scan_op op;

  using tile_scan = channel_tile_scan<Threads, Lanes, Steps, width, T>;
  __shared__ typename tile_scan::temp_storage shared_scan;
  __shared__ alignas(16) V shared_tile_prefix[group];
  __shared__ channel_tile_scalars<LookbackWarps> shared;

  const int lane = static_cast<int>(threadIdx.x) % Lanes;
  const int row = static_cast<int>(threadIdx.x) / Lanes;
  const bool last_row = row == rows - 1;
  const std::int64_t tiles = status.tiles();

  std::int64_t claimed = 0;  // thread 0's claim, handed to the block at the top of each round
  if (threadIdx.x == 0) claimed = status.next_tile();
  bool holding = false;
  channel_place held{};
  V held_before[width];     // the held tile's carry within the tile, before this thread's rows
  V held_aggregate[width];  // the last row's: the held tile's aggregate
#pragma unroll
  for (int v = 0; v < width; ++v) held_before[v] = held_aggregate[v] = V::identity();

  for (;;) {
    if (threadIdx.x == 0) shared.tile = claimed;
    __syncthreads();  // also: the round before is done with shared memory
    const std::int64_t tile = shared.tile;
    channel_place here{};
    V before[width];
    V aggregate[width];
    if (tile < tiles) {
      here = locate_channel_tile<Lanes, Steps>(p, tiling, tile);
      V items[Steps][width];
      p.load(here.batch_index, here.t0, here.channel0, here.vector, items);
      if constexpr (PrefetchRounds > 0 && Problem::prefetch_ahead) {
        const std::int64_t ahead = tile + std::int64_t(PrefetchRounds) * gridDim.x;
        if (ahead < tiles) {
          const channel_place later = locate_channel_tile<Lanes, Steps>(p, tiling, ahead);
          p.template prefetch_inputs<Steps>(later.batch_index, later.t0, later.channel0, later.vector);
        }
      }
      tile_scan::scan_row_prefixes(shared_scan, items, before);
#pragma unroll
      for (int v = 0; v < width; ++v) aggregate[v] = op(before[v], items[Steps - 1][v]);
      if (last_row) {
        if (here.chunk == 0) {
          V seed[width], inclusive[width];
          channel_seeds(p, here.batch_index, here.channel0, seed);
#pragma unroll
          for (int v = 0; v < width; ++v) inclusive[v] = op(seed[v], aggregate[v]);
          store_maps(status.values(tile, tile_state::inclusive) + lane * width, inclusive);
        } else {
          store_maps(status.values(tile, tile_state::aggregate) + lane * width, aggregate);
        }
      }
      __syncthreads();
      if (threadIdx.x == 0) {
        status.publish_state(tile, here.chunk == 0 ? tile_state::inclusive : tile_state::aggregate);
        claimed = status.next_tile();  // its round trip overlaps the held tile's look-back
      }
    }

    if (holding) {
      // The held tile again (from L2, where a round of tiles should still be), asked for before
      // the look-back so the loads' latency overlaps it.
      V items[Steps][width];
      p.load(held.batch_index, held.t0, held.channel0, held.vector, items);
      V carry[width];  // every thread's: the exclusive prefix of the held tile, seed included
      if (held.chunk == 0) {
        channel_seeds(p, held.batch_index, held.channel0, carry);
      } else {
        channel_lookback<Threads, Lanes>(status, tiling, lane, row, held.tile, held.chunk, held_aggregate,
                                         status.values(held.tile, tile_state::inclusive) + lane * width, shared,
                                         shared_scan.row_aggregates, shared_tile_prefix, carry);
      }
      // Rescanned from this thread's carry-in.
#pragma unroll
      for (int v = 0; v < width; ++v) {
        V running = op(carry[v], held_before[v]);
#pragma unroll
        for (int s = 0; s < Steps; ++s) {
          running = op(running, items[s][v]);
          items[s][v] = running;
        }
      }
      p.store(held.batch_index, held.t0, held.channel0, held.vector, items);
      if (p.has_final() && held.chunk == tiling.chunks - 1) {
        channel_write_final(p, held.batch_index, held.channel0, held.t0, items);
      }
    }
    if (tile >= tiles) return;
    holding = true;
    held = here;
#pragma unroll
    for (int v = 0; v < width; ++v) {
      held_before[v] = before[v];
      held_aggregate[v] = aggregate[v];
    }
  }
}

}  // namespace linrec::detail
