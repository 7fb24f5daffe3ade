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
  for (std::int64_t row = blockIdx.x; row < p.rows; row += gridDim.x) {
    const std::int64_t row_offset = row * p.row_stride;
    const bool vector_ok = p.vector_ok(row_offset);  // tiles are whole vectors, so one check a row
    running_prefix<affine<T>> carry{p.seed(row)};
    for (std::int64_t start = 0; start < p.length; start += tile_items) {
      const std::int64_t offset = row_offset + start;
      const std::int64_t valid = min(tile_items, p.length - start);
      affine<T> items[Items];
      load_items(p.a + offset, p.b + offset, first, valid, vector_ok, items);
      scan(storage).inclusive_scan(items, carry);
      store_items(p.h + offset, first, valid, vector_ok, items);
    }
    // Only the first warp runs the callback, so its copy of the carry is the row's final state.
    if (p.h_final != nullptr && threadIdx.x == 0) p.h_final[row] = carry.running.b;
  }
}

}  // namespace linrec::detail
