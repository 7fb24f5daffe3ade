// linrec/detail/linear_recurrence_impl.cuh — validation, planning and the launches behind
// linear_recurrence.
#pragma once

#include <linrec/detail/block_per_row_kernel.cuh>
#include <linrec/detail/lookback_kernel.cuh>
#include <linrec/detail/plan.cuh>
#include <linrec/detail/problem.cuh>
#include <linrec/detail/programmatic_launch.cuh>
#include <linrec/detail/staged_lookback_kernel.cuh>
#include <linrec/detail/validate.cuh>
#include <linrec/detail/warp_per_row_kernel.cuh>
#include <linrec/linear_recurrence.cuh>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace linrec {
namespace detail {

inline constexpr std::int64_t max_grid_blocks = 0x7fffffff;  // gridDim.x limit

inline unsigned grid_blocks(std::int64_t work_items) {
  return static_cast<unsigned>(std::min(work_items, max_grid_blocks));
}

// length == 0: the final state is the initial one.
template <typename T>
status write_initial_as_final(const T* h0, T* h_final, std::int64_t rows, cudaStream_t stream) {
  if (h_final == nullptr || rows == 0) return {};
  const std::size_t bytes = static_cast<std::size_t>(rows) * sizeof(T);
  // All-zero bits are +0.0 for float and double.
  return status(h0 != nullptr
                    ? cudaMemcpyAsync(h_final, h0, bytes, cudaMemcpyDeviceToDevice, stream)
                    : cudaMemsetAsync(h_final, 0, bytes, stream));
}

// Every argument of a problem whose layout is valid; an empty problem only uses h0 and h_final.
template <typename A, typename B, typename H>
error validate_arguments(const A* a, const B* b, const H* h, const row_layout& layout, const H* h0,
                         const H* h_final) noexcept {
  if (layout.elements() > 0) return validate_pointers(a, b, h, layout, h0, h_final);
  if (h0 != nullptr && misaligned(h0)) return error::misaligned_h0;
  if (h_final != nullptr && misaligned(h_final)) return error::misaligned_h_final;
  return error::success;
}

inline void* align_temp(void* temp) {
  const auto address = reinterpret_cast<std::uintptr_t>(temp);
  return reinterpret_cast<void*>((address + temp_alignment - 1) / temp_alignment * temp_alignment);
}

// The allocating overloads' storage: `bytes` taken stream-ordered on `stream`, handed (aligned)
// to `enqueue`, and given back after the work on the same stream.
template <typename Enqueue>
status with_stream_ordered_temp(std::size_t bytes, cudaStream_t stream, Enqueue enqueue) {
  void* temp = nullptr;
  if (const cudaError_t e = cudaMallocAsync(&temp, bytes, stream); e != cudaSuccess) return status(e);
  const status result = enqueue(align_temp(temp));
  const cudaError_t freed = cudaFreeAsync(temp, stream);
  return result.ok() ? status(freed) : result;
}

// The two-phase protocol of every entry point with caller-provided storage, in one place: the
// layout's error first; then the plan, whose size a null `d_temp_storage` asks for; then the
// arguments' error and the storage's size; only then `enqueue(plan, aligned temp)`. So bad input
// is refused before anything is launched, and a size query needs no valid pointers.
template <typename MakePlan, typename ValidateArguments, typename Enqueue>
status run_with_caller_temp(void* d_temp_storage, std::size_t& temp_storage_bytes, error layout_error,
                            MakePlan make_plan, ValidateArguments validate_arguments, Enqueue enqueue) {
  if (layout_error != error::success) return layout_error;
  const auto pl = make_plan();
  if (d_temp_storage == nullptr) {
    temp_storage_bytes = pl.temp_bytes;
    return {};
  }
  if (const error e = validate_arguments(); e != error::success) return e;
  if (temp_storage_bytes < pl.temp_bytes) return error::temp_storage_too_small;
  return enqueue(pl, align_temp(d_temp_storage));
}

// The same for the allocating overloads: every check first, then storage taken stream-ordered
// only when the plan needs more than the alignment slack (a look-back's tile status).
template <typename MakePlan, typename ValidateArguments, typename Enqueue>
status run_allocating(error layout_error, MakePlan make_plan, ValidateArguments validate_arguments, Enqueue enqueue,
                      cudaStream_t stream) {
  if (layout_error != error::success) return layout_error;
  if (const error e = validate_arguments(); e != error::success) return e;
  const auto pl = make_plan();
  if (pl.temp_bytes <= temp_alignment) return enqueue(pl, nullptr);
  return with_stream_ordered_temp(pl.temp_bytes, stream, [&](void* temp) { return enqueue(pl, temp); });
}

// How many blocks of `kernel` (`threads` each) fit on the current device at once.
inline cudaError_t multiprocessors(int& sms) {
  int device = 0;
  if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  return cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
}

// How many blocks of `kernel` (`threads` each, `shared_bytes` of dynamic shared memory) fit on the
// current device at once.
template <typename Kernel>
cudaError_t resident_blocks(Kernel kernel, int threads, std::int64_t& blocks, std::size_t shared_bytes = 0) {
  int sms = 0, per_sm = 0;
  if (const cudaError_t e = multiprocessors(sms); e != cudaSuccess) return e;
  if (const cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, shared_bytes);
      e != cudaSuccess) {
    return e;
  }
  blocks = std::int64_t(std::max(1, sms * per_sm));
  return cudaSuccess;
}

