// linrec/detail/programmatic_launch.cuh — programmatic dependent launch (sm_90 and later) for the
// kernels that need no temporary state: the launch gap between back-to-back kernels overlaps the
// previous kernel's end.
//
// A kernel launched with cudaLaunchAttributeProgrammaticStreamSerialization may start before the
// kernel ahead of it in the stream has finished. It must then execute `griddepcontrol.wait`, which
// returns once every grid it depends on has completed and its memory is visible, before it reads
// or writes anything that kernel may touch: our kernels do so first thing. Without a kernel ahead
// of it (or on a GPU before sm_90, where the attribute has no effect and the instruction is not
// compiled) the wait returns at once, so the stream order users rely on is unchanged.
// `griddepcontrol.launch_dependents` lets a kernel behind ours that was launched the same way be
// scheduled early; it too waits before touching our output.
#pragma once

#include <cuda_runtime.h>
#include <nv/target>

#include <cstddef>
#include <utility>

namespace linrec::detail {

/// Waits until the kernels this one depends on have completed; before any global memory access.
__device__ __forceinline__ void wait_for_prior_kernels() {
  NV_IF_TARGET(NV_PROVIDES_SM_90, (asm volatile("griddepcontrol.wait;" ::: "memory");))
}

/// Lets a kernel queued behind this one start launching (it still waits for this one to finish).
__device__ __forceinline__ void allow_next_kernel() {
  NV_IF_TARGET(NV_PROVIDES_SM_90, (asm volatile("griddepcontrol.launch_dependents;" ::: "memory");))
}

/// Launches `kernel` on `stream`, programmatically serialized after the kernel ahead of it when
/// `programmatic` (the kernel must start with wait_for_prior_kernels()).
template <typename... Params, typename... Args>
cudaError_t launch_kernel(void (*kernel)(Params...), unsigned blocks, unsigned threads, std::size_t shared_bytes,
                          cudaStream_t stream, bool programmatic, Args&&... args) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(threads);
  config.dynamicSmemBytes = shared_bytes;
  config.stream = stream;
  config.attrs = programmatic ? &attribute : nullptr;
  config.numAttrs = programmatic ? 1 : 0;
  return cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
}

}  // namespace linrec::detail
