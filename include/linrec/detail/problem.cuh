// linrec/detail/problem.cuh — the arguments every kernel takes, as one value.
#pragma once

#include <linrec/affine.cuh>
#include <linrec/detail/tile_io.cuh>

#include <cstdint>

namespace linrec::detail {

/// Rows of time-contiguous data: element (r, t) at r * row_stride + t.
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

  // The prefix a row starts from: the map x -> h0, so that the b-part of every inclusive prefix
  // is the recurrence's h directly.
  __device__ __forceinline__ affine<T> seed(std::int64_t row) const {
    return {T(0), h0 != nullptr ? h0[row] : T(0)};
  }
  // Whether 16-byte vectors may be used for a run of elements that starts at `offset`.
  __device__ __forceinline__ bool vector_ok(std::int64_t offset) const {
    return aligned16(a + offset) && aligned16(b + offset) && aligned16(h + offset);
  }
};

}  // namespace linrec::detail
