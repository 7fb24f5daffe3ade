// tests/common/reference.hpp — the CPU reference for h[t] = a[t] * h[t-1] + b[t] and error metrics.
#pragma once

#include <linrec/row_layout.cuh>

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace linrec::testing {

/// The accumulator the reference uses for T: double for float, long double for double.
template <typename T>
using reference_t = std::conditional_t<std::is_same_v<T, double>, long double, double>;

/// Sequential recurrence over every row of `layout`, carried in Acc, from step 0 up (or from
/// length-1 down when layout.reverse). Gap elements of the output (row_stride > length) are left
/// at zero; `final` gets the state after the row's last step in scan order (or h0 for length 0).
template <typename Acc, typename T>
std::vector<Acc> sequential(const std::vector<T>& a, const std::vector<T>& b, const row_layout& layout,
                            const std::vector<T>& h0, std::vector<Acc>* final = nullptr) {
  std::vector<Acc> h(a.size(), Acc(0));
  if (final != nullptr) final->assign(std::size_t(layout.rows), Acc(0));
  for (std::int64_t r = 0; r < layout.rows; ++r) {
    Acc state = h0.empty() ? Acc(0) : Acc(h0[std::size_t(r)]);
    for (std::int64_t k = 0; k < layout.length; ++k) {
      const std::int64_t t = layout.reverse ? layout.length - 1 - k : k;
      const std::size_t i = std::size_t(r * layout.row_stride + t);
      state = Acc(a[i]) * state + Acc(b[i]);
      h[i] = state;
    }
    if (final != nullptr) (*final)[std::size_t(r)] = state;
  }
  return h;
}

struct error_stats {
  double rel_l2 = 0;   ///< ||x - ref||_2 / ||ref||_2 over the valid elements
  double max_abs = 0;  ///< max |x - ref|
  double ref_max = 0;  ///< max |ref|, to read max_abs on a relative scale
  bool finite = true;  ///< every compared x is finite
};

/// Accumulates error_stats one (x, reference) pair at a time.
class error_accumulator {
 public:
  void add(long double x, long double ref) {
    if (!std::isfinite(static_cast<double>(x))) stats_.finite = false;
    const long double d = x - ref;
    diff2_ += d * d;
    ref2_ += ref * ref;
    stats_.max_abs = std::fmax(stats_.max_abs, static_cast<double>(std::fabs(d)));
    stats_.ref_max = std::fmax(stats_.ref_max, static_cast<double>(std::fabs(ref)));
  }
  error_stats result() const {
    error_stats s = stats_;
    s.rel_l2 = static_cast<double>(ref2_ > 0 ? std::sqrt(diff2_ / ref2_) : std::sqrt(diff2_));
    if (!s.finite) s.rel_l2 = s.max_abs = INFINITY;
    return s;
  }

 private:
  long double diff2_ = 0, ref2_ = 0;
  error_stats stats_;
};

/// Error of `x` against `ref` over the valid elements (r, t < length) of `layout`.
template <typename X, typename R>
error_stats compare(const std::vector<X>& x, const std::vector<R>& ref, const row_layout& layout) {
  error_accumulator acc;
  for (std::int64_t r = 0; r < layout.rows; ++r) {
    for (std::int64_t t = 0; t < layout.length; ++t) {
      const std::size_t i = std::size_t(r * layout.row_stride + t);
      acc.add(x[i], ref[i]);
    }
  }
  return acc.result();
}

}  // namespace linrec::testing
