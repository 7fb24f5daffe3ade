// linrec/detail/block_per_row_kernel.cuh — strategy::block_per_row: a block walks a whole row tile by
// tile, carrying the prefix from one tile to the next on chip.
#pragma once

#include <linrec/block_scan.cuh>
#include <linrec/detail/problem.cuh>
#include <linrec/detail/programmatic_launch.cuh>
#include <linrec/detail/tile_io.cuh>

#include <cstdint>

namespace linrec::detail {

template <int Threads, int Items, typename T>
__global__ void __launch_bounds__(Threads) block_per_row_kernel(rows_problem<T> p) {
  using scan = block_scan<affine<T>, Threads, Items>;
  constexpr std::int64_t tile_items = scan::tile_items;
  __shared__ typename scan::temp_storage storage;

  const std::int64_t first = std::int64_t(threadIdx.x) * Items;
  wait_for_prior_kernels();
  allow_next_kernel();
  const time_direction dir = p.direction();
  for (std::int64_t row = blockIdx.x; row < p.rows; row += gridDim.x) {
    const std::int64_t row_offset = p.offset(row, 0);
    const bool vector_ok = p.vector_ok(row_offset);  // tiles are whole vectors, so one check a row
    running_prefix<affine<T>> carry{p.seed(row)};
    // Each tile's loads are issued before the tile ahead of it is scanned, so a block keeps a
    // tile in flight while it scans and stores.
    affine<T> items[Items], next[Items];
    load_items(p.a + row_offset, p.b + row_offset, first, min(tile_items, p.length), vector_ok, items, dir);
    for (std::int64_t start = 0; start < p.length; start += tile_items) {
      const std::int64_t offset = row_offset + dir.at(start);
      const std::int64_t next_start = start + tile_items;
      if (next_start < p.length) {
        const std::int64_t next_offset = offset + dir.at(tile_items);
        load_items(p.a + next_offset, p.b + next_offset, first, min(tile_items, p.length - next_start), vector_ok,
                   next, dir);
      }
      scan(storage).inclusive_scan(items, carry);
      store_items(p.h + offset, first, min(tile_items, p.length - start), vector_ok, items, dir);
#pragma unroll
      for (int i = 0; i < Items; ++i) items[i] = next[i];
    }
    // Only the first warp runs the callback, so its copy of the carry is the row's final state.
    if (p.h_final != nullptr && threadIdx.x == 0) p.h_final[row] = carry.running.b;
  }
}

}  // namespace linrec::detail
