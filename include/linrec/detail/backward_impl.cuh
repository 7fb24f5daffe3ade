// linrec/detail/backward_impl.cuh — validation and launches behind linear_recurrence_backward: the
// forward's kernels, run over the adjoint problems of adjoint_problem.cuh.
#pragma once

#include <linrec/detail/adjoint_problem.cuh>
#include <linrec/linear_recurrence.cuh>  // the forward's launches, which this reuses
#include <linrec/linear_recurrence_backward.cuh>

#include <cuda_runtime.h>

#include <cstdint>

namespace linrec {
namespace detail {

// Whether two operands' element spans, given as [begin, begin + extent elements), overlap.
template <typename T>
bool spans_overlap(const T* x, std::int64_t x_extent, const T* y, std::int64_t y_extent) noexcept {
  const auto xa = reinterpret_cast<std::uintptr_t>(x), ya = reinterpret_cast<std::uintptr_t>(y);
  return xa < ya + std::uintptr_t(y_extent) * sizeof(T) && ya < xa + std::uintptr_t(x_extent) * sizeof(T);
}

struct backward_operands_extents {
  std::int64_t a, b, h;  // elements spanned with a's, b's and h's strides
};

// The pointer checks of a non-empty backward problem: present, aligned, and da and db apart from
// everything (db may be g itself when it has g's strides: `db_in_place_ok`).
template <typename T>
error validate_backward_pointers(const T* a, const T* h, const T* g, const T* da, const T* db, const T* h0,
                                 const T* g_final, const T* dh0, backward_operands_extents e,
                                 bool db_in_place_ok) noexcept {
  if (a == nullptr) return error::null_a;
  if (h == nullptr) return error::null_h;
  if (g == nullptr) return error::null_g;
  if (da == nullptr) return error::null_da;
  if (db == nullptr) return error::null_db;
  if (misaligned(a)) return error::misaligned_a;
  if (misaligned(h)) return error::misaligned_h;
  if (misaligned(g)) return error::misaligned_g;
  if (misaligned(da)) return error::misaligned_da;
  if (misaligned(db)) return error::misaligned_db;
  if (h0 != nullptr && misaligned(h0)) return error::misaligned_h0;
  if (g_final != nullptr && misaligned(g_final)) return error::misaligned_g_final;
  if (dh0 != nullptr && misaligned(dh0)) return error::misaligned_dh0;
  if (spans_overlap(da, e.a, a, e.a) || spans_overlap(da, e.a, h, e.h) || spans_overlap(da, e.a, g, e.h) ||
      spans_overlap(da, e.a, db, e.b)) {
    return error::da_overlaps;
  }
  if (spans_overlap(db, e.b, a, e.a) || spans_overlap(db, e.b, h, e.h)) return error::db_overlaps;
  if (!(db == g && db_in_place_ok) && spans_overlap(db, e.b, g, e.h)) return error::db_overlaps;
  return error::success;
}

template <typename T>
error validate_backward_arguments(const T* a, const T* h, const T* g, const T* da, const T* db,
                                  const row_layout& layout, const T* h0, const T* g_final, const T* dh0) noexcept {
  if (layout.elements() > 0) {
    const std::int64_t n = extent(layout);
    return validate_backward_pointers(a, h, g, da, db, h0, g_final, dh0, {n, n, n}, true);
  }
  if (g_final != nullptr && misaligned(g_final)) return error::misaligned_g_final;
  if (dh0 != nullptr && misaligned(dh0)) return error::misaligned_dh0;
  return error::success;
}

template <typename T>
error validate_backward_arguments(const T* a, const T* h, const T* g, const T* da, const T* db,
                                  const tensor_layout& l, const T* h0, const T* g_final, const T* dh0) noexcept {
  if (l.elements() > 0) {
    if (!strides_are_injective(l, l.a)) return error::da_overlaps_itself;
    if (!strides_are_injective(l, l.b)) return error::db_overlaps_itself;
    const std::int64_t limit = int64_max / std::int64_t(sizeof(T));
    return validate_backward_pointers(a, h, g, da, db, h0, g_final, dh0,
                                      {checked_extent(l, l.a, limit), checked_extent(l, l.b, limit),
                                       checked_extent(l, l.h, limit)},
                                      l.b == l.h);
  }
  if (g_final != nullptr && misaligned(g_final)) return error::misaligned_g_final;
  if (dh0 != nullptr && misaligned(dh0)) return error::misaligned_dh0;
  return error::success;
}

// Enqueues a validated row problem's backward pass.
template <typename Policy, typename T>
status enqueue_backward(const plan& pl, void* temp, const T* a, const T* h, const T* g, T* da, T* db,
                        const row_layout& layout, const T* h0, const T* g_final, T* dh0, cudaStream_t stream) {
  using Acc = typename Policy::accumulator_type;
  if (layout.rows == 0) return {};
  // No steps: h_final was h0, so dh0 is g_final.
  if (layout.length == 0) return write_initial_as_final(g_final, dh0, layout.rows, stream);
  // The adjoint runs against the forward's direction.
  if (layout.reverse) {
    return enqueue_rows<Policy>(pl, temp,
                                rows_adjoint_problem<T, Acc, false>{a, h, g, da, db, h0, g_final, dh0, layout.rows,
                                                                    layout.length, layout.row_stride},
                                stream);
  }
  return enqueue_rows<Policy>(pl, temp,
                              rows_adjoint_problem<T, Acc, true>{a, h, g, da, db, h0, g_final, dh0, layout.rows,
                                                                 layout.length, layout.row_stride},
                              stream);
}

// The policy the adjoint's channel kernels run under: the forward's, but with the backward
// pass's runs in shared memory (channel_backward_shared_chunks) and without the taller tiles for
// few channel groups (channel_few_groups is forward only: H100, fp32 [1, 2^22, 64], the backward
// pass measured 0.81 of copy with them against 0.85 without).
template <typename Policy>
struct adjoint_policy : Policy {
  static constexpr int channel_steps = Policy::channel_backward_steps;
  static constexpr int channel_shared_chunks = Policy::channel_backward_shared_chunks;
  static constexpr std::int64_t channel_few_groups = 0;
};

// Enqueues a validated tensor problem's backward pass (planned under adjoint_policy<Policy>).
template <typename Policy, typename T>
status enqueue_backward(const tensor_plan& pl, void* temp, const T* a, const T* h, const T* g, T* da, T* db,
                        const tensor_layout& l, const T* h0, const T* g_final, T* dh0, cudaStream_t stream) {
  const bool channels = pl.chosen == strategy::channel_tiles || pl.chosen == strategy::channel_walk;
  if (!channels) {
    return enqueue_backward<row_policy<Policy>>(pl.row_plan, temp, a, h, g, da, db, pl.rows, h0, g_final, dh0,
                                                stream);
  }
  if (l.batch == 0 || l.channels == 0) return {};
  if (l.length == 0) return write_initial_as_final(g_final, dh0, l.batch * l.channels, stream);
  // The adjoint runs against the forward: from the last step unless the forward was reversed.
  tensor_layout walked = l;
  if (!l.reverse) {
    const std::int64_t last = l.length - 1;
    a += last * l.a.time, da += last * l.a.time, db += last * l.b.time;
    h += last * l.h.time, g += last * l.h.time;
    walked.a.time = -l.a.time, walked.b.time = -l.b.time, walked.h.time = -l.h.time;
  }
  const bool vectors = vectors_fit(a, walked.a, walked) && vectors_fit(da, walked.a, walked) &&
                       vectors_fit(db, walked.b, walked) && vectors_fit(h, walked.h, walked) &&
                       vectors_fit(g, walked.h, walked);
  const channel_adjoint_problem<T, typename Policy::accumulator_type> p{
      a, h, g, da, db, h0, g_final, dh0, l.batch, l.length, l.channels, walked.a, walked.b, walked.h, vectors};
  if (pl.chosen == strategy::channel_walk) return launch_channel_walk<adjoint_policy<Policy>>(pl, p, stream);
  return launch_channel_tiles<adjoint_policy<Policy>>(pl, temp, p, stream);
}

// The plan of a backward pass: the forward's for the same layout and types, as the adjoint runs
// the forward's kernels (channel tiles under adjoint_policy).
template <typename T, typename Policy>
plan backward_plan(const row_layout& layout) noexcept {
  using Acc = typename Policy::accumulator_type;
  check_value_types<Acc, T, T, T>();
  return make_plan<Acc, Policy>(layout);
}
template <typename T, typename Policy>
tensor_plan backward_plan(const tensor_layout& layout) noexcept {
  using Acc = typename Policy::accumulator_type;
  check_value_types<Acc, T, T, T>();
  return make_tensor_plan<Acc, vector_width<T>, adjoint_policy<Policy>>(layout);
}

// The two-phase and the allocating entry points, for a row_layout or a tensor_layout.
template <typename T, typename Policy, typename Layout>
status backward_with_temp(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* a, const T* h, const T* g,
                          T* da, T* db, const Layout& layout, const T* h0, const T* g_final, T* dh0,
                          cudaStream_t stream) {
  return run_with_caller_temp(
      d_temp_storage, temp_storage_bytes, validate_layout<T>(layout), [&] { return backward_plan<T, Policy>(layout); },
      [&] { return validate_backward_arguments(a, h, g, da, db, layout, h0, g_final, dh0); },
      [&](const auto& pl, void* temp) {
        return enqueue_backward<Policy>(pl, temp, a, h, g, da, db, layout, h0, g_final, dh0, stream);
      });
}

template <typename T, typename Policy, typename Layout>
status backward_allocating(const T* a, const T* h, const T* g, T* da, T* db, const Layout& layout, const T* h0,
                           const T* g_final, T* dh0, cudaStream_t stream) {
  return run_allocating(
      validate_layout<T>(layout), [&] { return backward_plan<T, Policy>(layout); },
      [&] { return validate_backward_arguments(a, h, g, da, db, layout, h0, g_final, dh0); },
      [&](const auto& pl, void* temp) {
        return enqueue_backward<Policy>(pl, temp, a, h, g, da, db, layout, h0, g_final, dh0, stream);
      },
      stream);
}

}  // namespace detail

template <typename T, typename Policy>
status linear_recurrence_backward(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* a, const T* h,
                                  const T* g, T* da, T* db, row_layout layout, const T* h0, const T* g_final,
                                  T* dh0, cudaStream_t stream) {
  return detail::backward_with_temp<T, Policy>(d_temp_storage, temp_storage_bytes, a, h, g, da, db, layout, h0,
                                               g_final, dh0, stream);
}

template <typename T, typename Policy>
status linear_recurrence_backward(const T* a, const T* h, const T* g, T* da, T* db, row_layout layout, const T* h0,
                                  const T* g_final, T* dh0, cudaStream_t stream) {
  return detail::backward_allocating<T, Policy>(a, h, g, da, db, layout, h0, g_final, dh0, stream);
}

template <typename T, typename Policy>
status linear_recurrence_backward(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* a, const T* h,
                                  const T* g, T* da, T* db, const tensor_layout& layout, const T* h0,
                                  const T* g_final, T* dh0, cudaStream_t stream) {
  return detail::backward_with_temp<T, Policy>(d_temp_storage, temp_storage_bytes, a, h, g, da, db, layout, h0,
                                               g_final, dh0, stream);
}

template <typename T, typename Policy>
status linear_recurrence_backward(const T* a, const T* h, const T* g, T* da, T* db, const tensor_layout& layout,
                                  const T* h0, const T* g_final, T* dh0, cudaStream_t stream) {
  return detail::backward_allocating<T, Policy>(a, h, g, da, db, layout, h0, g_final, dh0, stream);
}

}  // namespace linrec
