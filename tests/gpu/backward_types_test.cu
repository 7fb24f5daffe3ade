// The backward pass in bf16, fp16 and complex storage: against a complex<long double> adjoint with
// the forward's per-element bound, and, for complex, PyTorch's gradient convention checked by
// finite differences: da = dL/dRe(a) + i dL/dIm(a) for a real loss L, given g = dL/dRe(h) + i dL/dIm(h).
#include "typed_cases.cuh"

#include <linrec/linear_recurrence_backward.cuh>

namespace linrec::testing {
namespace {

class backward_types_test : public gpu_test {};

template <typename T>
struct backward_case {
  tensor_layout layout;
  std::vector<T> a, h, g, h0, g_final;
};

// The adjoint in complex<long double>, from the stored a, h and g:
// δ[t] = g[t] + conj(a[t+1]) δ[t+1], db = δ, da[t] = δ[t] conj(h[t-1]), dh0 = conj(a[0]) δ[0],
// with the magnitude m its rounding errors scale with.
template <typename T>
void reference_adjoint(const backward_case<T>& c, std::vector<ref_t>& da, std::vector<ref_t>& db,
                       std::vector<ref_t>& dh0, std::vector<long double>& scale_a, std::vector<long double>& scale_b,
                       std::vector<long double>& scale_h0) {
  const tensor_layout& l = c.layout;
  da.assign(c.a.size(), 0), db.assign(c.a.size(), 0), scale_a.assign(c.a.size(), 0), scale_b.assign(c.a.size(), 0);
  dh0.assign(std::size_t(l.batch * l.channels), 0), scale_h0.assign(dh0.size(), 0);
  for (std::int64_t n = 0; n < l.batch; ++n) {
    for (std::int64_t ch = 0; ch < l.channels; ++ch) {
      const std::size_t seq = std::size_t(n * l.channels + ch);
      ref_t delta = c.g_final.empty() ? ref_t(0) : to_ref(c.g_final[seq]);
      long double m = std::abs(delta);
      // The adjoint's first step has coefficient 1: δ[last] = g[last] + g_final.
      ref_t a_next = 1;
      long double a_next_abs = 1;
      for (std::int64_t k = 0; k < l.length; ++k) {  // the adjoint's order: the forward's last step first
        const std::int64_t t = l.reverse ? k : l.length - 1 - k;
        const auto i = std::size_t(l.h.offset(n, t, ch));
        delta = std::conj(a_next) * delta + to_ref(c.g[i]);
        m = a_next_abs * m + std::abs(to_ref(c.g[i]));
        const std::int64_t before = l.reverse ? t + 1 : t - 1;
        const ref_t h_before = before >= 0 && before < l.length ? to_ref(c.h[std::size_t(l.h.offset(n, before, ch))])
                               : c.h0.empty()                   ? ref_t(0)
                                                                : to_ref(c.h0[seq]);
        db[i] = delta, scale_b[i] = m;
        da[i] = delta * std::conj(h_before), scale_a[i] = m * std::abs(h_before);
        a_next = to_ref(c.a[i]);
        a_next_abs = std::abs(a_next);
      }
      dh0[seq] = std::conj(a_next) * delta;
      scale_h0[seq] = a_next_abs * m;
    }
  }
}

template <typename T>
backward_case<T> random_backward_case(const tensor_layout& l, std::uint64_t seed) {
  const auto forward = random_typed_problem<T, T, T>(l, coefficients::half_to_one, true, seed);
  backward_case<T> c{l, forward.a, {}, {}, forward.h0, {}};
  // h: the exact forward rounded to T, as a forward pass in T stores it.
  const auto ref = reference_of(forward);
  std::mt19937_64 rng(seed + 1);
  std::normal_distribution<double> normal(0.0, 1.0);
  c.h.resize(ref.h.size());
  c.g.resize(ref.h.size());
  for (std::size_t i = 0; i < c.h.size(); ++i) {
    c.h[i] = from_double<T>(double(ref.h[i].real()), double(ref.h[i].imag()));
    c.g[i] = from_double<T>(normal(rng), normal(rng));
  }
  c.g_final.resize(forward.h0.size());
  for (T& x : c.g_final) x = from_double<T>(normal(rng), normal(rng));
  return c;
}

template <typename T, typename Policy = default_policy<T>>
void check_backward(const tensor_layout& l) {
  using Acc = typename Policy::accumulator_type;
  const std::uint64_t seed = fresh_seed();
  const backward_case<T> c = random_backward_case<T>(l, seed);
  device_buffer<T> a(c.a.size()), h(c.h.size()), g(c.g.size()), da(c.a.size()), db(c.a.size()), h0(c.h0.size()),
      g_final(c.g_final.size()), dh0(c.h0.size());
  a.upload(c.a), h.upload(c.h), g.upload(c.g), h0.upload(c.h0), g_final.upload(c.g_final);
  da.poison(), db.poison(), dh0.poison();
  const status s = linear_recurrence_backward<T, Policy>(a.get(), h.get(), g.get(), da.get(), db.get(), l, h0.get(),
                                                         g_final.get(), dh0.get());
  ASSERT_TRUE(s.ok()) << s.message();
  LINREC_CUDA_CHECK(cudaGetLastError());
  LINREC_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<ref_t> rda, rdb, rdh0;
  std::vector<long double> sa, sb, sh0;
  reference_adjoint(c, rda, rdb, rdh0, sa, sb, sh0);
  using R = typename detail::real_part<Acc>::type;
  const long double acc = accumulator_roundings(l.length) * std::numeric_limits<R>::epsilon();
  bound_check<T> check(acc);
  const auto check_all = [&](const std::vector<T>& got, const std::vector<ref_t>& want,
                             const std::vector<long double>& scale, const char* what) {
    for (std::size_t i = 0; i < got.size(); ++i) check(got[i], want[i], scale[i], what, i);
  };
  check_all(da.download(), rda, sa, "da");
  check_all(db.download(), rdb, sb, "db");
  check_all(dh0.download(), rdh0, sh0, "dh0");
  EXPECT_EQ(check.unwritten, 0) << "seed " << seed;
  EXPECT_EQ(check.over, 0) << "gradients outside the rounding-once + accumulator bound; first: " << check.first_over
                           << "; seed " << seed;
}

template <typename T>
void check_backward_layouts() {
  for (const bool reverse : {false, true}) {
    const auto dir = [&](tensor_layout l) { return reverse ? l.reversed() : l; };
    check_backward<T>(dir(tensor_layout::batch_channels_time(1, 70001, 1)));   // tiled look-back
    check_backward<T>(dir(tensor_layout::batch_channels_time(4, 3001, 300)));  // block per row
    check_backward<T>(dir(tensor_layout::batch_channels_time(5, 100, 9)));     // warp per row
    check_backward<T>(dir(tensor_layout::batch_time_channels(2, 1500, 72)));   // channel tiles
    check_backward<T>(dir(tensor_layout::time_batch_channels(16, 300, 2050))); // channel walk
  }
}

TEST_F(backward_types_test, bf16) { check_backward_layouts<__nv_bfloat16>(); }
TEST_F(backward_types_test, fp16) { check_backward_layouts<__half>(); }
TEST_F(backward_types_test, complex64) { check_backward_layouts<cfloat>(); }
TEST_F(backward_types_test, complex128) { check_backward_layouts<cdouble>(); }

// L = sum_t Re(conj(w[t]) h[t]), so g = w; da[k] must be dL/dRe(a[k]) + i dL/dIm(a[k]), and db and
// dh0 likewise, by central differences of L in long double.
TEST_F(backward_types_test, complex_gradients_follow_pytorch_convention) {
  const tensor_layout l = tensor_layout::batch_channels_time(1, 300, 1);
  const backward_case<cdouble> c = random_backward_case<cdouble>(l, fresh_seed());
  std::vector<ref_t> a(c.a.size()), b(c.a.size());
  const auto forward = random_typed_problem<cdouble, cdouble, cdouble>(l, coefficients::half_to_one, true);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = to_ref(forward.a[i]), b[i] = to_ref(forward.b[i]);
  ref_t h0 = to_ref(forward.h0[0]);
  const auto loss = [&](const std::vector<ref_t>& x, const std::vector<ref_t>& y, ref_t start) {
    ref_t state = start;
    long double sum = 0;
    for (std::size_t t = 0; t < x.size(); ++t) {
      state = x[t] * state + y[t];
      sum += (std::conj(to_ref(c.g[t])) * state).real();
    }
    return sum;
  };
  // The forward's h, exactly, into the backward.
  std::vector<cdouble> h(a.size());
  ref_t state = h0;
  for (std::size_t t = 0; t < a.size(); ++t) {
    state = a[t] * state + b[t];
    h[t] = cdouble(double(state.real()), double(state.imag()));
  }
  device_buffer<cdouble> da_(a.size()), db_(a.size()), a_(a.size()), h_(a.size()), g_(a.size()), h0_(1), dh0_(1);
  a_.upload(forward.a), h_.upload(h), g_.upload(c.g), h0_.upload(forward.h0);
  ASSERT_TRUE(linear_recurrence_backward<cdouble>(a_.get(), h_.get(), g_.get(), da_.get(), db_.get(), l, h0_.get(),
                                                  nullptr, dh0_.get())
                  .ok());
  LINREC_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<cdouble> da = da_.download(), db = db_.download(), dh0 = dh0_.download();
  const long double eps = 1e-6L;
  const auto derivative = [&](auto perturb) {
    const long double re = (perturb(ref_t(eps, 0)) - perturb(ref_t(-eps, 0))) / (2 * eps);
    const long double im = (perturb(ref_t(0, eps)) - perturb(ref_t(0, -eps))) / (2 * eps);
    return ref_t(re, im);
  };
  for (const std::size_t k : {std::size_t(0), std::size_t(1), std::size_t(150), a.size() - 1}) {
    const ref_t fd_a = derivative([&](ref_t d) {
      auto x = a;
      x[k] += d;
      return loss(x, b, h0);
    });
    const ref_t fd_b = derivative([&](ref_t d) {
      auto y = b;
      y[k] += d;
      return loss(a, y, h0);
    });
    EXPECT_LT(std::abs(to_ref(da[k]) - fd_a), 1e-6L * (1 + std::abs(fd_a))) << "da[" << k << "]";
    EXPECT_LT(std::abs(to_ref(db[k]) - fd_b), 1e-6L * (1 + std::abs(fd_b))) << "db[" << k << "]";
  }
  const ref_t fd_h0 = derivative([&](ref_t d) { return loss(a, b, h0 + d); });
  EXPECT_LT(std::abs(to_ref(dh0[0]) - fd_h0), 1e-6L * (1 + std::abs(fd_h0)));
}

}  // namespace
}  // namespace linrec::testing
