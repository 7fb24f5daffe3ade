// linrec/linear_recurrence_backward.cuh — the backward pass of linear_recurrence: gradients for
// training, in one fused pass.
#pragma once

#include <linrec/linear_recurrence.cuh>
#include <linrec/policy.cuh>
#include <linrec/row_layout.cuh>
#include <linrec/status.cuh>
#include <linrec/tensor_layout.cuh>

#include <cuda_runtime.h>

#include <cstddef>

namespace linrec {

/// Gradients of h = linear_recurrence(a, b, layout, h0) for every row r, given the forward output
/// h, the upstream gradient g = dL/dh (same layout) and, optionally, g_final = dL/dh_final:
///
///     δ[t] = g[t] + a[t+1] δ[t+1],   δ[length-1] = g[length-1] + g_final,
///     db[t] = δ[t],   da[t] = δ[t] h[t-1] (h[-1] = h0, or 0),   dh0 = a[0] δ[0],
///
/// (with `layout.reverse`, the forward ran backwards and every "t+1" above is "t-1": the adjoint
/// always runs against the forward's direction). One pass: a, h and g are read once, da and db
/// written once; the adjoint scan, the shifted reads of a and h and the products are one kernel.
///
/// - T: every operand's storage type, any of linear_recurrence's (float, double, __half,
///   __nv_bfloat16, cuda::std::complex<float>, cuda::std::complex<double>); the adjoint is carried
///   in Policy::accumulator_type (float for the 2-byte types) and each gradient rounded once.
/// - Complex: gradients in PyTorch's convention, dx = dL/dRe(x) + i dL/dIm(x) for a real loss L,
///   so the adjoint runs with conj(a): δ[t] = g[t] + conj(a[t+1]) δ[t+1], da[t] = δ[t] conj(h[t-1]),
///   dh0 = conj(a[0]) δ[0] (for real T, conj is nothing).
/// - a, h, g, da, db: device arrays with the forward's layout; db may be g itself (in place), no
///   other overlap among da, db and the inputs is allowed.
/// - h0: the forward's initial state (null: 0). g_final: null for 0. dh0: null to skip it.
/// - Temporary storage, asynchrony, strategy and errors: as for linear_recurrence (the same
///   layout needs the same temporary storage), with errors naming g, da, db, g_final and dh0.
/// - Chunked: run the chunks from the forward's last to its first, passing each call's dh0 as
///   the g_final of the call for the chunk before it (and that chunk's h_final as h0 of the
///   later one, as in the forward).
template <typename T, typename Policy = default_policy<T>>
status linear_recurrence_backward(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* a, const T* h,
                                  const T* g, T* da, T* db, row_layout layout, const T* h0 = nullptr,
                                  const T* g_final = nullptr, T* dh0 = nullptr, cudaStream_t stream = nullptr);

/// The same, with temporary storage taken stream-ordered on `stream` where the strategy needs any.
template <typename T, typename Policy = default_policy<T>>
status linear_recurrence_backward(const T* a, const T* h, const T* g, T* da, T* db, row_layout layout,
                                  const T* h0 = nullptr, const T* g_final = nullptr, T* dh0 = nullptr,
                                  cudaStream_t stream = nullptr);

/// The backward pass over 3-D operands: da has a's strides (layout.a), db has b's (layout.b), and
/// g has h's (layout.h); h0, g_final and dh0 hold one value per (batch, channel). A broadcast a or
/// b (a zero stride) would need its gradient summed over the broadcast dimension: refused with
/// error::da_overlaps_itself / db_overlaps_itself.
template <typename T, typename Policy = default_policy<T>>
status linear_recurrence_backward(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* a, const T* h,
                                  const T* g, T* da, T* db, const tensor_layout& layout, const T* h0 = nullptr,
                                  const T* g_final = nullptr, T* dh0 = nullptr, cudaStream_t stream = nullptr);

template <typename T, typename Policy = default_policy<T>>
status linear_recurrence_backward(const T* a, const T* h, const T* g, T* da, T* db, const tensor_layout& layout,
                                  const T* h0 = nullptr, const T* g_final = nullptr, T* dh0 = nullptr,
                                  cudaStream_t stream = nullptr);

}  // namespace linrec

#include <linrec/detail/backward_impl.cuh>
