// linear_recurrence_backward: gradients against a float64 adjoint reference and against central
// finite differences, on row and tensor layouts, forward and reverse, every strategy.
#include "../common/tensor_support.cuh"

#include <linrec/linear_recurrence.cuh>
#include <linrec/linear_recurrence_backward.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace {

using namespace linrec::testing;
using linrec::row_layout;
using linrec::strategy;
using linrec::tensor_layout;
using linrec::tensor_strides;

// A backward problem: the forward's inputs and layout, its output h (the float64 reference
// rounded to T), an upstream gradient g over h's places and, optionally, g_final.
template <typename T>
struct backward_case {
  tensor_problem<T> forward;
  std::vector<T> h, g, g_final;
};

template <typename T>
backward_case<T> make_case(const tensor_layout& l, a_dist dist = a_dist::half_to_one, bool with_h0 = true,
                           bool with_g_final = true, bool zero_g = false) {
  backward_case<T> c;
  c.forward = random_tensor_problem<T>(l, dist, with_h0);
  const auto h = tensor_sequential<reference_t<T>>(c.forward);
  c.h.assign(h.begin(), h.end());
  std::mt19937_64 rng(c.forward.seed ^ 0x9e3779b97f4a7c15ull);
  std::normal_distribution<double> normal(0.0, 1.0);
  c.g.resize(c.h.size());
  for (T& x : c.g) x = zero_g ? T(0) : T(normal(rng));
  if (with_g_final) {
    c.g_final.resize(std::size_t(l.batch * l.channels));
    for (T& x : c.g_final) x = T(normal(rng));
  }
  return c;
}

template <typename R>
struct gradients {
  std::vector<R> da, db, dh0;  // over a's span, b's span, and batch * channels
};

// The adjoint, sequentially in R: walk each sequence against the forward's direction.
template <typename R, typename T>
gradients<R> reference_gradients(const backward_case<T>& c) {
  const tensor_layout& l = c.forward.layout;
  gradients<R> out;
  out.da.assign(std::size_t(span(l, l.a)), R(0));
  out.db.assign(std::size_t(span(l, l.b)), R(0));
  out.dh0.assign(std::size_t(l.batch * l.channels), R(0));
  const std::int64_t L = l.length;
  const auto at = [&](std::int64_t k) { return l.reverse ? L - 1 - k : k; };  // forward's k-th step
  for (std::int64_t bi = 0; bi < l.batch; ++bi) {
    for (std::int64_t ch = 0; ch < l.channels; ++ch) {
      const std::size_t seq = std::size_t(bi * l.channels + ch);
      const R h0 = c.forward.h0.empty() ? R(0) : R(c.forward.h0[seq]);
      R delta = c.g_final.empty() ? R(0) : R(c.g_final[seq]);
      for (std::int64_t k = L - 1; k >= 0; --k) {
        const std::int64_t t = at(k);
        const R coefficient = k == L - 1 ? R(1) : R(c.forward.a(bi, at(k + 1), ch));
        delta = R(c.g[std::size_t(l.h.offset(bi, t, ch))]) + coefficient * delta;
        const R before = k == 0 ? h0 : R(c.h[std::size_t(l.h.offset(bi, at(k - 1), ch))]);
        out.db[std::size_t(l.b.offset(bi, t, ch))] = delta;
        out.da[std::size_t(l.a.offset(bi, t, ch))] = delta * before;
      }
      out.dh0[seq] = L > 0 ? R(c.forward.a(bi, at(0), ch)) * delta : delta;
    }
  }
  return out;
}

enum class entry { tensor, rows };
enum class launch { direct, graph };  // graph: captured on a stream of its own, then replayed once

