// linrec/row_layout.cuh — the shape of time-contiguous data: rows of `length` steps.
#pragma once

#include <cstdint>

namespace linrec {

/// `rows` independent sequences of `length` steps; element (r, t) of a, b and h is at
/// r * row_stride + t. row_stride ≥ length (rows may have gaps between them, never overlap).
struct row_layout {
  std::int64_t rows = 1;
  std::int64_t length = 0;
  std::int64_t row_stride = 0;

  /// Rows packed back to back: row_stride == length.
  static constexpr row_layout contiguous(std::int64_t rows, std::int64_t length) noexcept {
    return {rows, length, length};
  }
  constexpr std::int64_t elements() const noexcept { return rows * length; }
};

}  // namespace linrec
