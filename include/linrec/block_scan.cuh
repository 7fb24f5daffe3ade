// linrec/block_scan.cuh — a scan over a thread block's tile of BlockThreads × ItemsPerThread values.
#pragma once

#include <linrec/affine.cuh>
#include <linrec/detail/shuffle.cuh>
#include <linrec/detail/thread_scan.cuh>
#include <linrec/warp_scan.cuh>

namespace linrec {

/// Inclusive scan of a tile held in registers in *blocked* order: thread t owns the consecutive
/// items t*ItemsPerThread … (t+1)*ItemsPerThread-1. Each thread scans its own items sequentially,
/// the thread aggregates are scanned across each warp with shuffles, and the warp aggregates
/// across the block through shared memory. The earlier element is always the left operand of
/// `op(earlier, later)`; the operator need not be commutative.
///
/// Place `temp_storage` in shared memory (it may share a union with other collectives). Every
/// thread of the block must call, converged. A tile may be seeded with a carry-in through a
/// prefix callback (see `inclusive_scan(items, prefix_callback)`).
template <typename V, int BlockThreads, int ItemsPerThread, typename ScanOp = affine_scan_op>
class block_scan {
  static_assert(BlockThreads % 32 == 0 && BlockThreads > 0 && BlockThreads <= 1024,
                "BlockThreads must be a multiple of 32 in [32, 1024]");
  static_assert(ItemsPerThread >= 1, "ItemsPerThread must be positive");
  static constexpr int warps = BlockThreads / 32;
  // Where the warp aggregates are scanned with shuffles rather than folded in a loop: 16 or more
  // warps (on the H200 at 1 x 2^28, 512-thread look-back tiles: 0.641 / 0.645 of copy against
  // 0.631 / 0.631), and 8 warps holding at most 4 items a thread (256 x 4 tiles of 1024 x 1024
  // rows: 5.45 us against 5.66). With 4 warps or fewer the loop is as short; with 8 warps of 8
  // items the shuffles' registers spilled in block_per_row's 2-byte-type tiles.
  static constexpr bool shuffle_warp_aggregates =
      (warps & (warps - 1)) == 0 && (warps >= 16 || (warps >= 8 && ItemsPerThread <= 4));

 public:
  static constexpr int block_threads = BlockThreads;
  static constexpr int items_per_thread = ItemsPerThread;
  static constexpr int tile_items = BlockThreads * ItemsPerThread;

  struct temp_storage {
    V warp_aggregates[warps];
    V block_prefix;
  };

  __device__ __forceinline__ block_scan(temp_storage& storage, ScanOp op = {})
      : storage_(storage), op_(op) {}

  /// Scans the tile in place and sets `block_aggregate` (on every thread) to op over all of it.
  /// Call __syncthreads() before reusing `temp_storage` with this overload.
  __device__ __forceinline__ void inclusive_scan(V (&items)[ItemsPerThread], V& block_aggregate) {
    bool has_prefix;
    V prefix;
    block_aggregate = scan_items(items, prefix, has_prefix);
    if (has_prefix) detail::thread_apply_prefix(items, prefix, op_);
  }

  /// Scans the tile in place, seeded with a carry-in: the first warp calls
  /// `V prefix_callback(V block_aggregate)` (all 32 lanes, converged; lane 0's return is used),
  /// and every item becomes op(prefix, items up to and including it). This is how a block walking
  /// a sequence carries a running total (`running_prefix`). Back-to-back calls on the same
  /// `temp_storage` need no barrier between.
  template <typename PrefixCallback>
  __device__ __forceinline__ void inclusive_scan(V (&items)[ItemsPerThread],
                                                 PrefixCallback& prefix_callback) {
    bool has_prefix;
    V prefix;
    const V block_aggregate = scan_items(items, prefix, has_prefix);
    if (threadIdx.x < 32) {
      const V block_prefix = prefix_callback(block_aggregate);
      if (threadIdx.x == 0) storage_.block_prefix = block_prefix;
    }
    __syncthreads();
    const V block_prefix = storage_.block_prefix;
    detail::thread_apply_prefix(items, has_prefix ? op_(block_prefix, prefix) : block_prefix, op_);
  }

