// linrec/detail/channel_tile_scan.cuh — the scan along time inside one channel tile: each thread
// scans its Steps time steps of `width` channels in registers, then the block folds in the rows of
// time before each thread's through shared memory.
#pragma once

#include <linrec/affine.cuh>
#include <linrec/detail/tile_io.cuh>

namespace linrec::detail {

/// Thread (row, lane) of a Threads-thread block holds items[s][v]: time step row * Steps + s of
/// channel lane * width + v of the tile (T is the accumulator). After `scan`, every item is op over the tile's earlier
/// time steps of its channel and itself, so the last row's last items are the tile's aggregates.
template <int Threads, int Lanes, int Steps, int Width, typename T>
struct channel_tile_scan {
  static constexpr int width = Width;
  static constexpr int group = Lanes * width;
  static constexpr int rows = Threads / Lanes;
  static_assert(Threads % 32 == 0 && 32 % Lanes == 0, "lanes must tile whole warps");

  struct temp_storage {
    affine<T> row_aggregates[rows][group];
  };

  /// Contains one __syncthreads(); call __syncthreads() before reusing `storage`.
  static __device__ __forceinline__ void scan(temp_storage& storage, affine<T> (&items)[Steps][width]) {
    const affine_scan_op op;
    const int lane = static_cast<int>(threadIdx.x) % Lanes;
    const int row = static_cast<int>(threadIdx.x) / Lanes;
#pragma unroll
    for (int s = 1; s < Steps; ++s) {
#pragma unroll
      for (int v = 0; v < width; ++v) items[s][v] = op(items[s - 1][v], items[s][v]);
    }
#pragma unroll
    for (int v = 0; v < width; ++v) storage.row_aggregates[row][lane * width + v] = items[Steps - 1][v];
    __syncthreads();
    if (row > 0) {
#pragma unroll
      for (int v = 0; v < width; ++v) {
        affine<T> running = storage.row_aggregates[0][lane * width + v];
        for (int r = 1; r < row; ++r) running = op(running, storage.row_aggregates[r][lane * width + v]);
#pragma unroll
        for (int s = 0; s < Steps; ++s) items[s][v] = op(running, items[s][v]);
      }
    }
  }
};

}  // namespace linrec::detail
