// The CPU reference and the error metrics the GPU tests rest on.
#include "../common/problems.hpp"
#include "../common/reference.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace {

using namespace linrec::testing;
using linrec::row_layout;

TEST(reference, matches_the_closed_form_sum) {
  // h[t] = (prod_{j<=t} a_j) h0 + sum_k (prod_{k<j<=t} a_j) b_k, evaluated directly.
  const auto p = random_problem<double>(row_layout::contiguous(2, 40), a_dist::minus_one_to_one, true);
  const auto h = sequential<long double>(p.a, p.b, p.layout, p.h0);
  for (std::int64_t r = 0; r < 2; ++r) {
    for (std::int64_t t = 0; t < 40; ++t) {
      long double sum = p.h0[std::size_t(r)];
      for (std::int64_t j = 0; j <= t; ++j) sum *= p.a[std::size_t(r * 40 + j)];
      for (std::int64_t k = 0; k <= t; ++k) {
        long double term = p.b[std::size_t(r * 40 + k)];
        for (std::int64_t j = k + 1; j <= t; ++j) term *= p.a[std::size_t(r * 40 + j)];
        sum += term;
      }
      EXPECT_NEAR(double(h[std::size_t(r * 40 + t)]), double(sum), 1e-13 * (1 + std::fabs(double(sum))));
    }
  }
}

TEST(reference, leaves_gaps_alone_and_reports_final_states) {
  const auto p = random_problem<float>({3, 5, 8}, a_dist::half_to_one, true);
  std::vector<double> final;
  const auto h = sequential<double>(p.a, p.b, p.layout, p.h0, &final);
  ASSERT_EQ(h.size(), std::size_t(2 * 8 + 5));
  for (int r = 0; r < 3; ++r) EXPECT_EQ(final[std::size_t(r)], h[std::size_t(r * 8 + 4)]);
  for (int r = 0; r < 2; ++r) {
    for (int t = 5; t < 8; ++t) EXPECT_EQ(h[std::size_t(r * 8 + t)], 0.0);
  }
}

TEST(reference, reverse_is_forward_over_the_flipped_rows) {
  const auto p = random_problem<double>({3, 37, 40}, a_dist::minus_one_to_one, true);
  host_problem<double> flipped = p;
  for (std::int64_t r = 0; r < 3; ++r) {
    for (std::int64_t t = 0; t < 37; ++t) {
      flipped.a[std::size_t(r * 40 + t)] = p.a[std::size_t(r * 40 + 36 - t)];
      flipped.b[std::size_t(r * 40 + t)] = p.b[std::size_t(r * 40 + 36 - t)];
    }
  }
  std::vector<long double> final_reverse, final_forward;
  const auto reverse = sequential<long double>(p.a, p.b, p.layout.reversed(), p.h0, &final_reverse);
  const auto forward = sequential<long double>(flipped.a, flipped.b, flipped.layout, flipped.h0, &final_forward);
  for (std::int64_t r = 0; r < 3; ++r) {
    EXPECT_EQ(final_reverse[std::size_t(r)], final_forward[std::size_t(r)]);
    EXPECT_EQ(final_reverse[std::size_t(r)], reverse[std::size_t(r * 40)]);  // the state at step 0
    for (std::int64_t t = 0; t < 37; ++t) {
      EXPECT_EQ(reverse[std::size_t(r * 40 + t)], forward[std::size_t(r * 40 + 36 - t)]);
    }
  }
  // And the first step taken is the last one: h[36] = a[36] h0 + b[36].
  EXPECT_EQ(reverse[36], p.a[36] * (long double)p.h0[0] + p.b[36]);
}

TEST(reference, error_metrics_measure_what_they_claim) {
  const row_layout layout = row_layout::contiguous(1, 4);
  const std::vector<double> ref{3.0, -4.0, 1.0, 2.0};
  const std::vector<double> x{3.0, -4.0, 1.5, 2.0};
  const auto s = compare(x, ref, layout);
  EXPECT_DOUBLE_EQ(s.max_abs, 0.5);
  EXPECT_DOUBLE_EQ(s.ref_max, 4.0);
  EXPECT_DOUBLE_EQ(s.rel_l2, 0.5 / std::sqrt(30.0));
  const std::vector<double> bad{3.0, NAN, 1.0, 2.0};
  EXPECT_FALSE(compare(bad, ref, layout).finite);
  EXPECT_TRUE(std::isinf(compare(bad, ref, layout).rel_l2));
}

TEST(reference, float_loop_error_is_measurable_and_small) {
  // The bar GPU results are held to must itself be a few roundoffs, not zero and not large.
  const auto p = random_problem<float>(row_layout::contiguous(1, 1 << 16), a_dist::long_memory);
  const auto ref = sequential<double>(p.a, p.b, p.layout, p.h0);
  const auto loop = sequential<float>(p.a, p.b, p.layout, p.h0);
  const auto s = compare(loop, ref, p.layout);
  EXPECT_GT(s.rel_l2, 1e-8);
  EXPECT_LT(s.rel_l2, 1e-4);
}

}  // namespace
