// linrec/detail/channel_tile_scan.cuh — the scan along time inside one channel tile: each thread
// scans its Steps time steps of `width` channels in registers, then the block folds in the rows of
// time before each thread's through shared memory.
#pragma once

#include <linrec/affine.cuh>
#include <linrec/warp_scan.cuh>
#include <linrec/detail/shuffle.cuh>
#include <linrec/detail/tile_io.cuh>

#include <type_traits>

namespace linrec::detail {

/// Thread (row, lane) of a Threads-thread block holds items[s][v]: time step row * Steps + s of
/// channel lane * width + v of the tile (T is the accumulator). After `scan`, every item is op over
/// the tile's earlier time steps of its channel and itself, so the last row's last items are the
/// tile's aggregates.
///
/// The rows' aggregates are scanned across rows. Where the rows are a power of two that fits a
/// warp (`transposed`), each channel's column of row aggregates is scanned in shared memory by a
/// logical warp of `rows` lanes with shuffles, log2(rows) dependent steps; the columns are padded
/// by one map so a column's lanes hit distinct banks. Else (taller tiles: more rows than a warp
/// holds lanes, or rows not a power of two) the scan is by warps: each warp scans its own rows
/// with shuffles between the threads of a channel (32 / Lanes rows, log2 of that many steps), the
/// warps' totals go through shared memory, and each thread folds the totals of the warps before
/// its own: warps - 1 independent reads and as many dependent combines. (Each thread used to fold
/// every row before its own from shared memory: a chain of up to rows - 1 dependent reads, rows² /
/// 2 reads a tile, which made the 2-byte types' kernels bound by shared-memory traffic; H200,
/// against that loop: bf16 [8, 4096, 4096] (walk, 16 rows) 0.71 of copy against 0.55, bf16
/// [1, 65536, 1024] (tiles, 32 rows) 0.48 against 0.31; fp32 [1, 65536, 1024] 0.74 against 0.73.)
template <int Threads, int Lanes, int Steps, int Width, typename T>
struct channel_tile_scan {
  static constexpr int width = Width;
  static constexpr int group = Lanes * width;
  static constexpr int rows = Threads / Lanes;
  static_assert(Threads % 32 == 0 && 32 % Lanes == 0, "lanes must tile whole warps");
  static constexpr bool transposed = rows <= 32 && (rows & (rows - 1)) == 0;  // logical warps of rows lanes
  static constexpr int warps = Threads / 32;
  static constexpr int warp_rows = 32 / Lanes;  // rows a warp holds, where not `transposed`

  // row_aggregates is also the channel tiles' look-back scratch (rows × group maps), whichever way
  // the rows scan.
  struct transposed_storage {
    affine<T> row_aggregates[rows][group + 1];
  };
  struct by_warps_storage {
    affine<T> row_aggregates[rows][group];
    alignas(16) affine<T> warp_totals[warps][group];  // each warp's total, per channel
  };
  using temp_storage = std::conditional_t<transposed, transposed_storage, by_warps_storage>;

  /// Contains two __syncthreads() (one where not `transposed`), each after every thread has
  /// finished with `items` as passed in; call __syncthreads() before reusing `storage`.
  static __device__ __forceinline__ void scan(temp_storage& storage, affine<T> (&items)[Steps][width]) {
    scan_own_steps(items);
    affine<T> before[width];
    if (rows_before(storage, items[Steps - 1], before)) apply_prefix(before, items);
  }

  /// The scan along this thread's own steps, in registers: items[s] becomes op over items[0..s].
  static __device__ __forceinline__ void scan_own_steps(affine<T> (&items)[Steps][width]) {
    const affine_scan_op op;
#pragma unroll
    for (int s = 1; s < Steps; ++s) {
#pragma unroll
      for (int v = 0; v < width; ++v) items[s][v] = op(items[s - 1][v], items[s][v]);
    }
  }

