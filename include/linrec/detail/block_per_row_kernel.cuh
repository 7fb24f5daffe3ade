// linrec/detail/block_per_row_kernel.cuh — strategy::block_per_row: a block walks a whole row tile by
// tile, carrying the prefix from one tile to the next on chip.
#pragma once

#include <linrec/block_scan.cuh>
#include <linrec/detail/problem.cuh>
#include <linrec/detail/programmatic_launch.cuh>
#include <linrec/detail/tile_io.cuh>

#include <cstdint>

namespace linrec::detail {

// At least 1024 threads' worth of blocks per SM (64 registers a thread): 1024 rows of 128-thread
// blocks then fit the H200 in one wave, where 7 blocks per SM left a second wave of 100 blocks
// (measured: 0.43 against 0.92 of copy at 1024 x 65536).
//
// With PrefetchTiles > 0 (and a problem that says prefetch_ahead), a block also asks L2 for the
// inputs of the tile that many tiles past the one it loads, so more of its row is on the way
// than its registers hold.
template <int Threads, int Items, int PrefetchTiles, typename Problem>
__global__ void __launch_bounds__(Threads, 1024 / Threads) block_per_row_kernel(Problem p) {
  using T = typename Problem::value_type;
  using scan = block_scan<affine<T>, Threads, Items>;
  constexpr std::int64_t tile_items = scan::tile_items;
  __shared__ typename scan::temp_storage storage;

  const std::int64_t first = std::int64_t(threadIdx.x) * Items;
  wait_for_prior_kernels();
  allow_next_kernel();
  for (std::int64_t row = blockIdx.x; row < p.rows; row += gridDim.x) {
    const bool vector_ok = p.vector_ok(p.offset(row, 0));  // tiles are whole vectors, so one check a row
    running_prefix<affine<T>> carry{p.seed(row)};
    // Each tile's loads are issued before the tile ahead of it is scanned, so a block keeps a
    // tile in flight while it scans and stores.
    affine<T> items[Items], next[Items];
    p.load(row, 0, first, min(tile_items, p.length), vector_ok, items);
    // Asks L2 for the tile `ahead` tiles past `start`, if the row has it (and the policy and the
    // problem want prefetching); the first tile asks for tiles 2 … PrefetchTiles, tile 1 being `next`.
    // With the bulk-copy engine (sm_90), thread 0 asks for a whole aligned tile, a request per
    // operand (a row's last, partial tile is not asked for); before, each thread for its lines.
    const auto prefetch = [&](std::int64_t start, int ahead) {
      if constexpr (PrefetchTiles > 0 && Problem::prefetch_ahead) {
        const std::int64_t later = start + ahead * tile_items;
        if constexpr (bulk_prefetch_available()) {
          if (threadIdx.x == 0 && vector_ok && later + tile_items <= p.length) {
            p.template prefetch_whole_tile<tile_items>(row, later);
          }
        } else if (later < p.length) {
          p.template prefetch_inputs<Items>(row, later, first, min(tile_items, p.length - later), vector_ok);
        }
      }
    };
    for (int ahead = 2; ahead <= PrefetchTiles; ++ahead) prefetch(0, ahead);
    for (std::int64_t start = 0; start < p.length; start += tile_items) {
      const std::int64_t next_start = start + tile_items;
      if (next_start < p.length) p.load(row, next_start, first, min(tile_items, p.length - next_start), vector_ok, next);
      prefetch(next_start, PrefetchTiles);
      scan(storage).inclusive_scan(items, carry);
      p.store(row, start, first, min(tile_items, p.length - start), vector_ok, items);
#pragma unroll
      for (int i = 0; i < Items; ++i) items[i] = next[i];
    }
    // Only the first warp runs the callback, so its copy of the carry is the row's final state.
    if (p.has_final() && threadIdx.x == 0) p.write_final(row, carry.running.b);
  }
}

}  // namespace linrec::detail
