// linrec/detail/channel_walk_kernel.cuh — strategy::channel_walk: for channel-contiguous layouts
// with many channel groups, a block walks all of time for one group, tile after tile, carrying
// one affine map per channel on chip: no tile status, no look-back, nothing to wait for.
#pragma once

#include <linrec/affine.cuh>
#include <linrec/detail/channel_problem.cuh>
#include <linrec/detail/channel_stage.cuh>
#include <linrec/detail/channel_tile_scan.cuh>
#include <linrec/detail/channel_tiles_kernel.cuh>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace linrec::detail {

// At least 512 threads' worth of blocks per SM (128 registers a thread): [8, 4096, 4096] fp32
// makes 512 walk blocks of 128 threads, one wave on the H200 at 4 per SM. (When its walk blocks
// were 1024 of 64 threads, 150 registers, 6 per SM, took two waves: 0.39 against 0.89 of copy.)
//
// With StageTiles > 0, each thread's tiles are copied into shared memory (channel_stage) that
// many tiles ahead: tile c + StageTiles is asked for as soon as the scan of tile c has read its
// own run, so up to StageTiles tiles' loads stay in flight while the block scans and stores,
// instead of each tile's loads starting after the previous one's stores. Every tile commits one
// copy group (empty where the tile is not straight, or past the end), so waiting for all but the
// newest StageTiles - 1 groups always waits for exactly the tile about to be read.
template <int Threads, int Lanes, int Steps, int StageTiles, typename Problem>
__global__ void __launch_bounds__(Threads, 512 / Threads) channel_walk_kernel(Problem p, channel_tiling tiling) {
  using T = typename Problem::value_type;
  using V = affine<T>;
  using tile_scan = channel_tile_scan<Threads, Lanes, Steps, Problem::width, T>;
  constexpr int width = tile_scan::width;
  constexpr int rows = tile_scan::rows;
  constexpr bool staged_tiles = StageTiles > 0;
  constexpr int stage_slots = staged_tiles ? StageTiles : 1;
  const affine_scan_op op;
  __shared__ typename tile_scan::temp_storage scan_storage;
  // The carry after each tile, from the last row; 16-byte aligned so a lane's maps load as vectors.
  __shared__ alignas(16) V tile_totals[tile_scan::group];
  using stage = channel_stage<Threads, Steps, Problem>;
  // The stages, StageTiles of them, in dynamic shared memory (channel_stage_bytes): two tiles of a
  // 256-thread block pass the 48 KB a block's static shared memory may take.
  extern __shared__ __align__(16) unsigned char walk_stages[];
  [[maybe_unused]] auto* const staged = reinterpret_cast<typename stage::temp_storage*>(walk_stages);

  const int lane = static_cast<int>(threadIdx.x) % Lanes;
  const bool last_row = static_cast<int>(threadIdx.x) / Lanes == rows - 1;
  for (std::int64_t group = blockIdx.x; group < tiling.groups; group += gridDim.x) {
    // Starts copying this thread's run of the group's tile `chunk` into its slot, if it is straight.
    const auto fetch = [&](std::int64_t chunk) {
      if constexpr (staged_tiles) {
        if (chunk < tiling.chunks) {
          const channel_place there = locate_channel_tile<Lanes, Steps>(p, tiling, chunk * tiling.groups + group);
          if (p.template straight<Steps>(there.t0, there.vector)) {
            stage::fetch(staged[chunk % stage_slots], p, there.batch_index, there.t0, there.channel0);
          }
        }
        stage::commit();
      }
    };
    for (int ahead = 0; ahead < StageTiles; ++ahead) fetch(ahead);
    V carry[width];  // op over the group's earlier tiles, h0 included: the same on every row
    for (std::int64_t chunk = 0; chunk < tiling.chunks; ++chunk) {
      const channel_place here = locate_channel_tile<Lanes, Steps>(p, tiling, chunk * tiling.groups + group);
      if (chunk == 0) {
#pragma unroll
        for (int v = 0; v < width; ++v) {
          carry[v] = here.channel0 + v < p.channels ? p.seed(here.batch_index, here.channel0 + v) : V::identity();
        }
      }
      V items[Steps][width];
      if constexpr (staged_tiles) {
        if (p.template straight<Steps>(here.t0, here.vector)) {
          stage::template read<stage_slots - 1>(staged[chunk % stage_slots], p, items);
        } else {
          p.load(here.batch_index, here.t0, here.channel0, here.vector, items);
        }
      } else {
        p.load(here.batch_index, here.t0, here.channel0, here.vector, items);
      }
      tile_scan::scan(scan_storage, items);  // its barrier: every thread has read its staged run
      fetch(chunk + StageTiles);
#pragma unroll
      for (int v = 0; v < width; ++v) {
#pragma unroll
        for (int s = 0; s < Steps; ++s) items[s][v] = op(carry[v], items[s][v]);
        if (last_row) tile_totals[lane * width + v] = items[Steps - 1][v];
      }
      p.store(here.batch_index, here.t0, here.channel0, here.vector, items);
      if (p.has_final() && chunk == tiling.chunks - 1) {
#pragma unroll
        for (int s = 0; s < Steps; ++s) {
          if (here.t0 + s == p.length - 1) {
#pragma unroll
            for (int v = 0; v < width; ++v) {
              if (here.channel0 + v < p.channels) p.write_final(here.batch_index, here.channel0 + v, items[s][v].b);
            }
          }
        }
      }
      // Everyone's scan has read the row aggregates and the last row has written the totals;
      // the next tile's scan barrier orders these reads before the totals are written again.
      __syncthreads();
#pragma unroll
      for (int v = 0; v < width; ++v) carry[v] = tile_totals[lane * width + v];
    }
  }
}

}  // namespace linrec::detail