  /// items[s][v] becomes op(prefix[v], items[s][v]): what comes before them, applied.
  static __device__ __forceinline__ void apply_prefix(const affine<T> (&prefix)[width],
                                                      affine<T> (&items)[Steps][width]) {
    const affine_scan_op op;
#pragma unroll
    for (int v = 0; v < width; ++v) {
#pragma unroll
      for (int s = 0; s < Steps; ++s) items[s][v] = op(prefix[v], items[s][v]);
    }
  }

  /// The scan across rows alone: given each thread's `total` (op over its own time steps of its
  /// channels), `before` becomes op over the totals of the rows before this thread's, and the
  /// result says whether there are any (row > 0; else `before` is left unset). The same barriers
  /// as `scan`.
  static __device__ __forceinline__ bool rows_before(temp_storage& storage, const affine<T> (&total)[width],
                                                     affine<T> (&before)[width]) {
    const int lane = static_cast<int>(threadIdx.x) % Lanes;
    const int row = static_cast<int>(threadIdx.x) / Lanes;
    if constexpr (transposed) {
#pragma unroll
      for (int v = 0; v < width; ++v) storage.row_aggregates[row][lane * width + v] = total[v];
      __syncthreads();
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
      if (row == 0) return false;
#pragma unroll
      for (int v = 0; v < width; ++v) before[v] = storage.row_aggregates[row - 1][lane * width + v];
      return true;
    } else {
      return rows_before_by_warps(storage, total, before);
    }
  }

 private:
  // The rows' scan where they are not `transposed` (see the class comment).
  static __device__ __forceinline__ bool rows_before_by_warps(temp_storage& storage, const affine<T> (&total)[width],
                                                              affine<T> (&before)[width]) {
    const affine_scan_op op;
    const int lane = static_cast<int>(threadIdx.x) % Lanes;
    const int warp = static_cast<int>(threadIdx.x) / 32;
    const int warp_row = (static_cast<int>(threadIdx.x) % 32) / Lanes;  // this thread's row within its warp
    // Within the warp, the thread Lanes × d lanes down holds the same channels d rows earlier.
    affine<T> inclusive[width], within[width];
#pragma unroll
    for (int v = 0; v < width; ++v) inclusive[v] = total[v];
#pragma unroll
    for (int d = 1; d < warp_rows; d *= 2) {
#pragma unroll
      for (int v = 0; v < width; ++v) {
        const affine<T> earlier = shuffle_up(inclusive[v], unsigned(d * Lanes), 32);
        if (warp_row >= d) inclusive[v] = op(earlier, inclusive[v]);
      }
    }
    if constexpr (warp_rows > 1) {
#pragma unroll
      for (int v = 0; v < width; ++v) within[v] = shuffle_up(inclusive[v], unsigned(Lanes), 32);
    } else {
#pragma unroll
      for (int v = 0; v < width; ++v) within[v] = affine<T>::identity();  // a warp of one row: never read
    }
    if (warp_row == warp_rows - 1) {
#pragma unroll
      for (int v = 0; v < width; ++v) storage.warp_totals[warp][lane * width + v] = inclusive[v];
    }
    __syncthreads();
    if (warp == 0 && warp_row == 0) return false;  // the tile's first row: nothing before it
#pragma unroll
    for (int v = 0; v < width; ++v) {
      // op over the rows before this thread's: the earlier warps' totals, then its own warp's rows.
      // (Unrolled over every warp, so the reads can all be issued before the first combine.)
      affine<T> prefix = warp > 0 ? storage.warp_totals[0][lane * width + v] : within[v];
#pragma unroll
      for (int w = 1; w < warps - 1; ++w) {
        if (w < warp) prefix = op(prefix, storage.warp_totals[w][lane * width + v]);
      }
      if (warp > 0 && warp_row > 0) prefix = op(prefix, within[v]);
      before[v] = prefix;
    }
    return true;
  }
};

}  // namespace linrec::detail
