// The affine element on the host: identity, associativity within rounding, and operand order.
#include <gtest/gtest.h>
#include <linrec/affine.cuh>

#include <cmath>
#include <random>

namespace {

using linrec::affine;
using linrec::affine_scan_op;
using linrec::compose;

affine<double> random_affine(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  return {u(rng), u(rng)};
}

TEST(affine, identity_is_neutral_on_both_sides) {
  std::mt19937_64 rng(std::random_device{}());
  for (int i = 0; i < 100; ++i) {
    const auto x = random_affine(rng);
    const auto e = affine<double>::identity();
    EXPECT_EQ(compose(x, e).a, x.a);
    EXPECT_EQ(compose(x, e).b, x.b);
    EXPECT_EQ(compose(e, x).a, x.a);
    EXPECT_EQ(compose(e, x).b, x.b);
  }
}

TEST(affine, composition_is_associative_within_rounding) {
  std::mt19937_64 rng(std::random_device{}());
  for (int i = 0; i < 1000; ++i) {
    const auto x = random_affine(rng), y = random_affine(rng), z = random_affine(rng);
    const auto left = compose(compose(x, y), z), right = compose(x, compose(y, z));
    // Each side rounds a few products of magnitude <= 8; a few ulps of 8 bound the difference.
    EXPECT_NEAR(left.a, right.a, 64 * 8 * 1e-16);
    EXPECT_NEAR(left.b, right.b, 64 * 8 * 1e-16);
  }
}

TEST(affine, compose_applies_inner_first) {
  const affine<double> inner{2.0, 3.0}, outer{5.0, 7.0};
  // outer(inner(x)) = 5 * (2x + 3) + 7 = 10x + 22.
  const auto c = compose(outer, inner);
  EXPECT_EQ(c.a, 10.0);
  EXPECT_EQ(c.b, 22.0);
  EXPECT_EQ(c(1.5), outer(inner(1.5)));
  // The other order is a different map: 2 * (5x + 7) + 3 = 10x + 17.
  EXPECT_EQ(compose(inner, outer).b, 17.0);
}

TEST(affine, scan_op_takes_the_earlier_element_on_the_left) {
  std::mt19937_64 rng(std::random_device{}());
  for (int i = 0; i < 100; ++i) {
    const auto earlier = random_affine(rng), later = random_affine(rng);
    const auto c = affine_scan_op{}(earlier, later);
    const double x = 0.25 + i;
    EXPECT_NEAR(c(x), later(earlier(x)), 1e-12 * (1 + std::fabs(c(x))));
  }
  // Fixed values where the two orders differ, so a swapped operand cannot pass.
  const affine<float> earlier{2.0f, 1.0f}, later{3.0f, 4.0f};
  EXPECT_EQ(affine_scan_op{}(earlier, later).b, 7.0f);   // 3 * 1 + 4
  EXPECT_EQ(affine_scan_op{}(later, earlier).b, 9.0f);   // 2 * 4 + 1
}

TEST(affine, folding_a_sequence_gives_the_recurrence) {
  std::mt19937_64 rng(std::random_device{}());
  std::uniform_real_distribution<double> u(0.5, 1.0);
  std::normal_distribution<double> n(0.0, 1.0);
  const double h0 = n(rng);
  double h = h0;
  affine<double> folded = affine<double>::identity();
  for (int t = 0; t < 50; ++t) {
    const affine<double> step{u(rng), n(rng)};
    h = step.a * h + step.b;
    folded = affine_scan_op{}(folded, step);
    EXPECT_NEAR(folded(h0), h, 1e-12 * (1 + std::fabs(h)));
  }
}

}  // namespace
