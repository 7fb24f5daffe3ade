// Accuracy of the default (automatic) strategy choice against the float64 / long double reference,
// next to a plain sequential loop in the same precision on the same data. Prints the table the
// README quotes; the assertions hold linrec to the loop's accuracy (see expect_matches_reference).
#include "../common/gpu_support.cuh"

#include <cstdio>

namespace {

using namespace linrec::testing;
using linrec::row_layout;

struct shape {
  row_layout layout;
  const char* what;
};

template <typename T>
void check_accuracy(a_dist dist, const std::vector<shape>& shapes) {
  for (const auto& s : shapes) {
    SCOPED_TRACE(s.what);
    const auto p = random_problem<T>(s.layout, dist, true);
    const auto out = run_on_device<T>(p);
    // Growing rows amplify every rounding; see expect_matches_reference for the measured ratios.
    const auto acc = expect_matches_reference(p, out, dist == a_dist::slightly_above_one ? 4.0 : 2.0);
    std::printf("accuracy %-6s a~%-13s %-22s rel_l2 linrec %.3e loop %.3e | max/max|h| linrec %.3e loop %.3e\n",
                sizeof(T) == 4 ? "fp32" : "fp64", name(dist), s.what, acc.device.rel_l2,
                acc.sequential.rel_l2, acc.device.max_abs / acc.device.ref_max,
                acc.sequential.max_abs / acc.sequential.ref_max);
  }
}

const std::vector<shape> long_rows = {
    {row_layout::contiguous(1, std::int64_t(1) << 22), "1 x 2^22 (look-back)"},
    {row_layout::contiguous(2048, 2048), "2048 x 2048 (block/row)"},
    {row_layout::contiguous(8192, 200), "8192 x 200 (warp/row)"},
};
// Growing rows amplify each row's roundings by its own growth, so a row's error is one strongly
// correlated sample: 64 rows make the loop's error, which the bound scales, a steady figure (with 4
// rows one H200 run in many drew a loop error 5.5x under linrec's).
const std::vector<shape> short_rows = {
    {row_layout::contiguous(64, 4096), "64 x 4096 (look-back)"},
    {row_layout::contiguous(2048, 2048), "2048 x 2048 (block/row)"},
    {row_layout::contiguous(8192, 200), "8192 x 200 (warp/row)"},
};

class accuracy_test : public gpu_test {};

TEST_F(accuracy_test, fp32_short_memory) { check_accuracy<float>(a_dist::half_to_one, long_rows); }
TEST_F(accuracy_test, fp32_sign_changes) { check_accuracy<float>(a_dist::minus_one_to_one, long_rows); }
TEST_F(accuracy_test, fp32_long_memory) { check_accuracy<float>(a_dist::long_memory, long_rows); }
TEST_F(accuracy_test, fp32_growing_short_rows) { check_accuracy<float>(a_dist::slightly_above_one, short_rows); }
TEST_F(accuracy_test, fp64_short_memory) { check_accuracy<double>(a_dist::half_to_one, long_rows); }
TEST_F(accuracy_test, fp64_sign_changes) { check_accuracy<double>(a_dist::minus_one_to_one, long_rows); }
TEST_F(accuracy_test, fp64_long_memory) { check_accuracy<double>(a_dist::long_memory, long_rows); }
TEST_F(accuracy_test, fp64_growing_short_rows) { check_accuracy<double>(a_dist::slightly_above_one, short_rows); }

}  // namespace
