// linrec/row_layout.cuh — the shape of time-contiguous data: rows of `length` steps.
#pragma once

#include <cstdint>

namespace linrec {

/// `rows` independent sequences of `length` steps; element (r, t) of a, b and h is at
/// r * row_stride + t. row_stride ≥ length (rows may have gaps between them, never overlap).
///
/// `reverse` runs every row backwards in time, from its last step to its first:
/// h[t] = a[t] * h[t+1] + b[t], with h0 the state after the last step (h[length]) and h_final the
/// state h[0]. The data stays where it is: no flipped copies.
struct row_layout {
  std::int64_t rows = 1;
  std::int64_t length = 0;
  std::int64_t row_stride = 0;
  bool reverse = false;

  /// Rows packed back to back: row_stride == length.
  static constexpr row_layout contiguous(std::int64_t rows, std::int64_t length) noexcept {
    return {rows, length, length};
  }
  /// The same layout, scanned backwards in time.
  constexpr row_layout reversed() const noexcept { return {rows, length, row_stride, true}; }
  constexpr std::int64_t elements() const noexcept { return rows * length; }
};

}  // namespace linrec
