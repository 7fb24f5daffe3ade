// tests/common/problems.hpp — random inputs: fresh seeds, the distributions the accuracy figures use.
#pragma once

#include <linrec/row_layout.cuh>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace linrec::testing {

/// Distributions of a; b is always N(0, 1).
enum class a_dist {
  half_to_one,         ///< U(0.5, 1): short memory
  minus_one_to_one,    ///< U(-1, 1): sign changes
  long_memory,         ///< U(0.999, 1)
  slightly_above_one,  ///< ±U(1, 1.001), random sign: growing; for short rows only
};

inline const char* name(a_dist d) {
  switch (d) {
    case a_dist::half_to_one: return "U(0.5,1)";
    case a_dist::minus_one_to_one: return "U(-1,1)";
    case a_dist::long_memory: return "U(0.999,1)";
    case a_dist::slightly_above_one: return "+-U(1,1.001)";
  }
  return "?";
}

/// A fresh seed for every problem, so every run checks new data; tests print it on failure.
inline std::uint64_t fresh_seed() {
  static std::random_device device;
  return (std::uint64_t(device()) << 32) ^ device();
}

template <typename T>
struct host_problem {
  row_layout layout;
  std::vector<T> a, b;  // extent (rows-1)*row_stride + length, gaps filled too
  std::vector<T> h0;    // empty: no h0
  std::uint64_t seed = 0;

  std::size_t extent() const { return a.size(); }
  std::string describe() const {
    return "rows=" + std::to_string(layout.rows) + " length=" + std::to_string(layout.length) +
           " row_stride=" + std::to_string(layout.row_stride) +
           (layout.reverse ? " reverse" : "") + " h0=" + (h0.empty() ? "no" : "yes") +
           " seed=" + std::to_string(seed);
  }
};

template <typename T>
host_problem<T> random_problem(row_layout layout, a_dist dist = a_dist::half_to_one,
                               bool with_h0 = false, std::uint64_t seed = fresh_seed()) {
  host_problem<T> p;
  p.layout = layout;
  p.seed = seed;
  const std::size_t n =
      layout.rows > 0 && layout.length > 0 ? std::size_t((layout.rows - 1) * layout.row_stride + layout.length) : 0;
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  p.a.resize(n);
  p.b.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double u = unit(rng);
    double a = 0;
    switch (dist) {
      case a_dist::half_to_one: a = 0.5 + 0.5 * u; break;
      case a_dist::minus_one_to_one: a = -1.0 + 2.0 * u; break;
      case a_dist::long_memory: a = 0.999 + 0.001 * u; break;
      case a_dist::slightly_above_one: a = (unit(rng) < 0.5 ? -1.0 : 1.0) * (1.0 + 0.001 * u); break;
    }
    p.a[i] = T(a);
    p.b[i] = T(normal(rng));
  }
  if (with_h0) {
    p.h0.resize(std::size_t(layout.rows));
    for (auto& x : p.h0) x = T(normal(rng));
  }
  return p;
}

}  // namespace linrec::testing
