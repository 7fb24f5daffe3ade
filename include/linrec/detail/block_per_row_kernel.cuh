// linrec/detail/block_per_row_kernel.cuh — strategy::block_per_row: a block walks a whole row tile by
// tile, carrying the prefix from one tile to the next on chip.
#pragma once

#include <linrec/block_scan.cuh>
#include <linrec/detail/problem.cuh>
#include <linrec/detail/programmatic_launch.cuh>
#include <linrec/detail/tile_io.cuh>

#include <cstdint>
#include <type_traits>

namespace linrec::detail {

// The tile a block loads while it scans the one before: converted as loaded, or, where AsLoaded
// and the problem has the form (Problem::loads_ahead_as_loaded), held as the 16-byte vectors the
// loads return and converted only when its turn comes. A conversion next to its load waits for
// the load, so with 2-byte storage a thread would stall on the next tile before scanning this one.
template <typename Problem, int Items, bool AsLoaded, typename = void>
struct tile_ahead {
  affine<typename Problem::value_type> items[Items];
  __device__ __forceinline__ void load(const Problem& p, std::int64_t row, std::int64_t start, std::int64_t first,
                                       std::int64_t valid, bool vector_ok) {
    p.load(row, start, first, valid, vector_ok, items);
  }
  __device__ __forceinline__ void take(const Problem&, affine<typename Problem::value_type> (&out)[Items]) const {
#pragma unroll
    for (int i = 0; i < Items; ++i) out[i] = items[i];
  }
};
template <typename Problem, int Items>
struct tile_ahead<Problem, Items, true, std::enable_if_t<Problem::loads_ahead_as_loaded>> {
  typename Problem::template loaded_inputs<Items> loaded;
  __device__ __forceinline__ void load(const Problem& p, std::int64_t row, std::int64_t start, std::int64_t first,
                                       std::int64_t valid, bool vector_ok) {
    p.load_ahead(row, start, first, valid, vector_ok, loaded);
  }
  __device__ __forceinline__ void take(const Problem& p, affine<typename Problem::value_type> (&out)[Items]) const {
    p.unpack(loaded, out);
  }
};

// At least 1024 threads' worth of blocks per SM (64 registers a thread): with fewer, 128-thread
// blocks at 7 per SM left 1024 rows a second wave of 100 blocks (measured: 0.43 against 0.92 of
// copy at 1024 x 65536).
//
// With PrefetchTiles > 0 (and a problem that says prefetch_ahead), a block also asks L2 for the
// inputs of the tile that many tiles past the one it loads, so more of its row is on the way
// than its registers hold.
//
// AsLoaded: the tile ahead is held as loaded (see tile_ahead).
template <int Threads, int Items, int PrefetchTiles, bool AsLoaded, typename Problem>
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
    affine<T> items[Items];
    tile_ahead<Problem, Items, AsLoaded> next;
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
      if (next_start < p.length) next.load(p, row, next_start, first, min(tile_items, p.length - next_start), vector_ok);
      prefetch(next_start, PrefetchTiles);
      scan(storage).inclusive_scan(items, carry);
      p.store(row, start, first, min(tile_items, p.length - start), vector_ok, items);
      next.take(p, items);
    }
    // Only the first warp runs the callback, so its copy of the carry is the row's final state.
    if (p.has_final() && threadIdx.x == 0) p.write_final(row, carry.running.b);
  }
}

}  // namespace linrec::detail
