// Storage and accumulator types: random problems over any (A, B, H) storage mix, run on the device
// with poisoned outputs, against a complex<long double> reference with a per-element bound.
#pragma once

#include "../common/gpu_support.cuh"

#include <linrec/linear_recurrence.cuh>
#include <linrec/value_types.cuh>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace linrec::testing {

using cfloat = cuda::std::complex<float>;
using cdouble = cuda::std::complex<double>;
using ref_t = std::complex<long double>;

template <typename S>
ref_t to_ref(const S& x) {
  if constexpr (is_complex_v<S>) {
    return {static_cast<long double>(x.real()), static_cast<long double>(x.imag())};
  } else if constexpr (std::is_same_v<S, __half>) {
    return {static_cast<long double>(__half2float(x)), 0.0L};
  } else if constexpr (std::is_same_v<S, __nv_bfloat16>) {
    return {static_cast<long double>(__bfloat162float(x)), 0.0L};
  } else {
    return {static_cast<long double>(x), 0.0L};
  }
}

// A value of storage type S from (re, im); real types take re, rounded to nearest.
template <typename S>
S from_double(double re, double im = 0) {
  if constexpr (is_complex_v<S>) {
    return S(typename S::value_type(re), typename S::value_type(im));
  } else if constexpr (std::is_same_v<S, __half>) {
    return __double2half(re);
  } else if constexpr (std::is_same_v<S, __nv_bfloat16>) {
    return __double2bfloat16(re);
  } else {
    return S(re);
  }
}

// S's number format, per real component: `epsilon`, the spacing of its numbers just below 2, and
// `min_normal`, below which the spacing stays that of the lowest binade (subnormals).
struct number_format {
  long double epsilon, min_normal;
};
template <typename S>
constexpr number_format storage_format() {
  using R = typename detail::real_part<S>::type;
  if constexpr (std::is_same_v<R, __half>) {
    return {0x1p-10L, 0x1p-14L};
  } else if constexpr (std::is_same_v<R, __nv_bfloat16>) {
    return {0x1p-7L, 0x1p-126L};
  } else {
    return {std::numeric_limits<R>::epsilon(), std::numeric_limits<R>::min()};
  }
}

// The largest error of rounding a value of magnitude `x` once to S (half an ulp, per component,
// subnormals included; times sqrt 2 for the modulus of a complex error).
template <typename S>
long double rounding_bound(long double x) {
  constexpr number_format format = storage_format<S>();
  if (x == 0) return format.min_normal * format.epsilon / 2;
  const long double binade = std::max(std::exp2(std::floor(std::log2(x))), format.min_normal);
  return binade * format.epsilon / 2 * (is_complex_v<S> ? std::sqrt(2.0L) : 1.0L);
}

enum class coefficients {
  half_to_one,   ///< real a ~ U(0.5, 1); complex |a| ~ U(0.5, 1) with a random phase
  long_memory,   ///< real a ~ U(0.999, 1); complex |a| ~ U(0.999, 1) with a random phase
};

template <typename A, typename B, typename H>
struct typed_problem {
  tensor_layout layout;
  std::vector<A> a;
  std::vector<B> b;
  std::vector<H> h0;  // empty: none
  std::uint64_t seed = 0;

  std::string describe() const {
    std::ostringstream s;
    s << "[" << layout.batch << ", " << layout.length << ", " << layout.channels << "] strides h {" << layout.h.batch
      << ", " << layout.h.time << ", " << layout.h.channel << "}" << (layout.reverse ? " reverse" : "")
      << " h0=" << (h0.empty() ? "no" : "yes") << " seed=" << seed;
    return s.str();
  }
};

inline std::size_t extent(const tensor_layout& l, const tensor_strides& s) {
  if (l.elements() == 0) return 0;
  return std::size_t(s.offset(l.batch - 1, l.length - 1, l.channels - 1) + 1);
}