// Runs the backward pass with poisoned outputs and garbage temporary storage; `rows` calls the
// row_layout overload (the layout must be one: channels 1, time contiguous, operands alike).
template <typename T, typename Policy = linrec::default_policy<T>>
gradients<T> run_backward(const backward_case<T>& c, entry api = entry::tensor, bool db_is_g = false,
                          launch how = launch::direct) {
  const tensor_layout& l = c.forward.layout;
  const std::size_t finals = std::size_t(l.batch * l.channels);
  device_buffer<T> inputs(c.forward.inputs.size()), h(c.h.size()), g(c.g.size()), da(std::size_t(span(l, l.a))),
      db(std::size_t(span(l, l.b))), h0(c.forward.h0.size()), g_final(c.g_final.size()), dh0(finals);
  inputs.upload(c.forward.inputs);
  h.upload(c.h);
  g.upload(c.g);
  h0.upload(c.forward.h0);
  g_final.upload(c.g_final);
  da.poison();
  db.poison();
  dh0.poison();
  const T* a = inputs.get() + c.forward.a_at;
  T* db_ptr = db_is_g ? g.get() : db.get();
  const T* h0_ptr = c.forward.h0.empty() ? nullptr : h0.get();
  const T* g_final_ptr = c.g_final.empty() ? nullptr : g_final.get();
  const row_layout rows{l.batch, l.length, l.a.batch, l.reverse};
  constexpr bool channel_policy = Policy::forced == strategy::channel_tiles || Policy::forced == strategy::channel_walk;
  const auto call = [&](void* temp, std::size_t& bytes, cudaStream_t stream) {
    if constexpr (!channel_policy) {
      if (api == entry::rows) {
        return linrec::linear_recurrence_backward<T, Policy>(temp, bytes, a, h.get(), g.get(), da.get(), db_ptr, rows,
                                                             h0_ptr, g_final_ptr, dh0.get(), stream);
      }
    }
    return linrec::linear_recurrence_backward<T, Policy>(temp, bytes, a, h.get(), g.get(), da.get(), db_ptr, l, h0_ptr,
                                                         g_final_ptr, dh0.get(), stream);
  };
  std::size_t bytes = 0;
  const linrec::status query = call(nullptr, bytes, nullptr);
  if (!query.ok()) throw std::runtime_error(std::string("size query failed: ") + query.message());
  device_buffer<unsigned char> temp(bytes);
  LINREC_CUDA_CHECK(cudaMemset(temp.get(), 0xab, bytes));
  if (how == launch::direct) {
    const linrec::status s = call(temp.get(), bytes, nullptr);
    if (!s.ok()) throw std::runtime_error(std::string("linear_recurrence_backward failed: ") + s.message());
  } else {
    // The uploads and fills above ran on the legacy stream, which a non-blocking stream does not
    // wait for.
    LINREC_CUDA_CHECK(cudaDeviceSynchronize());
    const stream_owner stream;
    const captured_graph graph(stream.get(), [&](cudaStream_t s) { return call(temp.get(), bytes, s); });
    if (!graph.enqueued().ok()) {
      throw std::runtime_error(std::string("linear_recurrence_backward failed in capture: ") + graph.enqueued().message());
    }
    graph.launch(stream.get());
    LINREC_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  }
  LINREC_CUDA_CHECK(cudaGetLastError());
  LINREC_CUDA_CHECK(cudaDeviceSynchronize());
  return {da.download(), db_is_g ? g.download() : db.download(), dh0.download()};
}

