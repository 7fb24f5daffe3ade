// linrec/detail/channel_tile_scan.cuh — the scan along time inside one channel tile: each thread
// scans its Steps time steps of `width` channels in registers, then the block folds in the rows of
// time before each thread's through shared memory.
#pragma once

#include <linrec/affine.cuh>
#include <linrec/warp_scan.cuh>
#include <linrec/detail/tile_io.cuh>

namespace linrec::detail {

/// Thread (row, lane) of a Threads-thread block holds items[s][v]: time step row * Steps + s of
/// channel lane * width + v of the tile (T is the accumulator). After `scan`, every item is op over
/// the tile's earlier time steps of its channel and itself, so the last row's last items are the
/// tile's aggregates.
///
/// The rows' aggregates are scanned across rows in shared memory. Where the rows are a power of two
/// that fits a warp (`transposed`), each channel's column of row aggregates is scanned by a logical
/// warp of `rows` lanes with shuffles, log2(rows) dependent steps; the columns are padded by one
/// map so a column's lanes hit distinct banks. Else each thread folds the rows before its own in a
/// loop: a chain of up to rows - 1 dependent shared-memory reads, and rows² / 2 reads a tile, which
/// made the 2-byte types' kernels bound by shared-memory traffic (Nsight Compute: L1 at 80 % of its
/// peak, DRAM at 42 %, for the bf16 walk). H200, against the loop over the same aligned maps: bf16
/// [8, 4096, 4096] (walk, 16 rows) 0.71 of copy against 0.55, bf16 [1, 65536, 1024] (tiles, 32
/// rows) 0.48 against 0.31; fp32 [1, 65536, 1024] 0.74 against 0.73.
template <int Threads, int Lanes, int Steps, int Width, typename T>
struct channel_tile_scan {
  static constexpr int width = Width;
  static constexpr int group = Lanes * width;
  static constexpr int rows = Threads / Lanes;
  static_assert(Threads % 32 == 0 && 32 % Lanes == 0, "lanes must tile whole warps");
  static constexpr bool transposed = rows <= 32 && (rows & (rows - 1)) == 0;  // logical warps of rows lanes

  struct temp_storage {
    affine<T> row_aggregates[rows][group + (transposed ? 1 : 0)];
  };

  /// Contains two __syncthreads() (one where not `transposed`); call __syncthreads() before
  /// reusing `storage`.
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
    if constexpr (transposed) {
      // Thread i scans row i % rows of columns i / rows, i / rows + Threads / rows, ...: `width`
      // columns each, every column once. Each cell is read and rewritten by the same thread.
      constexpr int columns_per_pass = Threads / rows;
      const int cell_row = static_cast<int>(threadIdx.x) % rows;
      const int column0 = static_cast<int>(threadIdx.x) / rows;
      const warp_scan<affine<T>, rows> column_scan;
#pragma unroll
      for (int k = 0; k < width; ++k) {
        affine<T>& cell = storage.row_aggregates[cell_row][k * columns_per_pass + column0];
        cell = column_scan.inclusive_scan(cell);
      }
      __syncthreads();
      if (row > 0) {
#pragma unroll
        for (int v = 0; v < width; ++v) {
          const affine<T> before = storage.row_aggregates[row - 1][lane * width + v];
#pragma unroll
          for (int s = 0; s < Steps; ++s) items[s][v] = op(before, items[s][v]);
        }
      }
    } else {
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
  }
};

}  // namespace linrec::detail
