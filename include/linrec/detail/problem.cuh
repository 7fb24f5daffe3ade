// linrec/detail/problem.cuh — the arguments every kernel takes, as one value.
#pragma once

#include <linrec/affine.cuh>
#include <linrec/detail/tile_io.cuh>

#include <cstdint>

namespace linrec::detail {

/// Rows of time-contiguous data: element (r, t) at r * row_stride + t, scanned from t = 0 up, or
/// from t = length - 1 down when `reverse`.
template <typename T>
struct rows_problem {
  const T* a;
  const T* b;
  T* h;
  const T* h0;    // may be null: h[-1] = 0
  T* h_final;     // may be null
  std::int64_t rows;
  std::int64_t length;
  std::int64_t row_stride;
  bool reverse;

  __device__ __forceinline__ time_direction direction() const { return {reverse}; }
  // Where the row's step s lies, counting steps in scan order.
  __device__ __forceinline__ std::int64_t offset(std::int64_t row, std::int64_t step) const {
    return row * row_stride + (reverse ? length - 1 - step : step);
  }

  // The prefix a row starts from: the map x -> h0, so that the b-part of every inclusive prefix
  // is the recurrence's h directly.
  __device__ __forceinline__ affine<T> seed(std::int64_t row) const {
    return {T(0), h0 != nullptr ? h0[row] : T(0)};
  }
  // Whether 16-byte vectors may be used for a run of steps whose first lies at `offset`: the run's
  // first vector starts there going forward, and ends there going backward.
  __device__ __forceinline__ bool vector_ok(std::int64_t offset) const {
    const std::int64_t start = reverse ? offset + 1 : offset;
    return aligned16(a + start) && aligned16(b + start) && aligned16(h + start);
  }
};

}  // namespace linrec::detail