// The gradients against the float64 (long double for fp64) reference, with the same bar as the
// forward tests: twice the error of the same adjoint loop run in T, floored at 8 eps; every named
// element written and, in their own buffers, nothing else.
template <typename T>
void expect_gradients_match(const backward_case<T>& c, const gradients<T>& out, bool db_own_buffer = true,
                            double max_slack = 2) {
  using R = reference_t<T>;
  const tensor_layout& l = c.forward.layout;
  const auto ref = reference_gradients<R>(c);
  const auto loop = reference_gradients<T>(c);
  constexpr double eps = std::numeric_limits<T>::epsilon();
  const auto check = [&](const char* what, const std::vector<T>& x, const std::vector<T>& x_loop,
                         const std::vector<R>& x_ref, const tensor_strides& s, bool own_buffer) {
    error_accumulator device, sequential;
    std::vector<bool> named(x.size(), false);
    std::int64_t unwritten = 0;
    for (std::int64_t bi = 0; bi < l.batch; ++bi) {
      for (std::int64_t t = 0; t < l.length; ++t) {
        for (std::int64_t ch = 0; ch < l.channels; ++ch) {
          const std::size_t i = std::size_t(s.offset(bi, t, ch));
          named[i] = true;
          unwritten += is_poison(x[i]);
          device.add(x[i], x_ref[i]);
          sequential.add(x_loop[i], x_ref[i]);
        }
      }
    }
    std::int64_t touched = 0;
    if (own_buffer) {
      for (std::size_t i = 0; i < x.size(); ++i) touched += !named[i] && !is_poison(x[i]);
    }
    const error_stats d = device.result(), q = sequential.result();
    EXPECT_EQ(unwritten, 0) << what << " elements never written; " << c.forward.describe();
    EXPECT_EQ(touched, 0) << what << " written outside its elements; " << c.forward.describe();
    EXPECT_LE(d.rel_l2, std::max(2 * q.rel_l2, 8 * eps)) << what << "; " << c.forward.describe();
    EXPECT_LE(d.max_abs, std::max(max_slack * q.max_abs, 8 * eps * d.ref_max)) << what << "; " << c.forward.describe();
    return q;
  };
  check("da", out.da, loop.da, ref.da, l.a, true);
  const error_stats db_loop = check("db", out.db, loop.db, ref.db, l.b, db_own_buffer);
  double worst = 0, scale = 0, loop_worst = 0;
  for (std::size_t i = 0; i < ref.dh0.size(); ++i) {
    EXPECT_FALSE(is_poison(out.dh0[i])) << "dh0[" << i << "] unwritten; " << c.forward.describe();
    worst = std::fmax(worst, double(std::fabs(R(out.dh0[i]) - ref.dh0[i])));
    loop_worst = std::fmax(loop_worst, double(std::fabs(R(loop.dh0[i]) - ref.dh0[i])));
    scale = std::fmax(scale, double(std::fabs(ref.dh0[i])));
  }
  // dh0 = conj(a[0]) δ[0] with |a[0]| <= 1 in every case here: its error is at most δ[0]'s plus one
  // rounding, and δ's is checked above against twice the loop's over the whole tensor. That bound
  // is steadier than the loop's own dh0 error, a max over batch × channels values only (10 in
  // one case, where the loop's error fell just under half the device's on a random seed).
  EXPECT_LE(worst, std::max({2 * loop_worst, 2 * db_loop.max_abs + 8 * eps * scale, 8 * eps * std::fmax(scale, 1.0)}))
      << "dh0; " << c.forward.describe();
}

template <typename T, strategy S>
struct forced_policy : linrec::default_policy<T> {
  static constexpr strategy forced = S;
};

// The channel walk staging each thread's tiles in shared memory, two tiles ahead (off by default for these types).
template <typename T>
struct staged_walk : forced_policy<T, strategy::channel_walk> {
  static constexpr bool channel_walk_prefetch = true;
};

// The channel tiles with each thread's run continued in shared memory, one more run of the
// default steps (the backward pass's own count, channel_backward_shared_chunks: it ignores
// channel_shared_chunks and channel_few_groups).
template <typename T>
struct shared_runs_tiles : forced_policy<T, strategy::channel_tiles> {
  static constexpr int channel_backward_shared_chunks = 1;
};

