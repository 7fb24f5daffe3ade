// block_scan on the device: a tile of threads × items in blocked order, without and with a prefix
// callback carrying a running total over several tiles, against a long double fold.
#include "../common/gpu_support.cuh"

#include <linrec/block_scan.cuh>

#include <random>

namespace {

using namespace linrec::testing;
using linrec::affine;

template <typename T, int Threads, int Items>
__global__ void block_scan_kernel(const affine<T>* in, affine<T>* out, affine<T>* aggregates,
                                  int tiles_per_block, bool carry) {
  using scan = linrec::block_scan<affine<T>, Threads, Items>;
  __shared__ typename scan::temp_storage storage;
  linrec::running_prefix<affine<T>> running{{T(0.5), T(-1.25)}};
  for (int tile = 0; tile < tiles_per_block; ++tile) {
    const long base = (long(blockIdx.x) * tiles_per_block + tile) * scan::tile_items + threadIdx.x * Items;
    affine<T> items[Items];
    for (int i = 0; i < Items; ++i) items[i] = in[base + i];
    if (carry) {
      scan(storage).inclusive_scan(items, running);
    } else {
      affine<T> aggregate;
      scan(storage).inclusive_scan(items, aggregate);
      if (threadIdx.x == 7) aggregates[blockIdx.x * tiles_per_block + tile] = aggregate;
      __syncthreads();
    }
    for (int i = 0; i < Items; ++i) out[base + i] = items[i];
  }
}

template <typename T, int Threads, int Items>
void check_block_scan(bool carry) {
  constexpr int blocks = 5, tiles_per_block = 3, tile = Threads * Items;
  constexpr int n = blocks * tiles_per_block * tile;
  std::mt19937_64 rng(fresh_seed());
  std::uniform_real_distribution<double> ua(0.9, 1.0);  // keep long products away from zero
  std::normal_distribution<double> nb(0.0, 1.0);
  std::vector<affine<T>> in(n);
  for (auto& x : in) x = {T(ua(rng) * (nb(rng) < 0 ? -1 : 1)), T(nb(rng))};
  device_buffer<affine<T>> d_in(n), d_out(n), d_agg(blocks * tiles_per_block);
  d_in.upload(in);
  d_out.poison();
  d_agg.poison();
  block_scan_kernel<T, Threads, Items><<<blocks, Threads>>>(d_in.get(), d_out.get(), d_agg.get(), tiles_per_block, carry);
  LINREC_CUDA_CHECK(cudaGetLastError());
  LINREC_CUDA_CHECK(cudaDeviceSynchronize());
  const auto out = d_out.download();
  const auto agg = d_agg.download();

  using L = long double;
  const double tol = 256 * std::numeric_limits<T>::epsilon();
  for (int blk = 0; blk < blocks; ++blk) {
    L ra = carry ? 0.5L : 1, rb = carry ? -1.25L : 0;
    for (int t = 0; t < tiles_per_block; ++t) {
      if (!carry) ra = 1, rb = 0;
      for (int k = 0; k < tile; ++k) {
        const int i = (blk * tiles_per_block + t) * tile + k;
        rb = L(in[i].a) * rb + L(in[i].b);
        ra *= L(in[i].a);
        ASSERT_NEAR(double(out[i].b), double(rb), tol * (1 + std::fabs(double(rb)))) << "element " << i;
        ASSERT_NEAR(double(out[i].a), double(ra), tol) << "element " << i;
      }
      if (!carry) {
        const auto& g = agg[std::size_t(blk * tiles_per_block + t)];
        EXPECT_NEAR(double(g.b), double(rb), tol * (1 + std::fabs(double(rb))));
        EXPECT_NEAR(double(g.a), double(ra), tol);
      }
    }
  }
}

class block_scan_test : public gpu_test {};

TEST_F(block_scan_test, tile_scan_and_aggregate_match_fold_float) { check_block_scan<float, 128, 4>(false); }
TEST_F(block_scan_test, running_prefix_carries_across_tiles_float) { check_block_scan<float, 128, 4>(true); }
TEST_F(block_scan_test, one_warp_blocks_with_many_items_double) { check_block_scan<double, 32, 6>(true); }
TEST_F(block_scan_test, full_size_blocks_with_one_item_float) { check_block_scan<float, 1024, 1>(true); }

}  // namespace