template <typename A, typename B, typename H>
typed_problem<A, B, H> random_typed_problem(const tensor_layout& l, coefficients kind, bool with_h0,
                                            std::uint64_t seed = fresh_seed()) {
  typed_problem<A, B, H> p{l, {}, {}, {}, seed};
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::normal_distribution<double> normal(0.0, 1.0);
  const double low = kind == coefficients::long_memory ? 0.999 : 0.5;
  p.a.resize(extent(l, l.a));
  p.b.resize(extent(l, l.b));
  for (A& x : p.a) {
    const double r = low + (1 - low) * unit(rng);
    if constexpr (is_complex_v<A>) {
      const double phase = 6.283185307179586 * unit(rng);
      x = from_double<A>(r * std::cos(phase), r * std::sin(phase));
    } else {
      x = from_double<A>(r);
    }
  }
  for (B& x : p.b) x = from_double<B>(normal(rng), normal(rng));
  if (with_h0) {
    p.h0.resize(std::size_t(l.batch * l.channels));
    for (H& x : p.h0) x = from_double<H>(normal(rng), normal(rng));
  }
  return p;
}

template <typename H>
struct typed_result {
  std::vector<H> h, h_final;
};

/// Runs linear_recurrence<H, Policy> with poisoned h and h_final and garbage temporary storage.
template <typename Policy, typename A, typename B, typename H>
typed_result<H> run_typed(const typed_problem<A, B, H>& p) {
  device_buffer<A> a(p.a.size());
  device_buffer<B> b(p.b.size());
  device_buffer<H> h(extent(p.layout, p.layout.h)), h0(p.h0.size()),
      h_final(std::size_t(p.layout.batch * p.layout.channels));
  a.upload(p.a);
  b.upload(p.b);
  h0.upload(p.h0);
  h.poison();
  h_final.poison();
  const H* h0_ptr = p.h0.empty() ? nullptr : h0.get();
  std::size_t bytes = 0;
  status s = linear_recurrence<H, Policy>(nullptr, bytes, a.get(), b.get(), h.get(), p.layout, h0_ptr, h_final.get());
  if (!s.ok()) throw std::runtime_error(std::string("size query failed: ") + s.message());
  device_buffer<unsigned char> temp(bytes);
  LINREC_CUDA_CHECK(cudaMemset(temp.get(), 0xab, bytes));
  s = linear_recurrence<H, Policy>(temp.get(), bytes, a.get(), b.get(), h.get(), p.layout, h0_ptr, h_final.get());
  if (!s.ok()) throw std::runtime_error(std::string("linear_recurrence failed: ") + s.message());
  LINREC_CUDA_CHECK(cudaGetLastError());
  LINREC_CUDA_CHECK(cudaDeviceSynchronize());
  return {h.download(), h_final.download()};
}

/// The sequential recurrence in complex<long double>, and the magnitude it is conditioned by,
/// m[t] = |a[t]| m[t-1] + |b[t]| (m[-1] = |h0|): an accumulator's rounding errors are bounded by
/// a multiple of its epsilon times m. Indexed like h; finals per (batch, channel).
template <typename A, typename B, typename H>
struct typed_reference {
  std::vector<ref_t> h, h_final;
  std::vector<long double> scale, final_scale;
};

// x * y as the library forms it: the plain complex product, and a real product for real values
// (std::complex's would make (inf + 0i)(a + 0i) = inf + NaN i, where the real loop has inf).
inline ref_t reference_multiply(const ref_t& x, const ref_t& y) {
  if (x.imag() == 0 && y.imag() == 0) return {x.real() * y.real(), 0};
  return {x.real() * y.real() - x.imag() * y.imag(), x.real() * y.imag() + x.imag() * y.real()};
}