template <typename T>
class backward_test : public gpu_test {
 protected:
  template <typename Policy = linrec::default_policy<T>>
  void check(const tensor_layout& l, a_dist dist = a_dist::half_to_one, bool with_h0 = true, bool with_g_final = true,
             entry api = entry::tensor) {
    const auto c = make_case<T>(l, dist, with_h0, with_g_final);
    expect_gradients_match(c, run_backward<T, Policy>(c, api));
  }
  // Rows of time-contiguous data, as a tensor problem (batch = rows, one channel).
  static tensor_layout rows(std::int64_t n, std::int64_t length, std::int64_t stride, bool reverse = false) {
    tensor_layout l = tensor_layout::uniform(n, length, 1, {stride, 1, 0});
    l.reverse = reverse;
    return l;
  }
};

using value_types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(backward_test, value_types);

// Every row strategy, through the row_layout overload: lengths at warp and tile edges, forward
// and reverse, misaligned rows (scalar paths), with and without h0 / g_final.
TYPED_TEST(backward_test, rows_match_the_float64_adjoint_on_every_strategy) {
  using T = TypeParam;
  for (const bool reverse : {false, true}) {
    for (const std::int64_t length : {std::int64_t(1), std::int64_t(2), std::int64_t(33), std::int64_t(1023),
                                      std::int64_t(4097), std::int64_t(70001)}) {
      SCOPED_TRACE(::testing::Message() << "length " << length << (reverse ? " reverse" : ""));
      const auto contiguous = TestFixture::rows(3, length, length, reverse);
      this->template check<forced_policy<T, strategy::tiled_lookback>>(contiguous, a_dist::half_to_one, true, true, entry::rows);
      this->template check<forced_policy<T, strategy::block_per_row>>(contiguous, a_dist::minus_one_to_one, false, true,
                                                               entry::rows);
      if (length <= 4097) {
        this->template check<forced_policy<T, strategy::warp_per_row>>(contiguous, a_dist::half_to_one, true, false,
                                                                entry::rows);
      }
      const auto padded = TestFixture::rows(5, length, length + 1, reverse);  // rows alternate alignment
      this->template check<forced_policy<T, strategy::tiled_lookback>>(padded, a_dist::long_memory, true, true, entry::rows);
      this->template check<forced_policy<T, strategy::block_per_row>>(padded, a_dist::half_to_one, true, true, entry::rows);
    }
  }
  // Automatic choices: one long row, many rows.
  this->check(TestFixture::rows(1, (1 << 20) + 7, (1 << 20) + 7), a_dist::long_memory, true, true, entry::rows);
  this->check(TestFixture::rows(1500, 700, 700), a_dist::minus_one_to_one, true, true, entry::rows);
  this->check(TestFixture::rows(3000, 100, 100, true), a_dist::half_to_one, false, true, entry::rows);
}

// Channel-last, time-major and time-contiguous tensors, forward and reverse, on both channel
// strategies; a and b as views into one gate tensor (their gradients with the same strides).
TYPED_TEST(backward_test, tensors_match_the_float64_adjoint_on_every_path) {
  using T = TypeParam;
  for (const bool reverse : {false, true}) {
    const auto rev = [&](tensor_layout l) {
      l.reverse = reverse;
      return l;
    };
    for (const std::int64_t length : {std::int64_t(1), std::int64_t(31), std::int64_t(129), std::int64_t(2050)}) {
      SCOPED_TRACE(::testing::Message() << "length " << length << (reverse ? " reverse" : ""));
      this->check(rev(tensor_layout::batch_time_channels(2, length, 64)));
      this->check(rev(tensor_layout::time_batch_channels(3, length, 33)), a_dist::minus_one_to_one, false);
      this->check(rev(tensor_layout::batch_channels_time(2, length, 5)), a_dist::long_memory);
      this->template check<forced_policy<T, strategy::channel_tiles>>(rev(tensor_layout::batch_time_channels(1, length, 1000)));
      this->template check<forced_policy<T, strategy::channel_walk>>(rev(tensor_layout::batch_time_channels(2, length, 67)));
      this->template check<staged_walk<T>>(rev(tensor_layout::batch_time_channels(2, length, 130)));
      this->template check<shared_runs_tiles<T>>(rev(tensor_layout::batch_time_channels(1, length, 1000)));
    }
    this->check(rev(tensor_layout::batch_time_channels(1, (1 << 16) + 5, 64)), a_dist::long_memory);
    // Enough narrow channel groups for the automatic choice to walk them (channel_narrow_walk_*,
    // on by default for fp32 sequences of at most 4096 steps; here for both types).
    using Auto = narrow_walk_everywhere<linrec::default_policy<T>>;
    const auto narrow = tensor_layout::batch_time_channels(
        2, 2 * 1024 + 3, Auto::channel_narrow_walk_min_groups * Auto::channel_narrow_walk_lanes * Auto::vector_items / 2);
    EXPECT_EQ((linrec::chosen_strategy<T, Auto>(narrow)), strategy::channel_walk);
    this->template check<Auto>(rev(narrow), a_dist::minus_one_to_one);
    const std::int64_t B = 2, L = 150, C = 48;
    const tensor_strides gate{L * 2 * C, 2 * C, 1};
    this->check(rev(tensor_layout{B, L, C, gate, gate, {L * C, C, 1}}));
  }
}

