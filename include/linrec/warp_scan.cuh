// linrec/warp_scan.cuh — scans across the lanes of a (logical) warp with shuffles; no shared memory.
#pragma once

#include <linrec/affine.cuh>
#include <linrec/detail/shuffle.cuh>

namespace linrec {

/// Inclusive and exclusive scans of one value per lane across a logical warp of
/// `LogicalWarpThreads` lanes (a power of two, 1..32). Lane i's result combines lanes 0..i
/// (inclusive) or 0..i-1 (exclusive) of its own logical warp, with the lower lane — the earlier
/// element — always the left operand of `op(earlier, later)`.
///
/// All lanes of each logical warp must call together, converged; several logical warps may share
/// one hardware warp (lanes [k*W, (k+1)*W) form logical warp k). Needs no TempStorage.
///
/// ScanOp is any associative binary operator over V, e.g. `affine_scan_op` over `affine<T>`;
/// it need not be commutative.
template <typename V, int LogicalWarpThreads = 32, typename ScanOp = affine_scan_op>
class warp_scan {
  static_assert(LogicalWarpThreads >= 1 && LogicalWarpThreads <= 32 &&
                    (LogicalWarpThreads & (LogicalWarpThreads - 1)) == 0,
                "LogicalWarpThreads must be a power of two in [1, 32]");

 public:
  static constexpr int logical_warp_threads = LogicalWarpThreads;

  __device__ __forceinline__ explicit warp_scan(ScanOp op = {}) : op_(op) {}

  /// The lane's index within its logical warp.
  __device__ __forceinline__ static int lane() {
    return static_cast<int>(threadIdx.x) & (LogicalWarpThreads - 1);
  }

  /// Returns op(x[0], ..., x[lane]) over this logical warp.
  __device__ __forceinline__ V inclusive_scan(V x) const {
    const int l = lane();
    // Kogge-Stone: after the step with offset d, lane l holds lanes max(0, l-2d+1)..l.
#pragma unroll
    for (int offset = 1; offset < LogicalWarpThreads; offset *= 2) {
      const V earlier = detail::shuffle_up(x, offset, LogicalWarpThreads);
      if (l >= offset) x = op_(earlier, x);
    }
    return x;
  }

  /// As inclusive_scan, and sets `warp_aggregate` to op over the whole logical warp (all lanes).
  __device__ __forceinline__ V inclusive_scan(V x, V& warp_aggregate) const {
    const V inclusive = inclusive_scan(x);
    warp_aggregate = detail::shuffle_index(inclusive, LogicalWarpThreads - 1, LogicalWarpThreads);
    return inclusive;
  }

  /// Returns op(initial, x[0], ..., x[lane-1]); lane 0 gets `initial`. Sets `warp_aggregate` to
  /// op(x[0], ..., x[W-1]) (without `initial`) on every lane.
  __device__ __forceinline__ V exclusive_scan(V x, V initial, V& warp_aggregate) const {
    const V inclusive = inclusive_scan(x, warp_aggregate);
    const V shifted = detail::shuffle_up(inclusive, 1, LogicalWarpThreads);
    return lane() == 0 ? initial : op_(initial, shifted);
  }

  /// exclusive_scan without the aggregate.
  __device__ __forceinline__ V exclusive_scan(V x, V initial) const {
    V unused;
    return exclusive_scan(x, initial, unused);
  }

 private:
  ScanOp op_;
};

}  // namespace linrec
