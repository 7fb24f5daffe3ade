// linrec/detail/thread_scan.cuh — the register-sequential part of a scan: one thread's own items.
#pragma once

#include <cuda_runtime.h>

namespace linrec::detail {

/// items[i] = op(items[0], ..., items[i]), in place, sequentially.
template <typename V, int Items, typename ScanOp>
__device__ __forceinline__ void thread_inclusive_scan(V (&items)[Items], ScanOp op) {
#pragma unroll
  for (int i = 1; i < Items; ++i) items[i] = op(items[i - 1], items[i]);
}

/// items[i] = op(prefix, items[i]): folds everything before this thread's items into them.
template <typename V, int Items, typename ScanOp>
__device__ __forceinline__ void thread_apply_prefix(V (&items)[Items], const V& prefix,
                                                             ScanOp op) {
#pragma unroll
  for (int i = 0; i < Items; ++i) items[i] = op(prefix, items[i]);
}

}  // namespace linrec::detail