class backward_fp64_test : public gpu_test {};

// Central differences in fp64 of L = sum g h + sum g_final h_final, from the forward reference.
TEST_F(backward_fp64_test, gradients_match_finite_differences) {
  for (const bool reverse : {false, true}) {
    auto l = tensor_layout::batch_time_channels(2, 40, 3);
    l.reverse = reverse;
    const auto c = make_case<double>(l, a_dist::minus_one_to_one, true, true);
    const auto out = run_backward<double>(c);
    const auto loss = [&](const tensor_problem<double>& p) {
      std::vector<long double> final;
      const auto h = tensor_sequential<long double>(p, &final);
      long double sum = 0;
      for (std::int64_t bi = 0; bi < l.batch; ++bi)
        for (std::int64_t t = 0; t < l.length; ++t)
          for (std::int64_t ch = 0; ch < l.channels; ++ch) {
            const std::size_t i = std::size_t(l.h.offset(bi, t, ch));
            sum += (long double)c.g[i] * h[i];
          }
      for (std::size_t i = 0; i < final.size(); ++i) sum += (long double)c.g_final[i] * final[i];
      return sum;
    };
    const double step = 1e-6;
    std::mt19937_64 rng(c.forward.seed);
    for (int trial = 0; trial < 12; ++trial) {
      const std::int64_t bi = std::int64_t(rng() % 2), t = std::int64_t(rng() % 40), ch = std::int64_t(rng() % 3);
      for (const bool of_a : {true, false}) {
        auto plus = c.forward, minus = c.forward;
        const std::size_t i = std::size_t((of_a ? c.forward.a_at + l.a.offset(bi, t, ch) : c.forward.b_at + l.b.offset(bi, t, ch)));
        plus.inputs[i] += step;
        minus.inputs[i] -= step;
        const double numeric = double((loss(plus) - loss(minus)) / (2 * step));
        const double analytic = of_a ? out.da[std::size_t(l.a.offset(bi, t, ch))] : out.db[std::size_t(l.b.offset(bi, t, ch))];
        EXPECT_NEAR(analytic, numeric, 1e-6 * (1 + std::fabs(numeric))) << (of_a ? "da" : "db") << " at " << bi << ","
                                                                       << t << "," << ch << "; " << c.forward.describe();
      }
    }
    for (std::size_t s = 0; s < c.forward.h0.size(); ++s) {
      auto plus = c.forward, minus = c.forward;
      plus.h0[s] += step;
      minus.h0[s] -= step;
      const double numeric = double((loss(plus) - loss(minus)) / (2 * step));
      EXPECT_NEAR(out.dh0[s], numeric, 1e-6 * (1 + std::fabs(numeric))) << "dh0[" << s << "]";
    }
  }
}