template <typename A, typename B, typename H>
typed_reference<A, B, H> reference_of(const typed_problem<A, B, H>& p) {
  const tensor_layout& l = p.layout;
  typed_reference<A, B, H> r;
  r.h.assign(extent(l, l.h), ref_t(0));
  r.scale.assign(r.h.size(), 0);
  r.h_final.assign(std::size_t(l.batch * l.channels), ref_t(0));
  r.final_scale.assign(r.h_final.size(), 0);
  for (std::int64_t n = 0; n < l.batch; ++n) {
    for (std::int64_t c = 0; c < l.channels; ++c) {
      const std::size_t seq = std::size_t(n * l.channels + c);
      ref_t state = p.h0.empty() ? ref_t(0) : to_ref(p.h0[seq]);
      long double m = std::abs(state);
      for (std::int64_t k = 0; k < l.length; ++k) {
        const std::int64_t t = l.reverse ? l.length - 1 - k : k;
        const ref_t a = to_ref(p.a[std::size_t(l.a.offset(n, t, c))]);
        const ref_t b = to_ref(p.b[std::size_t(l.b.offset(n, t, c))]);
        state = reference_multiply(a, state) + b;
        m = std::abs(a) * m + std::abs(b);
        const auto i = std::size_t(l.h.offset(n, t, c));
        r.h[i] = state;
        r.scale[i] = m;
      }
      r.h_final[seq] = state;
      r.final_scale[seq] = m;
    }
  }
  return r;
}

/// Roundings an accumulator's error may take, as a multiple of its epsilon times the magnitude m:
/// the scan composes each output from at most log2(length) tree levels plus a thread's items and
/// a look-back chain over up to length / 4096 tiles, whose errors add like a random walk. This
/// is loose against a correct scan (whose error measures a few epsilons of m) and still a
/// hundred times below the error of a scan carried in bf16 or fp16 itself.
inline long double accumulator_roundings(std::int64_t length) {
  const long double n = static_cast<long double>(std::max<std::int64_t>(length, 2));
  return 32 + 8 * (std::log2(n) + std::sqrt(n / 4096));
}

/// Checks outputs stored as S one at a time: never written (still poison), or farther from the
/// exact value than rounding it once to S plus `acc_bound` times the magnitude it is conditioned
/// by. A non-finite exact value must be matched in kind: a NaN for a NaN, the same infinity.
template <typename S>
struct bound_check {
  long double acc_bound;
  std::int64_t unwritten = 0, over = 0;
  long double worst_ratio = 0;  // error / bound
  std::string first_over;       // the first output outside, described

  explicit bound_check(long double acc) : acc_bound(acc) {}

  void operator()(const S& x, const ref_t& exact, long double scale, const char* what, std::size_t i) {
    if (is_poison(x)) {
      ++unwritten;
      return;
    }
    const ref_t got = to_ref(x);
    // Described only for the first output outside, so the check costs nothing per element.
    const auto describe = [&](const std::string& against) {
      std::ostringstream message;
      message << what << "[" << i << "] = (" << got.real() << ", " << got.imag() << ")" << against;
      first_over = message.str();
    };
    if (!std::isfinite(exact.real()) || !std::isfinite(exact.imag())) {
      // Non-finite inputs: a NaN where the loop has one, the same infinity where it has one.
      const bool nan_expected = std::isnan(exact.real()) || std::isnan(exact.imag());
      const bool matches = nan_expected ? std::isnan(got.real()) || std::isnan(got.imag()) : got == exact;
      if (!matches && over++ == 0) {
        std::ostringstream against;
        against << " where the loop has (" << exact.real() << ", " << exact.imag() << ")";
        describe(against.str());
      }
      return;
    }
    const long double err = std::abs(got - exact);
    const long double bound = rounding_bound<S>(std::abs(exact)) + acc_bound * scale;
    const long double ratio = bound > 0 ? err / bound : (err > 0 ? INFINITY : 0);
    worst_ratio = std::fmax(worst_ratio, std::isnan(ratio) ? INFINITY : ratio);
    if (!(err <= bound) && over++ == 0) {
      std::ostringstream against;
      against << " against (" << exact.real() << ", " << exact.imag() << "), error " << double(err) << " > bound "
              << double(bound);
      describe(against.str());
    }
  }
};

