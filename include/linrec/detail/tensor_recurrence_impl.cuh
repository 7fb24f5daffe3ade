// linrec/detail/tensor_recurrence_impl.cuh — linear_recurrence over tensor layouts: validation,
// the choice between the row strategies and channel tiles, and the channel-tile launch.
#pragma once

#include <linrec/detail/channel_problem.cuh>
#include <linrec/detail/channel_tile_status.cuh>
#include <linrec/detail/channel_tiles_kernel.cuh>
#include <linrec/detail/channel_walk_kernel.cuh>
#include <linrec/detail/linear_recurrence_impl.cuh>
#include <linrec/detail/tensor_plan.cuh>
#include <linrec/detail/tensor_validate.cuh>
#include <linrec/linear_recurrence.cuh>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

namespace linrec {
namespace detail {

// A kernel taking `stage_bytes` of dynamic shared memory for its stages: shared memory preferred
// over L1 (the default split may leave too little for the blocks an SM should hold; the stages
// read nothing twice from L1), and the opt-in the launch needs past 48 KB a block, static and
// dynamic together (asked every time: the kernel's static part is the compiler's to know).
template <typename Kernel>
cudaError_t opt_into_stages(Kernel kernel, std::size_t stage_bytes) {
  if (const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                                 cudaSharedmemCarveoutMaxShared);
      e != cudaSuccess) {
    return e;
  }
  return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(stage_bytes));
}

// The channel-tile kernel a policy launches with Lanes lanes and SharedChunks runs in shared
// memory (tests ask it for its attributes).
template <typename Policy, int Lanes, int SharedChunks, typename Problem>
auto channel_tiles_kernel_for() {
  return channel_tiles_kernel<Policy::channel_threads, Lanes, Policy::channel_steps, SharedChunks,
                              Policy::channel_min_blocks, Policy::channel_prefetch_rounds,
                              Policy::channel_prefetch_store_inputs, Problem>;
}

template <typename Policy, int Lanes, int SharedChunks, typename Problem>
status launch_channel_tiles_with(const tensor_plan& pl, void* temp, const Problem& p, cudaStream_t stream) {
  using T = typename Problem::value_type;
  constexpr int threads = Policy::channel_threads;
  const auto kernel = channel_tiles_kernel_for<Policy, Lanes, SharedChunks, Problem>();
  constexpr std::size_t stage_bytes = channel_stage_bytes<threads, Policy::channel_steps, SharedChunks, Problem>;
  // With the kernel's own shared memory: 512 threads of bf16 with three runs (192 KB of stages
  // and 41 KB) would otherwise compile and fail the opt-in at run time.
  static_assert(stage_bytes + channel_tiles_static_bytes<threads, Lanes, Policy::channel_steps, Problem> <= 227 * 1024,
                "channel_shared_chunks (or, where channel_few_groups > 0, channel_few_groups_shared_chunks; in the "
                "backward pass, channel_backward_shared_chunks) x channel_steps (backward: channel_backward_steps) x "
                "channel_threads: the runs in shared memory and the kernel's own outgrow an SM's 227 KB; lower "
                "them, or set channel_few_groups = 0");
  if constexpr (stage_bytes > 0) {
    if (const cudaError_t e = opt_into_stages(kernel, stage_bytes); e != cudaSuccess) return status(e);
  }
  const std::int64_t tiles = pl.tiling.tiles();
  // The grid size first: a failed query then leaves nothing enqueued. Persistent blocks take
  // tiles from the counter until none are left.
  std::int64_t blocks = 0;
  if (const cudaError_t e = resident_blocks(kernel, threads, blocks, stage_bytes); e != cudaSuccess) {
    return status(e);
  }
  blocks = std::min(blocks, tiles);
  // About blocks / groups chunks of each channel group are in flight at once: past the
  // threshold, a look-back round inspects 64 chunks instead of 32.
  constexpr std::int64_t wide_from = Policy::channel_wide_lookback_in_flight;
  const int lookback_window = wide_from > 0 && blocks >= wide_from * pl.tiling.groups ? 64 : 32;
  const channel_tile_status<T> view(temp, tiles, pl.tiling.group);  // T: the accumulator
  if (const cudaError_t e = cudaMemsetAsync(temp, 0, channel_tile_status<T>::init_bytes(tiles), stream);
      e != cudaSuccess) {
    return status(e);
  }
  kernel<<<grid_blocks(blocks), threads, stage_bytes, stream>>>(p, view, pl.tiling, lookback_window);
  return status(cudaPeekAtLastError());
}