  /// As above, but *every* thread calls `V block_prefix_callback(V block_aggregate)`, which must
  /// return the same prefix on all threads and may synchronize the block: the form for a tile's
  /// carry-in from the tiles before it (`tile_lookback_prefix`). Call __syncthreads() before
  /// reusing `temp_storage`.
  template <typename BlockPrefixCallback>
  __device__ __forceinline__ void inclusive_scan_block_prefix(V (&items)[ItemsPerThread],
                                                              BlockPrefixCallback& block_prefix_callback) {
    bool has_prefix;
    V prefix;
    const V block_aggregate = scan_items(items, prefix, has_prefix);
    const V block_prefix = block_prefix_callback(block_aggregate);
    detail::thread_apply_prefix(items, has_prefix ? op_(block_prefix, prefix) : block_prefix, op_);
  }

 private:
  // Scans each thread's own items, then the thread aggregates across the block: returns the block
  // aggregate and leaves the prefix of earlier threads to be applied.
  __device__ __forceinline__ V scan_items(V (&items)[ItemsPerThread], V& prefix, bool& has_prefix) {
    detail::thread_inclusive_scan(items, op_);
    return scan_thread_aggregates(items[ItemsPerThread - 1], prefix, has_prefix);
  }

  // Returns the block aggregate; sets `prefix` to op over all earlier threads' aggregates, where
  // there are any (`has_prefix`). Contains one __syncthreads().
  __device__ __forceinline__ V scan_thread_aggregates(const V& thread_aggregate, V& prefix,
                                                      bool& has_prefix) {
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int warp = static_cast<int>(threadIdx.x) >> 5;
    const V inclusive = warp_scan<V, 32, ScanOp>(op_).inclusive_scan(thread_aggregate);
    const V exclusive_in_warp = detail::shuffle_up(inclusive, 1, 32);
    if (lane == 31) storage_.warp_aggregates[warp] = inclusive;
    __syncthreads();

    V running, warp_prefix;
    if constexpr (shuffle_warp_aggregates) {
      // Every warp scans the warp aggregates itself, one a lane of a logical warp of `warps`
      // lanes (log2(warps) shuffle steps), rather than each thread folding them in a loop of
      // warps - 1 dependent shared reads; the upper logical warps repeat the lower one's work.
      const V scanned =
          warp_scan<V, warps, ScanOp>(op_).inclusive_scan(storage_.warp_aggregates[lane & (warps - 1)]);
      running = detail::shuffle_index(scanned, warps - 1, 32);
      warp_prefix = detail::shuffle_index(scanned, warp > 0 ? warp - 1 : 0, 32);
    } else {
      running = storage_.warp_aggregates[0];
      warp_prefix = running;
#pragma unroll
      for (int w = 1; w < warps; ++w) {
        if (w == warp) warp_prefix = running;
        running = op_(running, storage_.warp_aggregates[w]);
      }
    }
    if (lane > 0) {
      prefix = warp > 0 ? op_(warp_prefix, exclusive_in_warp) : exclusive_in_warp;
      has_prefix = true;
    } else {
      prefix = warp_prefix;
      has_prefix = warp > 0;
    }
    return running;
  }

  temp_storage& storage_;
  ScanOp op_;
};

/// A prefix callback for `block_scan` that carries a running total from one tile to the next, for
/// a block that walks a sequence tile by tile. Call it from one warp only (block_scan does).
template <typename V, typename ScanOp = affine_scan_op>
struct running_prefix {
  V running;  ///< op over everything scanned so far, seed included
  ScanOp op{};

  __device__ __forceinline__ V operator()(const V& block_aggregate) {
    const V prefix = running;
    running = op(running, block_aggregate);
    return prefix;
  }
};

}  // namespace linrec
