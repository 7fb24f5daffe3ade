// linrec/detail/lookback_kernel.cuh — strategy::tiled_lookback: every tile of every row is a block's
// work item; a tile takes its carry-in from the tiles before it in its row by decoupled look-back.
#pragma once

#include <linrec/block_scan.cuh>
#include <linrec/detail/problem.cuh>
#include <linrec/detail/tile_io.cuh>
#include <linrec/tile_lookback.cuh>
#include <linrec/tile_status.cuh>

#include <cstdint>

namespace linrec::detail {

template <int Threads, int Items, typename T>
__global__ void __launch_bounds__(Threads)
    lookback_kernel(rows_problem<T> p, tile_status<affine<T>> status, std::int64_t tiles_per_row) {
  using scan = block_scan<affine<T>, Threads, Items>;
  using lookback = tile_lookback_prefix<affine<T>, Threads / 32>;  // every warp looks back
  constexpr std::int64_t tile_items = scan::tile_items;
  __shared__ typename scan::temp_storage scan_storage;
  __shared__ typename lookback::temp_storage lookback_storage;
  __shared__ std::int64_t shared_tile;

  const std::int64_t tiles = status.tiles();
  const std::int64_t first = std::int64_t(threadIdx.x) * Items;
  while (true) {
    // Ids come from the counter, not blockIdx: the look-back's forward-progress argument needs
    // every smaller id to belong to a block that has already started.
    if (threadIdx.x == 0) shared_tile = status.next_tile();
    __syncthreads();
    const std::int64_t tile = shared_tile;
    if (tile >= tiles) break;

    const std::int64_t row = tile / tiles_per_row;
    const std::int64_t tile_in_row = tile - row * tiles_per_row;
    const std::int64_t offset = row * p.row_stride + tile_in_row * tile_items;
    const std::int64_t valid = min(tile_items, p.length - tile_in_row * tile_items);
    const bool vector_ok = p.vector_ok(offset);

    affine<T> items[Items];
    load_items(p.a + offset, p.b + offset, first, valid, vector_ok, items);
    lookback prefix(lookback_storage, status, tile, row * tiles_per_row, p.seed(row));
    scan(scan_storage).inclusive_scan_block_prefix(items, prefix);
    store_items(p.h + offset, first, valid, vector_ok, items);
    if (p.h_final != nullptr && tile_in_row == tiles_per_row - 1) {
      store_final(p.h_final + row, first, valid, items);
    }
    __syncthreads();  // shared_tile and scan_storage are read before the next tile reuses them
  }
}

}  // namespace linrec::detail
