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

// Where a tile's elements are.
struct tile_place {
  std::int64_t row, tile_in_row, offset, valid;
  bool vector_ok;
};

template <std::int64_t TileItems, typename T>
__device__ __forceinline__ tile_place locate_tile(const rows_problem<T>& p, std::int64_t tile,
                                                  std::int64_t tiles_per_row) {
  tile_place t;
  t.row = tile / tiles_per_row;
  t.tile_in_row = tile - t.row * tiles_per_row;
  t.offset = t.row * p.row_stride + t.tile_in_row * TileItems;
  t.valid = min(TileItems, p.length - t.tile_in_row * TileItems);
  t.vector_ok = p.vector_ok(t.offset);
  return t;
}

// Tile ids come from the counter, not blockIdx: the look-back's forward-progress argument needs
// every smaller id to belong to a block that has already started. (A block claims its next id only
// after it has published its current tile's inclusive prefix: claiming ahead was measured on the
// H200 to halve throughput, since every tile's successors then wait one tile longer.)
template <typename T>
__device__ __forceinline__ std::int64_t claim_tile(const tile_status<affine<T>>& status,
                                                   std::int64_t& shared_tile) {
  __syncthreads();  // everyone has read the previous id
  if (threadIdx.x == 0) shared_tile = status.next_tile();
  __syncthreads();
  return shared_tile;
}

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
  // Claims a tile and starts loading it; nothing for an id past the end.
  const auto start_tile = [&](std::int64_t& id, tile_place& place, affine<T> (&into)[Items]) {
    id = claim_tile(status, shared_tile);
    if (id < tiles) {
      place = locate_tile<tile_items>(p, id, tiles_per_row);
      load_items(p.a + place.offset, p.b + place.offset, first, place.valid, place.vector_ok, into);
    }
  };
  // Scans a loaded tile with its carry-in from the look-back and stores it.
  const auto finish_tile = [&](std::int64_t id, const tile_place& place, affine<T> (&items)[Items]) {
    lookback prefix(lookback_storage, status, id, place.row * tiles_per_row, p.seed(place.row));
    scan(scan_storage).inclusive_scan_block_prefix(items, prefix);
    store_items(p.h + place.offset, first, place.valid, place.vector_ok, items);
    if (p.h_final != nullptr && place.tile_in_row == tiles_per_row - 1) {
      store_final(p.h_final + place.row, first, place.valid, items);
    }
  };

  std::int64_t tile;
  tile_place place{};
  affine<T> items[Items];
  for (start_tile(tile, place, items); tile < tiles; start_tile(tile, place, items)) {
    finish_tile(tile, place, items);
  }
}

}  // namespace linrec::detail
