// linrec/detail/validate.cuh — argument checks, done on the host before anything is launched.
#pragma once

#include <linrec/row_layout.cuh>
#include <linrec/status.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace linrec::detail {

/// Checks the sizes alone: what a temporary-storage size query needs. Ts: the operands' storage
/// types (byte offsets are checked for the widest).
template <typename... Ts>
constexpr error validate_layout(const row_layout& layout) noexcept {
  if (layout.rows < 0) return error::negative_rows;
  if (layout.length < 0) return error::negative_length;
  if (layout.row_stride < layout.length) return error::row_stride_less_than_length;
  if (layout.rows > 0 && layout.length > 0) {
    // The last element sits at (rows - 1) * row_stride + length - 1; its byte offset must fit.
    constexpr std::int64_t max_elements =
        std::numeric_limits<std::int64_t>::max() / std::int64_t(std::max({sizeof(Ts)...}));
    if (layout.rows - 1 > (max_elements - layout.length) / layout.row_stride) return error::size_overflow;
  }
  return error::success;
}

/// The number of elements a, b and h span.
constexpr std::int64_t extent(const row_layout& layout) noexcept {
  return (layout.rows - 1) * layout.row_stride + layout.length;
}

template <typename T>
bool misaligned(const T* p) noexcept {
  return reinterpret_cast<std::uintptr_t>(p) % alignof(T) != 0;
}

// Two arrays of `elements` elements each overlap without being the same array: the same address
// and the same element size, so element i of one is element i of the other (in place).
template <typename X, typename Y>
bool partially_overlap(const X* x, const Y* y, std::int64_t elements) noexcept {
  const auto xa = reinterpret_cast<std::uintptr_t>(x);
  const auto ya = reinterpret_cast<std::uintptr_t>(y);
  const auto x_bytes = static_cast<std::uintptr_t>(elements) * sizeof(X);
  const auto y_bytes = static_cast<std::uintptr_t>(elements) * sizeof(Y);
  const bool same_array = xa == ya && sizeof(X) == sizeof(Y);
  return !same_array && xa < ya + y_bytes && ya < xa + x_bytes;
}

/// The checks every layout shares: no null operand, every pointer aligned to its element.
template <typename A, typename B, typename H>
error validate_present_and_aligned(const A* a, const B* b, const H* h, const H* h0, const H* h_final) noexcept {
  if (a == nullptr) return error::null_a;
  if (b == nullptr) return error::null_b;
  if (h == nullptr) return error::null_h;
  if (misaligned(a)) return error::misaligned_a;
  if (misaligned(b)) return error::misaligned_b;
  if (misaligned(h)) return error::misaligned_h;
  if (h0 != nullptr && misaligned(h0)) return error::misaligned_h0;
  if (h_final != nullptr && misaligned(h_final)) return error::misaligned_h_final;
  return error::success;
}

/// Checks the pointers of a non-empty problem whose layout has passed validate_layout.
template <typename A, typename B, typename H>
error validate_pointers(const A* a, const B* b, const H* h, const row_layout& layout, const H* h0,
                        const H* h_final) noexcept {
  if (const error e = validate_present_and_aligned(a, b, h, h0, h_final); e != error::success) return e;
  const std::int64_t elements = extent(layout);
  if (partially_overlap(h, a, elements)) return error::h_overlaps_a;
  if (partially_overlap(h, b, elements)) return error::h_overlaps_b;
  return error::success;
}

}  // namespace linrec::detail