template <typename Policy, int SharedChunks, typename Problem>
status launch_channel_tiles_runs(const tensor_plan& pl, void* temp, const Problem& p, cudaStream_t stream) {
  static_assert(Policy::channel_max_lanes == 8 || Policy::channel_max_lanes == 16 || Policy::channel_max_lanes == 32,
                "channel_max_lanes must be 8, 16 or 32");
  if constexpr (Policy::channel_max_lanes >= 32) {
    if (pl.lanes == 32) return launch_channel_tiles_with<Policy, 32, SharedChunks>(pl, temp, p, stream);
  }
  if constexpr (Policy::channel_max_lanes >= 16) {
    if (pl.lanes == 16) return launch_channel_tiles_with<Policy, 16, SharedChunks>(pl, temp, p, stream);
  }
  return launch_channel_tiles_with<Policy, 8, SharedChunks>(pl, temp, p, stream);
}

template <typename Policy, typename Problem>
status launch_channel_tiles(const tensor_plan& pl, void* temp, const Problem& p, cudaStream_t stream) {
  constexpr int few_groups_runs = Policy::channel_few_groups_shared_chunks;
  // A second kernel only where the policy asks for one: few groups with their own runs.
  if constexpr (Policy::channel_few_groups > 0 && few_groups_runs != Policy::channel_shared_chunks) {
    if (pl.shared_chunks == few_groups_runs) return launch_channel_tiles_runs<Policy, few_groups_runs>(pl, temp, p, stream);
  }
  return launch_channel_tiles_runs<Policy, Policy::channel_shared_chunks>(pl, temp, p, stream);
}

template <int Threads, int Lanes, int Steps, int StageTiles, typename Problem>
status launch_channel_walk_with(const tensor_plan& pl, const Problem& p, cudaStream_t stream) {
  const auto kernel = channel_walk_kernel<Threads, Lanes, Steps, StageTiles, Problem>;
  constexpr std::size_t stage_bytes = channel_stage_bytes<Threads, Steps, StageTiles, Problem>;
  if constexpr (stage_bytes > 0) {
    if (const cudaError_t e = opt_into_stages(kernel, stage_bytes); e != cudaSuccess) return status(e);
  }
  kernel<<<grid_blocks(pl.tiling.groups), Threads, stage_bytes, stream>>>(p, pl.tiling);
  return status(cudaPeekAtLastError());
}

template <typename Policy, typename Problem>
status launch_channel_walk(const tensor_plan& pl, const Problem& p, cudaStream_t stream) {
  constexpr int steps = Policy::channel_walk_steps;
  constexpr int stage_tiles = Policy::channel_walk_prefetch ? Policy::channel_walk_stage_tiles : 0;
  static_assert(!Policy::channel_walk_prefetch || stage_tiles >= 1, "a staged walk stages at least one tile ahead");
  if constexpr (Policy::channel_narrow_walk_min_groups > 0) {
    // Narrow groups hold one block per SM: always staged, so its loads stay in flight.
    static_assert(Policy::channel_walk_stage_tiles >= 1, "the narrow walk stages at least one tile ahead");
    if (pl.narrow_walk) {
      return launch_channel_walk_with<Policy::channel_narrow_walk_threads, Policy::channel_narrow_walk_lanes, steps,
                                      Policy::channel_walk_stage_tiles>(pl, p, stream);
    }
  }
  return launch_channel_walk_with<Policy::channel_walk_threads, Policy::channel_walk_lanes, steps, stage_tiles>(
      pl, p, stream);
}

// Enqueues a validated problem; `temp` is 16-byte aligned and large enough for `pl`.
template <typename Policy, typename A, typename B, typename H>
status enqueue_tensor(const tensor_plan& pl, void* temp, const A* a, const B* b, H* h,
                      const tensor_layout& l, const H* h0, H* h_final, cudaStream_t stream) {
  const bool channels = pl.chosen == strategy::channel_tiles || pl.chosen == strategy::channel_walk;
  if (!channels) return enqueue<row_policy<Policy>>(pl.row_plan, temp, a, b, h, pl.rows, h0, h_final, stream);
  if (l.batch == 0 || l.channels == 0) return {};
  if (l.length == 0) return write_initial_as_final(h0, h_final, l.batch * l.channels, stream);
  // Backwards in time is forwards from the last step with the time strides negated.
  tensor_layout walked = l;
  if (l.reverse) {
    const std::int64_t last = l.length - 1;
    a += last * l.a.time, b += last * l.b.time, h += last * l.h.time;
    walked.a.time = -l.a.time, walked.b.time = -l.b.time, walked.h.time = -l.h.time;
  }
  const channel_problem<A, B, H, typename Policy::accumulator_type> p{
      a, b, h, h0, h_final, l.batch, l.length, l.channels, walked.a, walked.b, walked.h, vectors_fit(a, b, h, walked)};
  if (pl.chosen == strategy::channel_walk) return launch_channel_walk<Policy>(pl, p, stream);
  return launch_channel_tiles<Policy>(pl, temp, p, stream);
}