/// Every h and h_final written, and each within the error of rounding the exact result once to H
/// plus the accumulator's roundings: the bf16 and fp16 bound does not grow with the length.
template <typename Acc, typename A, typename B, typename H>
void expect_typed_matches(const typed_problem<A, B, H>& p, const typed_result<H>& out) {
  const tensor_layout& l = p.layout;
  const typed_reference<A, B, H> ref = reference_of(p);
  using R = typename detail::real_part<Acc>::type;
  const long double acc_bound = accumulator_roundings(l.length) * std::numeric_limits<R>::epsilon();
  bound_check<H> check(acc_bound);
  for (std::int64_t n = 0; n < l.batch; ++n) {
    for (std::int64_t t = 0; t < l.length; ++t) {
      for (std::int64_t c = 0; c < l.channels; ++c) {
        const auto i = std::size_t(l.h.offset(n, t, c));
        check(out.h[i], ref.h[i], ref.scale[i], "h", i);
      }
    }
  }
  for (std::size_t s = 0; s < ref.h_final.size(); ++s) check(out.h_final[s], ref.h_final[s], ref.final_scale[s], "h_final", s);
  EXPECT_EQ(check.unwritten, 0) << "outputs never written; " << p.describe();
  EXPECT_EQ(check.over, 0) << "outputs outside rounding-once + accumulator bound; first: " << check.first_over << "; "
                           << p.describe();
  EXPECT_LE(check.worst_ratio, 1.0L) << p.describe();
}

template <typename Base, strategy S>
struct forced_typed_policy : Base {
  static constexpr strategy forced = S;
};

/// Tiles taller than a warp holds rows, whose rows scan by warps (channel_tile_scan): the walk
/// over narrow channel groups of `Lanes` lanes (forced_narrow_walk) and channel tiles of 512
/// threads.
template <typename Base>
struct tall_tiles_typed_policy : Base {
  static constexpr strategy forced = strategy::channel_tiles;
  static constexpr int channel_threads = 512;
  static constexpr int channel_steps = std::max(1, Base::channel_steps / 2);
  // At most one run in shared memory: the 2-byte default's three (192 KB of stages) and the
  // kernel's 41 KB of static shared memory at 512 threads (ptxas, bf16) pass an SM's 227 KB.
  static constexpr int channel_shared_chunks = std::min(Base::channel_shared_chunks, 1);
};

template <typename A, typename B, typename H, int Lanes>
void check_tiles_taller_than_a_warp() {
  using Base = default_policy<H, A, B>;
  using Acc = typename Base::accumulator_type;
  using walk = forced_narrow_walk<Base, Lanes>;
  using tiles = tall_tiles_typed_policy<Base>;
  const auto run = [](auto policy, const tensor_layout& l, bool h0) {
    using P = decltype(policy);
    const auto p = random_typed_problem<A, B, H>(l, coefficients::half_to_one, h0);
    expect_typed_matches<Acc>(p, run_typed<P>(p));
  };
  constexpr std::int64_t walk_steps = walk::channel_walk_steps * (walk::channel_walk_threads / Lanes);
  for (const bool reverse : {false, true}) {
    const auto dir = [&](tensor_layout l) { return reverse ? l.reversed() : l; };
    for (const std::int64_t length : {std::int64_t(1), walk_steps - 1, walk_steps + 1, 3 * walk_steps + 5}) {
      run(walk{}, dir(tensor_layout::batch_time_channels(2, length, 136)), true);
    }
    run(walk{}, dir(tensor_layout::time_batch_channels(2, 700, 130)), false);
    run(tiles{}, dir(tensor_layout::batch_time_channels(3, 3001, 77)), true);
  }
}

