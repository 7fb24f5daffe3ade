// linrec/linear_recurrence.cuh — the host entry point: h[t] = a[t] * h[t-1] + b[t] over rows of
// time-contiguous data, on a stream.
#pragma once

#include <linrec/policy.cuh>
#include <linrec/row_layout.cuh>
#include <linrec/status.cuh>
#include <linrec/tensor_layout.cuh>

#include <cuda_runtime.h>

#include <cstddef>

namespace linrec {

/// Computes, for every row r and step t of `layout`,
///
///     h[r, t] = a[r, t] * h[r, t-1] + b[r, t],   h[r, -1] = h0 ? h0[r] : 0,
///
/// with element (r, t) at r * layout.row_stride + t of a, b and h (device pointers), and, if
/// `h_final` is not null, h_final[r] = h[r, length-1] (h0[r] or 0 when length == 0). Feeding one
/// call's h_final as the next call's h0 continues the sequence: chunked runs equal one run over the
/// concatenation, up to rounding.
///
/// With `layout.reverse`, every row runs backwards: h[r, t] = a[r, t] * h[r, t+1] + b[r, t] with
/// h[r, length] = h0[r] (or 0) and h_final[r] = h[r, 0]; chunks then chain from the last to the
/// first. The data is read in place, with no flipped copies, on every strategy.
///
/// - T: float or double; the scan runs in T.
/// - In place: h may be the same array as a or as b; any other overlap with them is an error.
/// - Temporary storage, CUB-style: with d_temp_storage == nullptr, only sets temp_storage_bytes
///   (never 0) from the layout alone and returns; pointers are not checked then. Otherwise
///   d_temp_storage must hold temp_storage_bytes ≥ that size (any alignment) and must not be used
///   by anything else until the work completes on `stream`.
/// - Asynchronous: enqueues work on `stream` and returns; never synchronizes, allocates or prints.
///   An empty problem (rows or length 0) launches nothing, except writing h_final for length 0.
/// - Bad input: returns the `error` naming the argument before anything is launched, and touches
///   no output. A failed launch returns error::cuda_error with the CUDA error in status::cuda().
/// - Strategy: `Policy::forced`, or from the shape (see default_policy and chosen_strategy):
///   short rows one per warp, many rows one per block, fewer long rows in tiles across blocks
///   with a single-pass decoupled look-back.
template <typename T, typename Policy = default_policy<T>>
status linear_recurrence(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* a,
                         const T* b, T* h, row_layout layout, const T* h0 = nullptr,
                         T* h_final = nullptr, cudaStream_t stream = nullptr);

/// The same, with temporary storage taken stream-ordered on `stream` (cudaMallocAsync, then
/// cudaFreeAsync after the work) when the strategy needs any. Arguments are all checked first.
template <typename T, typename Policy = default_policy<T>>
status linear_recurrence(const T* a, const T* b, T* h, row_layout layout, const T* h0 = nullptr,
                         T* h_final = nullptr, cudaStream_t stream = nullptr);

/// The strategy linear_recurrence<T, Policy> takes for `layout` (for logs, tests and tuning).
template <typename T, typename Policy = default_policy<T>>
constexpr strategy chosen_strategy(row_layout layout) noexcept;

/// The same recurrence over 3-D operands: for every batch entry b and channel c,
///
///     h[b, t, c] = a[b, t, c] * h[b, t-1, c] + b[b, t, c],   h[b, -1, c] = h0 ? h0[b*C + c] : 0,
///
/// with each operand's element (b, t, c) where its strides in `layout` put it (so no transposes:
/// [batch, time, channels], [time, batch, channels], broadcast a, or two views into one gate
/// tensor all work as they are), and h_final[b*C + c] = h[b, length-1, c] if h_final is given.
/// `layout.reverse` runs time backwards, as for rows (h0 is then h[b, length, c], h_final h[b, 0, c]).
///
/// - Paths, from the strides (see chosen_strategy):
///   - time contiguous and the three operands alike, with sequences at one row stride (e.g.
///     [batch, channels, time]): the row strategies above, as for a row_layout;
///   - anything else: lanes across channels with 16-byte vectors where channels are contiguous
///     and aligned in all three operands: strategy::channel_walk (a block walks all of time for
///     its group of channels, carry on chip) when there are at least
///     Policy::channel_walk_min_groups groups of 8 vectors of channels, otherwise
///     strategy::channel_tiles (time cut into chunks carried by decoupled look-back). The same
///     kernels with element-wise accesses serve any other strides: correct, but slower the less
///     contiguous the channels are.
/// - h must give every element its own place (error::h_overlaps_itself otherwise) and may be
///   exactly a or b (same pointer and strides) for in-place use; any other overlap of h with a or
///   b's span is an error, even where the elements would interleave without touching.
/// - Temporary storage, asynchrony and bad input: as for row layouts, with the errors naming the
///   tensor_layout member at fault (negative_batch, negative_stride_a, ...).
template <typename T, typename Policy = default_policy<T>>
status linear_recurrence(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* a,
                         const T* b, T* h, const tensor_layout& layout, const T* h0 = nullptr,
                         T* h_final = nullptr, cudaStream_t stream = nullptr);

/// The same, with temporary storage taken stream-ordered on `stream` where the path needs any.
template <typename T, typename Policy = default_policy<T>>
status linear_recurrence(const T* a, const T* b, T* h, const tensor_layout& layout,
                         const T* h0 = nullptr, T* h_final = nullptr, cudaStream_t stream = nullptr);

/// The strategy linear_recurrence<T, Policy> takes for a tensor layout.
template <typename T, typename Policy = default_policy<T>>
constexpr strategy chosen_strategy(const tensor_layout& layout) noexcept;

}  // namespace linrec

#include <linrec/detail/linear_recurrence_impl.cuh>
#include <linrec/detail/tensor_recurrence_impl.cuh>