// The grid for the staged look-back kernel, or 0 where it is not for this launch: a binary built
// for an architecture before sm_90 (no bulk-copy engine), or fewer than `min_tiles_per_block`
// tiles per resident block, where claiming tiles ahead would leave blocks without work. The
// cheap bound on the tile count comes first, so small launches pay for no attribute calls.
template <typename Kernel>
cudaError_t staged_grid(Kernel kernel, int threads, std::size_t shared_bytes, std::int64_t tiles,
                        std::int64_t min_tiles_per_block, std::int64_t& blocks) {
  blocks = 0;
  int sms = 0;
  if (const cudaError_t e = multiprocessors(sms); e != cudaSuccess) return e;
  if (tiles < min_tiles_per_block * sms) return cudaSuccess;
  cudaFuncAttributes attributes{};
  if (const cudaError_t e = cudaFuncGetAttributes(&attributes, kernel); e != cudaSuccess) return e;
  if (attributes.binaryVersion < 90) return cudaSuccess;
  if (const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                 static_cast<int>(shared_bytes));
      e != cudaSuccess) {
    return e;
  }
  std::int64_t resident = 0;
  if (const cudaError_t e = resident_blocks(kernel, threads, resident, shared_bytes); e != cudaSuccess) return e;
  if (tiles >= min_tiles_per_block * resident) blocks = resident;
  return cudaSuccess;
}

// `blocks` 0: the grid is sized here (persistent, or a block per tile). Grid sizes come before
// the status is cleared, so a failed query leaves nothing enqueued.
template <typename Policy, typename Problem, typename Kernel>
status launch_lookback_kernel(Kernel kernel, const plan& pl, void* temp, const Problem& p,
                              cudaStream_t stream, std::int64_t blocks = 0, std::size_t shared_bytes = 0) {
  using status_view = tile_status<affine<typename Problem::value_type>>;
  constexpr int threads = Policy::lookback_threads;
  const std::int64_t tiles = p.rows * pl.tiles_per_row;
  const status_view view(temp, tiles);
  if (blocks == 0) {
    blocks = tiles;
    if constexpr (Policy::lookback_persistent) {
      if (const cudaError_t e = resident_blocks(kernel, threads, blocks, shared_bytes); e != cudaSuccess) {
        return status(e);
      }
    }
  }
  blocks = std::min(tiles, blocks);
  if (const cudaError_t e = cudaMemsetAsync(temp, 0, status_view::init_bytes(tiles), stream);
      e != cudaSuccess) {
    return status(e);
  }
  kernel<<<grid_blocks(blocks), threads, shared_bytes, stream>>>(p, view, pl.tiles_per_row);
  return status(cudaPeekAtLastError());
}

