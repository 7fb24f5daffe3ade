// linrec/detail/tensor_validate.cuh — argument checks for 3-D operands, on the host, before launch.
#pragma once

#include <linrec/detail/validate.cuh>
#include <linrec/status.cuh>
#include <linrec/tensor_layout.cuh>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace linrec::detail {

inline constexpr std::int64_t int64_max = std::numeric_limits<std::int64_t>::max();

// One past the largest element offset of an operand, or -1 if that does not fit below `limit`.
// Sizes are positive and strides non-negative here.
constexpr std::int64_t checked_extent(const tensor_layout& l, const tensor_strides& s,
                                      std::int64_t limit) noexcept {
  const std::int64_t sizes[3] = {l.batch, l.length, l.channels};
  const std::int64_t strides[3] = {s.batch, s.time, s.channel};
  std::int64_t last = 0;
  for (int d = 0; d < 3; ++d) {
    const std::int64_t steps = sizes[d] - 1;
    if (steps > 0 && strides[d] > (limit - last) / steps) return -1;
    last += steps * strides[d];
  }
  return last < limit ? last + 1 : -1;
}

// Whether the strides give every element of a (batch, length, channels) operand its own place.
// Sufficient test (the one PyTorch uses for "non-overlapping"): with the dimensions of more than
// one element ordered by stride, each stride reaches past everything the smaller ones span.
// Strides that interleave without colliding are refused too; no common layout does that.
constexpr bool strides_are_injective(const tensor_layout& l, const tensor_strides& s) noexcept {
  struct dim {
    std::int64_t size, stride;
  };
  dim dims[3] = {{l.batch, s.batch}, {l.length, s.time}, {l.channels, s.channel}};
  // Three elements: a fixed sorting network keeps this constexpr and branch-light.
  const auto order = [](dim& x, dim& y) {
    if (y.stride < x.stride) std::swap(x, y);
  };
  order(dims[0], dims[1]);
  order(dims[1], dims[2]);
  order(dims[0], dims[1]);
  std::int64_t span = 0;  // the largest offset reachable with the smaller-stride dimensions
  for (const dim& d : dims) {
    if (d.size <= 1) continue;
    if (d.stride <= span) return false;
    span += d.stride * (d.size - 1);  // no overflow: checked_extent passed first
  }
  return true;
}

/// Checks sizes and strides alone: what a temporary-storage size query needs. Ts: the operands'
/// storage types (byte extents are checked for the widest).
template <typename... Ts>
constexpr error validate_layout(const tensor_layout& l) noexcept {
  if (l.batch < 0) return error::negative_batch;
  if (l.length < 0) return error::negative_length;
  if (l.channels < 0) return error::negative_channels;
  const auto negative = [](const tensor_strides& s) { return s.batch < 0 || s.time < 0 || s.channel < 0; };
  if (negative(l.a)) return error::negative_stride_a;
  if (negative(l.b)) return error::negative_stride_b;
  if (negative(l.h)) return error::negative_stride_h;
  if (l.batch == 0 || l.length == 0 || l.channels == 0) return error::success;
  // Element counts and every operand's byte extent must fit in 64 bits.
  constexpr std::int64_t limit = int64_max / std::int64_t(std::max({sizeof(Ts)...}));
  if (l.batch > limit / l.length || l.batch * l.length > limit / l.channels) return error::size_overflow;
  for (const tensor_strides* s : {&l.a, &l.b, &l.h}) {
    if (checked_extent(l, *s, limit) < 0) return error::size_overflow;
  }
  if (!strides_are_injective(l, l.h)) return error::h_overlaps_itself;
  return error::success;
}

/// Checks the pointers of a non-empty problem whose layout has passed validate_layout.
/// h may be exactly a or b (same pointer, same strides, same element size): that is in-place use.
template <typename A, typename B, typename H>
error validate_pointers(const A* a, const B* b, const H* h, const tensor_layout& l, const H* h0,
                        const H* h_final) noexcept {
  if (const error e = validate_present_and_aligned(a, b, h, h0, h_final); e != error::success) return e;
  const std::int64_t limit = int64_max / std::int64_t(std::max({sizeof(A), sizeof(B), sizeof(H)}));
  const auto overlap = [&](const auto* x, const tensor_strides& xs) {
    using X = std::remove_cv_t<std::remove_pointer_t<decltype(x)>>;
    const auto xa = reinterpret_cast<std::uintptr_t>(x), ha = reinterpret_cast<std::uintptr_t>(h);
    if (xa == ha && xs == l.h && sizeof(X) == sizeof(H)) return false;  // in place
    const auto x_bytes = std::uintptr_t(checked_extent(l, xs, limit)) * sizeof(X);
    const auto h_bytes = std::uintptr_t(checked_extent(l, l.h, limit)) * sizeof(H);
    return xa < ha + h_bytes && ha < xa + x_bytes;
  };
  if (overlap(a, l.a)) return error::h_overlaps_a;
  if (overlap(b, l.b)) return error::h_overlaps_b;
  return error::success;
}

}  // namespace linrec::detail