// Captured into a CUDA graph and replayed: the look-back paths (tile status memset, persistent
// grid) and a block-per-row path, rows and tensors.
TYPED_TEST(backward_test, captured_in_a_cuda_graph) {
  using T = TypeParam;
  const auto rows_case = make_case<T>(TestFixture::rows(2, 30001, 30001));
  expect_gradients_match(rows_case, run_backward<T, forced_policy<T, strategy::tiled_lookback>>(rows_case, entry::rows, false, launch::graph));
  const auto many_rows = make_case<T>(TestFixture::rows(1100, 300, 300));
  expect_gradients_match(many_rows, run_backward<T>(many_rows, entry::rows, false, launch::graph));
  const auto tiles = make_case<T>(tensor_layout::batch_time_channels(1, 3001, 1000));
  expect_gradients_match(tiles, run_backward<T>(tiles, entry::tensor, false, launch::graph));
}

// Only the final state has a gradient (g = 0 everywhere): δ[t] is g_final carried back alone,
// times a product of a's, and the error of a product of n factors is the sum of its n - 1
// roundings in any order of evaluation: the scan's and the loop's errors are alike in size, but
// each sequence's is one random walk shared by all its steps, so the error over a few sequences
// is a sample of a few. Simulated on the host (scripts/product_chain_error.cpp: this chain, a ~
// U(0.999, 1), length 5000, fp32, a blocked scan against the loop), over 4 rows the scan's L2
// error passed twice the loop's in 2 % of seeds, as seen on the H200; over 64 rows its ratio to
// the loop's reached at most 1.44 in 4000 seeds (median 0.74). A max error is always one
// extreme: over 64 rows it passed twice the loop's in 0.5 % of seeds and reached at most 2.97,
// hence the slack of 4 on the max here alone (a missing or repeated factor errs by about 1 - a,
// 5e-4, on every step before it: hundreds of times that).
TYPED_TEST(backward_test, g_final_only) {
  using T = TypeParam;
  for (const auto& l : {TestFixture::rows(64, 5000, 5000), tensor_layout::batch_time_channels(2, 300, 70)}) {
    const auto c = make_case<T>(l, a_dist::long_memory, true, true, /*zero_g=*/true);
    expect_gradients_match(c, run_backward<T>(c), true, /*max_slack=*/4);
  }
}

// db written over g (in place), on rows and on channel-last tensors.
TYPED_TEST(backward_test, db_in_place_over_g) {
  using T = TypeParam;
  for (const auto& l : {TestFixture::rows(3, 10000, 10000), TestFixture::rows(2000, 300, 300),
                        tensor_layout::batch_time_channels(2, 500, 70)}) {
    const auto c = make_case<T>(l);
    expect_gradients_match(c, run_backward<T>(c, entry::tensor, /*db_is_g=*/true), /*db_own_buffer=*/false);
  }
}

