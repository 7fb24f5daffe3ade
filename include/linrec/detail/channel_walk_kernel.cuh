// linrec/detail/channel_walk_kernel.cuh — strategy::channel_walk: for channel-contiguous layouts
// with many channel groups, a block walks all of time for one group, tile after tile, carrying
// one affine map per channel on chip: no tile status, no look-back, nothing to wait for.
#pragma once

#include <linrec/affine.cuh>
#include <linrec/detail/channel_problem.cuh>
#include <linrec/detail/channel_stage.cuh>
#include <linrec/detail/channel_tile_scan.cuh>
#include <linrec/detail/channel_tiles_kernel.cuh>

#include <cstdint>
#include <type_traits>

namespace linrec::detail {

// At least 512 threads' worth of blocks per SM (128 registers a thread): [8, 4096, 4096] fp32
// makes 512 walk blocks of 128 threads, one wave on the H200 at 4 per SM. (When its walk blocks
// were 1024 of 64 threads, 150 registers, 6 per SM, took two waves: 0.39 against 0.89 of copy.)
//
// With Prefetch, each thread's next tile is copied into shared memory (channel_stage) as soon as
// the current one's scan has read its own, so its loads overlap the rest of the current tile
// instead of starting after its stores.
template <int Threads, int Lanes, int Steps, bool Prefetch, typename Problem>
__global__ void __launch_bounds__(Threads, 512 / Threads) channel_walk_kernel(Problem p, channel_tiling tiling) {
  using T = typename Problem::value_type;
  using V = affine<T>;
  using tile_scan = channel_tile_scan<Threads, Lanes, Steps, Problem::width, T>;
  constexpr int width = tile_scan::width;
  constexpr int rows = tile_scan::rows;
  const affine_scan_op op;
  __shared__ typename tile_scan::temp_storage scan_storage;
  // The carry after each tile, from the last row; 16-byte aligned so a lane's maps load as vectors.
  __shared__ alignas(16) V tile_totals[tile_scan::group];
  using stage = channel_stage<Threads, Steps, Problem>;
  __shared__ std::conditional_t<Prefetch, typename stage::temp_storage, char> staged;

  const int lane = static_cast<int>(threadIdx.x) % Lanes;
  const bool last_row = static_cast<int>(threadIdx.x) / Lanes == rows - 1;
  for (std::int64_t group = blockIdx.x; group < tiling.groups; group += gridDim.x) {
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
      if constexpr (Prefetch) {
        if (chunk == 0 && p.template straight<Steps>(here.t0, here.vector)) {
          stage::fetch(staged, p, here.batch_index, here.t0, here.channel0);
        }
        if (p.template straight<Steps>(here.t0, here.vector)) {
          stage::read(staged, p, items);
        } else {
          p.load(here.batch_index, here.t0, here.channel0, here.vector, items);
        }
      } else {
        p.load(here.batch_index, here.t0, here.channel0, here.vector, items);
      }
      tile_scan::scan(scan_storage, items);  // its barrier: every thread has read its staged run
      if constexpr (Prefetch) {
        if (chunk + 1 < tiling.chunks) {
          const channel_place next = locate_channel_tile<Lanes, Steps>(p, tiling, (chunk + 1) * tiling.groups + group);
          if (p.template straight<Steps>(next.t0, next.vector)) {
            stage::fetch(staged, p, next.batch_index, next.t0, next.channel0);
          }
        }
      }
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