template <typename Policy, typename Problem>
status launch_tiled_lookback(const plan& pl, void* temp, const Problem& p, cudaStream_t stream) {
  using T = typename Problem::value_type;
  constexpr int threads = Policy::lookback_threads, items = Policy::lookback_items;
  // A policy of fewer threads than default_policy's warp count gets all of its warps.
  constexpr int lookback_warps =
      Policy::lookback_warps > 0 ? std::min(Policy::lookback_warps, threads / 32) : threads / 32;
  // The staged kernel streams a and b as they lie: the forward problem only.
  if constexpr (Policy::lookback_stages > 0 && Policy::lookback_persistent && Problem::bulk_loadable) {
    constexpr int stages = Policy::lookback_stages;
    const auto kernel = staged_lookback_kernel<threads, items, stages, Policy::lookback_staged_deferral,
                                               Policy::lookback_min_blocks, Policy::lookback_tiles_per_lane,
                                               lookback_warps, Policy::lookback_striped_stores, Problem>;
    constexpr std::size_t shared_bytes = staged_lookback_shared_bytes<threads, items, stages, T>;
    std::int64_t blocks = 0;
    if (const cudaError_t e = staged_grid(kernel, threads, shared_bytes, p.rows * pl.tiles_per_row,
                                          Policy::lookback_staged_min_tiles_per_block, blocks);
        e != cudaSuccess) {
      return status(e);
    }
    if (blocks > 0) return launch_lookback_kernel<Policy>(kernel, pl, temp, p, stream, blocks, shared_bytes);
  }
  if constexpr (Policy::lookback_deferred) {
    const auto kernel = deferred_lookback_kernel<threads, items, Policy::lookback_min_blocks,
                                                 Policy::lookback_tiles_per_lane, Policy::lookback_prefetch_rounds,
                                                 lookback_warps, Policy::lookback_striped_stores, Problem>;
    constexpr std::size_t shared_bytes =
        deferred_parks_dynamically<threads, items, T> ? deferred_parked_bytes<threads, items, T> : 0;
    if constexpr (shared_bytes > 0) {
      if (const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                     static_cast<int>(shared_bytes));
          e != cudaSuccess) {
        return status(e);
      }
    }
    return launch_lookback_kernel<Policy>(kernel, pl, temp, p, stream, 0, shared_bytes);
  } else {
    return launch_lookback_kernel<Policy>(lookback_kernel<threads, items, Problem>, pl, temp, p, stream);
  }
}

template <typename Policy, int Threads, int Items, typename Problem>
status launch_block_per_row_tiles(const Problem& p, cudaStream_t stream) {
  return status(launch_kernel(block_per_row_kernel<Threads, Items, Policy::row_block_prefetch_tiles,
                                                   Policy::row_block_hold_loaded, Problem>,
                              grid_blocks(p.rows), Threads, 0, stream,
                              Policy::programmatic_launch, p));
}

template <typename Policy, typename Problem>
status launch_block_per_row(const Problem& p, cudaStream_t stream) {
  if (p.length <= Policy::row_block_short_max_length) {
    return launch_block_per_row_tiles<Policy, Policy::row_block_short_threads, Policy::row_block_short_items>(p, stream);
  }
  return launch_block_per_row_tiles<Policy, Policy::row_block_threads, Policy::row_block_items>(p, stream);
}

template <typename Policy, typename Problem>
status launch_warp_per_row(const Problem& p, cudaStream_t stream) {
  constexpr std::int64_t warps_per_block = Policy::row_warp_block_threads / 32;
  return status(launch_kernel(warp_per_row_kernel<Policy::row_warp_block_threads, Policy::row_warp_items, Problem>,
                              grid_blocks((p.rows + warps_per_block - 1) / warps_per_block),
                              Policy::row_warp_block_threads, 0, stream, Policy::programmatic_launch, p));
}

// Launches the planned strategy on a non-empty row problem (forward or adjoint).
template <typename Policy, typename Problem>
status enqueue_rows(const plan& pl, void* temp, const Problem& p, cudaStream_t stream) {
  // A policy that forces a strategy instantiates only that strategy's kernel.
  constexpr auto may_take = [](strategy s) {
    return Policy::forced == strategy::automatic || Policy::forced == s;
  };
  if constexpr (may_take(strategy::tiled_lookback)) {
    if (pl.chosen == strategy::tiled_lookback) return launch_tiled_lookback<Policy>(pl, temp, p.for_lookback(), stream);
  }
  if constexpr (may_take(strategy::block_per_row)) {
    if (pl.chosen == strategy::block_per_row) return launch_block_per_row<Policy>(p, stream);
  }
  if constexpr (may_take(strategy::warp_per_row)) {
    if (pl.chosen == strategy::warp_per_row) return launch_warp_per_row<Policy>(p, stream);
  }
  return status(cudaErrorInvalidValue);  // unreachable: make_plan only picks strategies above
}

// Enqueues a validated problem; `temp` is 16-byte aligned and large enough for `pl`.
template <typename Policy, typename A, typename B, typename H>
status enqueue(const plan& pl, void* temp, const A* a, const B* b, H* h, const row_layout& layout,
               const H* h0, H* h_final, cudaStream_t stream) {
  using Acc = typename Policy::accumulator_type;
  if (layout.rows == 0) return {};
  if (layout.length == 0) return write_initial_as_final(h0, h_final, layout.rows, stream);
  if (layout.reverse) {
    return enqueue_rows<Policy>(pl, temp,
                                rows_problem<A, B, H, Acc, true>{a, b, h, h0, h_final, layout.rows, layout.length,
                                                                 layout.row_stride},
                                stream);
  }
  return enqueue_rows<Policy>(pl, temp,
                              rows_problem<A, B, H, Acc>{a, b, h, h0, h_final, layout.rows, layout.length,
                                                         layout.row_stride},
                              stream);
}

