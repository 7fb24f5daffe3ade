// tests/common/tensor_problems.hpp — random 3-D problems with any strides, their float64 reference,
// and error metrics over the elements the layout names.
#pragma once

#include "problems.hpp"
#include "reference.hpp"

#include <linrec/tensor_layout.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace linrec::testing {

/// One past the largest offset of an operand with these strides (0 for an empty problem).
inline std::int64_t span(const tensor_layout& l, const tensor_strides& s) {
  if (l.elements() == 0) return 0;
  return s.offset(l.batch - 1, l.length - 1, l.channels - 1) + 1;
}

/// a and b are views into one input buffer: back to back, or interleaved as in a fused gate
/// tensor [batch, time, 2 * channels] whose first half of channels is a and second half is b.
template <typename T>
struct tensor_problem {
  tensor_layout layout;
  std::vector<T> inputs;
  std::int64_t a_at = 0, b_at = 0;  // where a and b start in `inputs`
  std::vector<T> h0;                // batch * channels, or empty
  std::uint64_t seed = 0;

  T a(std::int64_t bi, std::int64_t t, std::int64_t c) const {
    return inputs[std::size_t(a_at + layout.a.offset(bi, t, c))];
  }
  T b(std::int64_t bi, std::int64_t t, std::int64_t c) const {
    return inputs[std::size_t(b_at + layout.b.offset(bi, t, c))];
  }
  std::string describe() const {
    const auto str = [](const tensor_strides& s) {
      return "(" + std::to_string(s.batch) + "," + std::to_string(s.time) + "," + std::to_string(s.channel) + ")";
    };
    return "batch=" + std::to_string(layout.batch) + " length=" + std::to_string(layout.length) +
           " channels=" + std::to_string(layout.channels) + " a" + str(layout.a) + "@" + std::to_string(a_at) +
           " b" + str(layout.b) + "@" + std::to_string(b_at) + " h" + str(layout.h) +
           (layout.reverse ? " reverse" : "") + " h0=" + (h0.empty() ? "no" : "yes") + " seed=" + std::to_string(seed);
  }
};

/// Random inputs for `layout`; b starts at `b_at` in the input buffer, or right after a's span
/// when b_at < 0. Every element the layout names is drawn: a from `dist`, b from N(0, 1).
template <typename T>
tensor_problem<T> random_tensor_problem(const tensor_layout& layout, a_dist dist = a_dist::half_to_one,
                                        bool with_h0 = true, std::int64_t b_at = -1,
                                        std::uint64_t seed = fresh_seed()) {
  tensor_problem<T> p;
  p.layout = layout;
  p.seed = seed;
  p.b_at = b_at >= 0 ? b_at : span(layout, layout.a);
  p.inputs.assign(std::size_t(std::max(span(layout, layout.a), p.b_at + span(layout, layout.b))), T(0));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::normal_distribution<double> normal(0.0, 1.0);
  const auto draw_a = [&]() -> T {
    switch (dist) {
      case a_dist::half_to_one: return T(0.5 + 0.5 * unit(rng));
      case a_dist::minus_one_to_one: return T(2 * unit(rng) - 1);
      case a_dist::long_memory: return T(0.999 + 0.001 * unit(rng));
      case a_dist::slightly_above_one: return T((unit(rng) < 0.5 ? -1 : 1) * (1 + 0.001 * unit(rng)));
    }
    return T(0);
  };
  for (T& x : p.inputs) x = T(normal(rng));  // b's elements, and whatever lies between
  for (std::int64_t bi = 0; bi < layout.batch; ++bi) {
    for (std::int64_t t = 0; t < layout.length; ++t) {
      for (std::int64_t c = 0; c < layout.channels; ++c) p.inputs[std::size_t(layout.a.offset(bi, t, c))] = draw_a();
    }
  }
  if (with_h0) {
    p.h0.resize(std::size_t(layout.batch * layout.channels));
    for (T& x : p.h0) x = T(normal(rng));
  }
  return p;
}

/// The recurrence along time for every (batch, channel), in Acc, at h's offsets (backwards in time
/// when layout.reverse); `final` gets one value per (batch, channel).
template <typename Acc, typename T>
std::vector<Acc> tensor_sequential(const tensor_problem<T>& p, std::vector<Acc>* final = nullptr) {
  const tensor_layout& l = p.layout;
  std::vector<Acc> h(std::size_t(span(l, l.h)), Acc(0));
  if (final != nullptr) final->assign(std::size_t(l.batch * l.channels), Acc(0));
  for (std::int64_t bi = 0; bi < l.batch; ++bi) {
    for (std::int64_t c = 0; c < l.channels; ++c) {
      Acc state = p.h0.empty() ? Acc(0) : Acc(p.h0[std::size_t(bi * l.channels + c)]);
      for (std::int64_t k = 0; k < l.length; ++k) {
        const std::int64_t t = l.reverse ? l.length - 1 - k : k;
        state = Acc(p.a(bi, t, c)) * state + Acc(p.b(bi, t, c));
        h[std::size_t(l.h.offset(bi, t, c))] = state;
      }
      if (final != nullptr) (*final)[std::size_t(bi * l.channels + c)] = state;
    }
  }
  return h;
}

/// Error of x against ref over h's elements.
template <typename X, typename R>
error_stats tensor_compare(const std::vector<X>& x, const std::vector<R>& ref, const tensor_layout& l) {
  error_accumulator acc;
  for (std::int64_t bi = 0; bi < l.batch; ++bi) {
    for (std::int64_t t = 0; t < l.length; ++t) {
      for (std::int64_t c = 0; c < l.channels; ++c) {
        const std::size_t i = std::size_t(l.h.offset(bi, t, c));
        acc.add(x[i], ref[i]);
      }
    }
  }
  return acc.result();
}

}  // namespace linrec::testing
