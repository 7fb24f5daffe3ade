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
/// - Types: h, h0 and h_final are stored as T; a as A and b as B (deduced from the pointers).
///   Each is float, double, __half, __nv_bfloat16, cuda::std::complex<float> or
///   cuda::std::complex<double>. The state is carried in Policy::accumulator_type, by default
///   accumulator_t<A, B, T> (value_types.cuh): float for float and the 2-byte types, double if
///   any operand is double, complex if any is. Each h is rounded once to T. Complex products are
///   the plain (ac - bd, ad + bc).
/// - Policy: auto_policy stands for default_policy<T, A, B>; a policy of your own derives from
///   the default_policy of the same operand types (see policy.cuh).
/// - Non-finite inputs: a NaN in a[t] or b[t] (or h0) makes h[t] and every later step NaN, and
///   leaves every earlier step as it was, as in the sequential loop. Infinities propagate as in
///   the loop, except that the scan also multiplies a's together: where such a product is
///   infinite (an infinite a, or overflow) and meets a zero (h0 = 0, or a zero a), or underflows
///   to 0 (a few hundred a's of 0.5 in float) and meets an infinite state, the scan gives NaN
///   where the loop, multiplying one a at a time, does not.
/// - In place: h may be the same array as a or as b (same element size); any other overlap with
///   them is an error.
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
template <typename T, typename Policy = auto_policy>
status linear_recurrence(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* a,
                         const T* b, T* h, row_layout layout, const T* h0 = nullptr,
                         T* h_final = nullptr, cudaStream_t stream = nullptr);

/// The same with a and b stored in types of their own, A and B (deduced from the pointers).
/// (The overload above, for one storage type, lets a size query pass nullptr for a and b.)
template <typename T, typename Policy = auto_policy, typename A, typename B>
status linear_recurrence(void* d_temp_storage, std::size_t& temp_storage_bytes, const A* a,
                         const B* b, T* h, row_layout layout, const T* h0 = nullptr,
                         T* h_final = nullptr, cudaStream_t stream = nullptr);

/// The same, with temporary storage taken stream-ordered on `stream` (cudaMallocAsync, then
/// cudaFreeAsync after the work) when the strategy needs any. Arguments are all checked first.
template <typename T, typename Policy = auto_policy>
status linear_recurrence(const T* a, const T* b, T* h, row_layout layout, const T* h0 = nullptr,
                         T* h_final = nullptr, cudaStream_t stream = nullptr);
template <typename T, typename Policy = auto_policy, typename A, typename B>
status linear_recurrence(const A* a, const B* b, T* h, row_layout layout, const T* h0 = nullptr,
                         T* h_final = nullptr, cudaStream_t stream = nullptr);

/// The strategy linear_recurrence<T, Policy> takes for `layout` (for logs, tests and tuning), with
/// a stored as A and b as B.
template <typename T, typename Policy = auto_policy, typename A = T, typename B = T>
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
///     Policy::channel_walk_min_groups groups of the walk's channels; also channel_walk, over
///     narrow groups, for short sequences with at least Policy::channel_narrow_walk_min_groups
///     groups of 8 channels (fp32, at most 4096 steps by default); otherwise
///     strategy::channel_tiles (time cut into chunks carried by decoupled look-back). The same
///     kernels with element-wise accesses serve any other strides: correct, but slower the less
///     contiguous the channels are.
/// - h must give every element its own place (error::h_overlaps_itself otherwise) and may be
///   exactly a or b (same pointer and strides) for in-place use; any other overlap of h with a or
///   b's span is an error, even where the elements would interleave without touching.
/// - Temporary storage, asynchrony and bad input: as for row layouts, with the errors naming the
///   tensor_layout member at fault (negative_batch, negative_stride_a, ...).
template <typename T, typename Policy = auto_policy>
status linear_recurrence(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* a,
                         const T* b, T* h, const tensor_layout& layout, const T* h0 = nullptr,
                         T* h_final = nullptr, cudaStream_t stream = nullptr);
template <typename T, typename Policy = auto_policy, typename A, typename B>
status linear_recurrence(void* d_temp_storage, std::size_t& temp_storage_bytes, const A* a,
                         const B* b, T* h, const tensor_layout& layout, const T* h0 = nullptr,
                         T* h_final = nullptr, cudaStream_t stream = nullptr);

/// The same, with temporary storage taken stream-ordered on `stream` where the path needs any.
template <typename T, typename Policy = auto_policy>
status linear_recurrence(const T* a, const T* b, T* h, const tensor_layout& layout,
                         const T* h0 = nullptr, T* h_final = nullptr, cudaStream_t stream = nullptr);
template <typename T, typename Policy = auto_policy, typename A, typename B>
status linear_recurrence(const A* a, const B* b, T* h, const tensor_layout& layout,
                         const T* h0 = nullptr, T* h_final = nullptr, cudaStream_t stream = nullptr);

/// The strategy linear_recurrence<T, Policy> takes for a tensor layout.
template <typename T, typename Policy = auto_policy, typename A = T, typename B = T>
constexpr strategy chosen_strategy(const tensor_layout& layout) noexcept;

}  // namespace linrec

#include <linrec/detail/linear_recurrence_impl.cuh>
#include <linrec/detail/tensor_recurrence_impl.cuh>