// The compile-time checks of a call's types: storage types linrec knows, and an accumulator
// that can hold what they store.
template <typename Acc, typename A, typename B, typename H>
constexpr void check_value_types() {
  static_assert(is_storage_type_v<A> && is_storage_type_v<B> && is_storage_type_v<H>,
                "linrec stores float, double, __half, __nv_bfloat16, cuda::std::complex<float> and "
                "cuda::std::complex<double>");
  static_assert(std::is_same_v<Acc, float> || std::is_same_v<Acc, double> ||
                    std::is_same_v<Acc, cuda::std::complex<float>> || std::is_same_v<Acc, cuda::std::complex<double>>,
                "the accumulator (Policy::accumulator_type) must be float, double, cuda::std::complex<float> "
                "or cuda::std::complex<double>");
  static_assert(is_complex_v<Acc> || !(is_complex_v<A> || is_complex_v<B> || is_complex_v<H>),
                "complex operands need a complex accumulator (Policy::accumulator_type)");
  static_assert(is_complex_v<H> || !is_complex_v<Acc>, "a complex recurrence needs a complex h");
}

template <typename T, typename Policy, typename A, typename B>
status linear_recurrence_with_temp(void* d_temp_storage, std::size_t& temp_storage_bytes, const A* a,
                                   const B* b, T* h, row_layout layout, const T* h0, T* h_final,
                                   cudaStream_t stream) {
  using P = resolved_policy<Policy, T, A, B>;
  using Acc = typename P::accumulator_type;
  check_value_types<Acc, A, B, T>();
  return run_with_caller_temp(
      d_temp_storage, temp_storage_bytes, validate_layout<A, B, T>(layout), [&] { return make_plan<Acc, P>(layout); },
      [&] { return validate_arguments(a, b, h, layout, h0, h_final); },
      [&](const plan& pl, void* temp) { return enqueue<P>(pl, temp, a, b, h, layout, h0, h_final, stream); });
}

template <typename T, typename Policy, typename A, typename B>
status linear_recurrence_allocating(const A* a, const B* b, T* h, row_layout layout, const T* h0, T* h_final,
                                    cudaStream_t stream) {
  using P = resolved_policy<Policy, T, A, B>;
  using Acc = typename P::accumulator_type;
  check_value_types<Acc, A, B, T>();
  return run_allocating(
      validate_layout<A, B, T>(layout), [&] { return make_plan<Acc, P>(layout); },
      [&] { return validate_arguments(a, b, h, layout, h0, h_final); },
      [&](const plan& pl, void* temp) { return enqueue<P>(pl, temp, a, b, h, layout, h0, h_final, stream); }, stream);
}

}  // namespace detail

template <typename T, typename Policy, typename A, typename B>
constexpr strategy chosen_strategy(row_layout layout) noexcept {
  using P = detail::resolved_policy<Policy, T, A, B>;
  return detail::choose_strategy<typename P::accumulator_type, P>(layout);
}

template <typename T, typename Policy>
status linear_recurrence(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* a, const T* b, T* h,
                         row_layout layout, const T* h0, T* h_final, cudaStream_t stream) {
  return detail::linear_recurrence_with_temp<T, Policy>(d_temp_storage, temp_storage_bytes, a, b, h, layout, h0,
                                                        h_final, stream);
}
template <typename T, typename Policy, typename A, typename B>
status linear_recurrence(void* d_temp_storage, std::size_t& temp_storage_bytes, const A* a, const B* b, T* h,
                         row_layout layout, const T* h0, T* h_final, cudaStream_t stream) {
  return detail::linear_recurrence_with_temp<T, Policy>(d_temp_storage, temp_storage_bytes, a, b, h, layout, h0,
                                                        h_final, stream);
}
template <typename T, typename Policy>
status linear_recurrence(const T* a, const T* b, T* h, row_layout layout,
                         const T* h0, T* h_final, cudaStream_t stream) {
  return detail::linear_recurrence_allocating<T, Policy>(a, b, h, layout, h0, h_final, stream);
}
template <typename T, typename Policy, typename A, typename B>
status linear_recurrence(const A* a, const B* b, T* h, row_layout layout,
                         const T* h0, T* h_final, cudaStream_t stream) {
  return detail::linear_recurrence_allocating<T, Policy>(a, b, h, layout, h0, h_final, stream);
}

}  // namespace linrec