template <typename A, typename B, typename H>
error validate_tensor_arguments(const A* a, const B* b, const H* h, const tensor_layout& l,
                                const H* h0, const H* h_final) noexcept {
  if (l.elements() > 0) return validate_pointers(a, b, h, l, h0, h_final);
  if (h0 != nullptr && misaligned(h0)) return error::misaligned_h0;
  if (h_final != nullptr && misaligned(h_final)) return error::misaligned_h_final;
  return error::success;
}

template <typename T, typename Policy, typename A, typename B>
status linear_recurrence_with_temp(void* d_temp_storage, std::size_t& temp_storage_bytes, const A* a,
                                   const B* b, T* h, const tensor_layout& layout, const T* h0, T* h_final,
                                   cudaStream_t stream) {
  using P = resolved_policy<Policy, T, A, B>;
  using Acc = typename P::accumulator_type;
  check_value_types<Acc, A, B, T>();
  return run_with_caller_temp(
      d_temp_storage, temp_storage_bytes, validate_layout<A, B, T>(layout),
      [&] { return forward_tensor_plan<T, P, A, B>(layout); },
      [&] { return validate_tensor_arguments(a, b, h, layout, h0, h_final); },
      [&](const tensor_plan& pl, void* temp) { return enqueue_tensor<P>(pl, temp, a, b, h, layout, h0, h_final, stream); });
}

template <typename T, typename Policy, typename A, typename B>
status linear_recurrence_allocating(const A* a, const B* b, T* h, const tensor_layout& layout, const T* h0,
                                    T* h_final, cudaStream_t stream) {
  using P = resolved_policy<Policy, T, A, B>;
  using Acc = typename P::accumulator_type;
  check_value_types<Acc, A, B, T>();
  return run_allocating(
      validate_layout<A, B, T>(layout), [&] { return forward_tensor_plan<T, P, A, B>(layout); },
      [&] { return validate_tensor_arguments(a, b, h, layout, h0, h_final); },
      [&](const tensor_plan& pl, void* temp) { return enqueue_tensor<P>(pl, temp, a, b, h, layout, h0, h_final, stream); },
      stream);
}

}  // namespace detail

template <typename T, typename Policy, typename A, typename B>
constexpr strategy chosen_strategy(const tensor_layout& layout) noexcept {
  return detail::forward_tensor_plan<T, Policy, A, B>(layout).chosen;
}

template <typename T, typename Policy>
status linear_recurrence(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* a, const T* b, T* h,
                         const tensor_layout& layout, const T* h0, T* h_final, cudaStream_t stream) {
  return detail::linear_recurrence_with_temp<T, Policy>(d_temp_storage, temp_storage_bytes, a, b, h, layout, h0,
                                                        h_final, stream);
}
template <typename T, typename Policy, typename A, typename B>
status linear_recurrence(void* d_temp_storage, std::size_t& temp_storage_bytes, const A* a, const B* b, T* h,
                         const tensor_layout& layout, const T* h0, T* h_final, cudaStream_t stream) {
  return detail::linear_recurrence_with_temp<T, Policy>(d_temp_storage, temp_storage_bytes, a, b, h, layout, h0,
                                                        h_final, stream);
}
template <typename T, typename Policy>
status linear_recurrence(const T* a, const T* b, T* h, const tensor_layout& layout,
                         const T* h0, T* h_final, cudaStream_t stream) {
  return detail::linear_recurrence_allocating<T, Policy>(a, b, h, layout, h0, h_final, stream);
}
template <typename T, typename Policy, typename A, typename B>
status linear_recurrence(const A* a, const B* b, T* h, const tensor_layout& layout,
                         const T* h0, T* h_final, cudaStream_t stream) {
  return detail::linear_recurrence_allocating<T, Policy>(a, b, h, layout, h0, h_final, stream);
}

}  // namespace linrec