// Backward in two calls, the later chunk first: its dh0 is the earlier chunk's g_final, and the
// earlier chunk's final state (the forward's h at the cut) is the later chunk's h0.
TYPED_TEST(backward_test, chunked_backward_equals_one_call) {
  using T = TypeParam;
  for (const auto& whole : {TestFixture::rows(3, 9000, 9000), tensor_layout::batch_time_channels(2, 700, 45)}) {
    const auto c = make_case<T>(whole, a_dist::long_memory);
    const auto one = run_backward<T>(c);
    expect_gradients_match(c, one);
    const std::int64_t split = 2777 % whole.length;
    // The chunks as their own problems: views `split` steps apart in the same buffers.
    backward_case<T> early = c, late = c;
    early.forward.layout.length = split;
    late.forward.layout.length = whole.length - split;
    late.forward.a_at += split * whole.a.time;
    late.forward.b_at += split * whole.b.time;
    late.h.erase(late.h.begin(), late.h.begin() + split * whole.h.time);
    late.g.erase(late.g.begin(), late.g.begin() + split * whole.h.time);
    late.forward.h0.clear();
    for (std::int64_t bi = 0; bi < whole.batch; ++bi)
      for (std::int64_t ch = 0; ch < whole.channels; ++ch)
        late.forward.h0.push_back(c.h[std::size_t(whole.h.offset(bi, split - 1, ch))]);
    const auto out_late = run_backward<T>(late);
    early.g_final = out_late.dh0;
    const auto out_early = run_backward<T>(early);
    // The two calls' gradients, put together, against the float64 adjoint with the usual bar.
    gradients<T> chained{one.da, one.db, out_early.dh0};
    for (T& x : chained.da) std::memset(&x, 0xff, sizeof(T));  // poison: what no call wrote
    for (T& x : chained.db) std::memset(&x, 0xff, sizeof(T));
    for (std::int64_t bi = 0; bi < whole.batch; ++bi) {
      for (std::int64_t t = 0; t < whole.length; ++t) {
        for (std::int64_t ch = 0; ch < whole.channels; ++ch) {
          const std::size_t ia = std::size_t(whole.a.offset(bi, t, ch)), ib = std::size_t(whole.b.offset(bi, t, ch));
          chained.da[ia] = t < split ? out_early.da[ia] : out_late.da[ia - std::size_t(split * whole.a.time)];
          chained.db[ib] = t < split ? out_early.db[ib] : out_late.db[ib - std::size_t(split * whole.b.time)];
        }
      }
    }
    expect_gradients_match(c, chained);
  }
}

TYPED_TEST(backward_test, bad_arguments_are_refused_before_anything_runs) {
  using T = TypeParam;
  const std::int64_t n = 1000;
  device_buffer<T> a(n), h(n), g(n), da(n), db(n), dh0(2);
  std::vector<T> marker(n);
  for (std::int64_t i = 0; i < n; ++i) marker[std::size_t(i)] = T(i) + T(0.25);
  da.upload(marker);
  db.upload(marker);
  const row_layout l = row_layout::contiguous(2, 500);
  std::size_t bytes = 0;
  ASSERT_TRUE(linrec::linear_recurrence_backward<T>(nullptr, bytes, a.get(), h.get(), g.get(), da.get(), db.get(), l).ok());
  device_buffer<unsigned char> temp(bytes);
  const auto run = [&](const T* pa, const T* ph, const T* pg, T* pda, T* pdb) {
    std::size_t b = bytes;
    return linrec::linear_recurrence_backward<T>(temp.get(), b, pa, ph, pg, pda, pdb, l, nullptr, nullptr, dh0.get());
  };
  EXPECT_EQ(run(a.get(), h.get(), nullptr, da.get(), db.get()), linrec::error::null_g);
  EXPECT_EQ(run(a.get(), h.get(), g.get(), nullptr, db.get()), linrec::error::null_da);
  EXPECT_EQ(run(a.get(), h.get(), g.get(), da.get(), nullptr), linrec::error::null_db);
  EXPECT_EQ(run(a.get(), h.get(), g.get(), da.get(), da.get() + 1), linrec::error::da_overlaps);
  EXPECT_EQ(run(a.get(), h.get(), g.get(), db.get(), db.get()), linrec::error::da_overlaps);
  EXPECT_EQ(run(a.get(), h.get(), g.get(), da.get(), const_cast<T*>(h.get())), linrec::error::db_overlaps);
  EXPECT_EQ(run(a.get(), h.get(), g.get(), da.get(), g.get() + 1), linrec::error::db_overlaps);
  EXPECT_EQ(run(a.get(), h.get(), g.get(), const_cast<T*>(a.get()), db.get()), linrec::error::da_overlaps);
  tensor_layout broadcast = tensor_layout::batch_time_channels(2, 10, 50);
  broadcast.a.batch = 0;
  EXPECT_EQ(linrec::linear_recurrence_backward<T>(a.get(), h.get(), g.get(), da.get(), db.get(), broadcast),
            linrec::error::da_overlaps_itself);
  LINREC_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(da.download(), marker);
  EXPECT_EQ(db.download(), marker);
}

}  // namespace
