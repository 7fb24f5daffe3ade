// warp_scan on the device: inclusive and exclusive scans over full and logical sub-warps, checked
// against a sequential fold in long double on random, non-commutative affine elements.
#include "../common/gpu_support.cuh"

#include <linrec/warp_scan.cuh>

#include <random>

namespace {

using namespace linrec::testing;
using linrec::affine;

template <typename T, int Width>
__global__ void warp_scan_kernel(const affine<T>* in, affine<T>* inclusive, affine<T>* exclusive,
                                 affine<T>* aggregate, affine<T> initial) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const linrec::warp_scan<affine<T>, Width> scan;
  inclusive[i] = scan.inclusive_scan(in[i]);
  affine<T> total;
  exclusive[i] = scan.exclusive_scan(in[i], initial, total);
  aggregate[i] = total;
}

template <typename T, int Width>
void check_warp_scan() {
  constexpr int threads = 256, blocks = 3, n = threads * blocks;
  std::mt19937_64 rng(fresh_seed());
  std::uniform_real_distribution<double> ua(-1.0, 1.0);
  std::normal_distribution<double> nb(0.0, 1.0);
  std::vector<affine<T>> in(n);
  for (auto& x : in) x = {T(ua(rng)), T(nb(rng))};
  const affine<T> initial{T(0.75), T(nb(rng))};

  device_buffer<affine<T>> d_in(n), d_inc(n), d_exc(n), d_agg(n);
  d_in.upload(in);
  d_inc.poison();
  d_exc.poison();
  d_agg.poison();
  warp_scan_kernel<T, Width><<<blocks, threads>>>(d_in.get(), d_inc.get(), d_exc.get(), d_agg.get(), initial);
  LINREC_CUDA_CHECK(cudaGetLastError());
  LINREC_CUDA_CHECK(cudaDeviceSynchronize());
  const auto inc = d_inc.download(), exc = d_exc.download(), agg = d_agg.download();

  using L = long double;
  const double tol = 64 * std::numeric_limits<T>::epsilon();
  for (int w = 0; w < n / Width; ++w) {
    L run_a = 1, run_b = 0;  // inclusive fold of lanes 0..l
    L total_a = 1, total_b = 0;
    for (int l = 0; l < Width; ++l) {
      total_b = L(in[w * Width + l].a) * total_b + L(in[w * Width + l].b);
      total_a *= L(in[w * Width + l].a);
    }
    for (int l = 0; l < Width; ++l) {
      const int i = w * Width + l;
      // exclusive = initial, then lanes 0..l-1 applied after it
      const L ex_a = run_a * L(initial.a), ex_b = run_a * L(initial.b) + run_b;
      EXPECT_NEAR(double(exc[i].a), double(ex_a), tol) << "lane " << i;
      EXPECT_NEAR(double(exc[i].b), double(ex_b), tol * (1 + std::fabs(double(ex_b)))) << "lane " << i;
      run_b = L(in[i].a) * run_b + L(in[i].b);
      run_a *= L(in[i].a);
      EXPECT_NEAR(double(inc[i].a), double(run_a), tol) << "lane " << i;
      EXPECT_NEAR(double(inc[i].b), double(run_b), tol * (1 + std::fabs(double(run_b)))) << "lane " << i;
      EXPECT_NEAR(double(agg[i].b), double(total_b), tol * (1 + std::fabs(double(total_b)))) << "lane " << i;
      EXPECT_NEAR(double(agg[i].a), double(total_a), tol) << "lane " << i;
    }
  }
}

class warp_scan_test : public gpu_test {};

TEST_F(warp_scan_test, full_warp_float_matches_sequential_fold) { check_warp_scan<float, 32>(); }
TEST_F(warp_scan_test, full_warp_double_matches_sequential_fold) { check_warp_scan<double, 32>(); }
TEST_F(warp_scan_test, logical_warps_of_16_stay_independent) { check_warp_scan<float, 16>(); }
TEST_F(warp_scan_test, logical_warps_of_4_stay_independent) { check_warp_scan<float, 4>(); }
TEST_F(warp_scan_test, logical_warps_of_1_are_the_identity_scan) { check_warp_scan<float, 1>(); }

}  // namespace