/// Channel tiles whose threads continue their runs in shared memory (channel_shared_chunks
/// runs of the default steps), with or without asking L2 for the tiles a round of the grid ahead:
/// chunk edges, reverse, time-major and element-wise paths.
template <typename Base, int Chunks, int PrefetchRounds>
struct shared_runs_typed_policy : Base {
  static constexpr strategy forced = strategy::channel_tiles;
  static constexpr int channel_shared_chunks = Chunks;
  static constexpr int channel_prefetch_rounds = PrefetchRounds;
  static constexpr std::int64_t channel_few_groups = 0;  // these runs for every shape
};

template <typename A, typename B, typename H, int Chunks,
          int PrefetchRounds = default_policy<H, A, B>::channel_prefetch_rounds>
void check_tiles_with_shared_runs() {
  using Base = default_policy<H, A, B>;
  using Acc = typename Base::accumulator_type;
  using P = shared_runs_typed_policy<Base, Chunks, PrefetchRounds>;
  const auto run = [](const tensor_layout& l, bool h0) {
    const auto p = random_typed_problem<A, B, H>(l, coefficients::half_to_one, h0);
    expect_typed_matches<Acc>(p, run_typed<P>(p));
  };
  constexpr std::int64_t steps = std::int64_t(P::channel_threads / 8) * P::channel_steps * (1 + Chunks);  // 8 lanes
  for (const bool reverse : {false, true}) {
    const auto dir = [&](tensor_layout l) { return reverse ? l.reversed() : l; };
    for (const std::int64_t length : {std::int64_t(1), steps - 1, steps, steps + 1, 3 * steps + 5}) {
      SCOPED_TRACE(::testing::Message() << "length " << length << (reverse ? " reverse" : ""));
      run(dir(tensor_layout::batch_time_channels(2, length, 136)), true);
    }
    run(dir(tensor_layout::time_batch_channels(2, 3001, 130)), false);
    run(dir(tensor_layout::batch_time_channels(1, 20011, 1000)), true);
  }
}

/// The shapes every storage mix runs: each strategy, forward and reverse, rows whose starts are
/// not 16-byte aligned, and channel groups cut by the channel count.
template <typename A, typename B, typename H, typename Base = default_policy<H, A, B>>
void check_every_strategy() {
  using Acc = typename Base::accumulator_type;
  const auto run = [](auto policy, const tensor_layout& l, bool h0) {
    using P = decltype(policy);
    const auto p = random_typed_problem<A, B, H>(l, coefficients::half_to_one, h0);
    expect_typed_matches<Acc>(p, run_typed<P>(p));
  };
  using warp = forced_typed_policy<Base, strategy::warp_per_row>;
  using block = forced_typed_policy<Base, strategy::block_per_row>;
  using lookback = forced_typed_policy<Base, strategy::tiled_lookback>;
  using tiles = forced_typed_policy<Base, strategy::channel_tiles>;
  using walk = forced_typed_policy<Base, strategy::channel_walk>;
  for (const bool reverse : {false, true}) {
    const auto dir = [&](tensor_layout l) { return reverse ? l.reversed() : l; };
    run(warp{}, dir(tensor_layout::batch_channels_time(3, 200, 5)), true);
    run(block{}, dir(tensor_layout::batch_channels_time(2, 5001, 3)), true);
    run(lookback{}, dir(tensor_layout::batch_channels_time(1, 70001, 2)), false);
    // Rows 9003 elements apart: for the types narrower than 16 bytes, no later row starts 16-byte aligned.
    run(lookback{}, dir(tensor_layout::uniform(1, 9001, 3, {0, 1, 9003})), true);
    run(tiles{}, dir(tensor_layout::batch_time_channels(3, 1000, 77)), true);
    run(walk{}, dir(tensor_layout::time_batch_channels(2, 700, 130)), false);
    // 136 channels: whole, 16-byte aligned channel groups (staged, for the 2-byte types) and a ragged one.
    run(walk{}, dir(tensor_layout::batch_time_channels(2, 700, 136)), true);
  }
  run(Base{}, tensor_layout::batch_time_channels(1, 1, 1), true);
  run(Base{}, tensor_layout::batch_channels_time(1, 1, 1), false);
}

}  // namespace linrec::testing
