// product_chain_error — how far a parallel scan's error may stray from the sequential loop's when
// the recurrence is a pure product chain, as in backward_test.g_final_only (g = 0, so the adjoint
// δ[t] = g_final × a[t+1] × … × a[L-1], and da[t] = δ[t] × h[t-1]).
//
// Both evaluate each product with the same number of roundings, so their errors are alike in
// size; but one sequence's error is a single random walk shared by all its steps, so over a few
// sequences the ratio of the two is a ratio of few samples. This program draws the test's data
// (a ~ U(0.999, 1), length 5000, fp32) over many seeds, computes da with the loop and with a
// blocked scan (tiles of 4096, 8 items a thread, Hillis-Steele over the thread totals, a carry
// between tiles; the device's order differs in detail, not in the count of roundings), and
// prints the distribution of the scan's L2 and max error over the loop's.
//
//     g++ -O2 -o product_chain_error scripts/product_chain_error.cpp
//     ./product_chain_error 4 2000      # rows per case, cases
//     ./product_chain_error 64 4000
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s ROWS CASES\n", argv[0]);
    return 2;
  }
  const int rows = std::atoi(argv[1]), cases = std::atoi(argv[2]);
  constexpr int length = 5000, tile = 4096, items = 8;
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> uniform(0.999, 1);
  std::normal_distribution<double> normal(0, 1);
  std::vector<double> l2_ratio, max_ratio;
  for (int n = 0; n < cases; ++n) {
    double scan_sq = 0, loop_sq = 0, scan_max = 0, loop_max = 0;
    for (int r = 0; r < rows; ++r) {
      std::vector<float> a(length), h(length);
      for (float& x : a) x = float(uniform(rng));
      double state = normal(rng);
      for (int t = 0; t < length; ++t) h[t] = float(state = a[t] * state + normal(rng));
      const float g_final = float(normal(rng));
      // The coefficients in the adjoint's order: step i of the walk back is t = length - 1 - i.
      std::vector<float> c(length);
      for (int i = 0; i < length; ++i) c[i] = i == 0 ? 1.0f : a[length - i];
      std::vector<long double> exact(length);
      std::vector<float> loop(length), scan(length);
      long double e = g_final;
      float f = g_final;
      for (int i = 0; i < length; ++i) {
        exact[i] = e *= c[i];
        loop[i] = f = c[i] * f;
      }
      float carry = g_final;
      for (int t0 = 0; t0 < length; t0 += tile) {
        const int n_items = std::min(tile, length - t0), threads = (n_items + items - 1) / items;
        std::vector<float> inclusive(threads);
        for (int q = 0; q < threads; ++q) {
          float p = 1;
          for (int i = q * items; i < std::min(n_items, (q + 1) * items); ++i) p = c[t0 + i] * p;
          inclusive[q] = p;
        }
        for (int offset = 1; offset < threads; offset *= 2) {
          std::vector<float> next = inclusive;
          for (int q = offset; q < threads; ++q) next[q] = inclusive[q] * inclusive[q - offset];
          inclusive = next;
        }
        for (int q = 0; q < threads; ++q) {
          const float prefix = (q ? inclusive[q - 1] : 1.0f) * carry;
          float p = 1;
          for (int i = q * items; i < std::min(n_items, (q + 1) * items); ++i) {
            p = c[t0 + i] * p;
            scan[t0 + i] = p * prefix;
          }
        }
        carry = inclusive[threads - 1] * carry;
      }
      for (int i = 0; i < length; ++i) {
        const int t = length - 1 - i;
        const float before = t > 0 ? h[t - 1] : 0.3f;  // h0
        const long double want = exact[i] * before;
        const double loop_err = double(loop[i] * before - want), scan_err = double(scan[i] * before - want);
        loop_sq += loop_err * loop_err;
        scan_sq += scan_err * scan_err;
        loop_max = std::max(loop_max, std::fabs(loop_err));
        scan_max = std::max(scan_max, std::fabs(scan_err));
      }
    }
    l2_ratio.push_back(std::sqrt(scan_sq / loop_sq));
    max_ratio.push_back(scan_max / loop_max);
  }
  const auto report = [&](const char* what, std::vector<double>& x) {
    std::sort(x.begin(), x.end());
    const auto over2 = std::count_if(x.begin(), x.end(), [](double v) { return v > 2; });
    std::printf("%s error, scan over loop: median %.3f, p99 %.3f, max %.3f, over 2 in %ld of %d\n", what,
                x[x.size() / 2], x[x.size() * 99 / 100], x.back(), long(over2), cases);
  };
  std::printf("%d rows of %d, fp32, a ~ U(0.999, 1), g = 0:\n", rows, length);
  report("L2 ", l2_ratio);
  report("max", max_ratio);
  return 0;
}
