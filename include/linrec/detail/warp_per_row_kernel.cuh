// linrec/detail/warp_per_row_kernel.cuh — strategy::warp_per_row: each warp walks whole rows, for
// short rows where a block per row would leave most of its threads idle.
#pragma once

#include <linrec/detail/problem.cuh>
#include <linrec/detail/programmatic_launch.cuh>
#include <linrec/detail/thread_scan.cuh>
#include <linrec/detail/tile_io.cuh>
#include <linrec/warp_scan.cuh>

#include <cstdint>

namespace linrec::detail {

template <int BlockThreads, int Items, typename Problem>
__global__ void __launch_bounds__(BlockThreads) warp_per_row_kernel(Problem p) {
  using T = typename Problem::value_type;
  static_assert(BlockThreads % 32 == 0, "warps own rows, so blocks are whole warps");
  constexpr std::int64_t chunk_items = 32 * Items;
  constexpr int warps_per_block = BlockThreads / 32;
  const affine_scan_op op;
  const warp_scan<affine<T>> scan(op);
  const int lane = warp_scan<affine<T>>::lane();
  const std::int64_t first = std::int64_t(lane) * Items;

  wait_for_prior_kernels();
  allow_next_kernel();
  const std::int64_t warp = std::int64_t(blockIdx.x) * warps_per_block + (threadIdx.x >> 5);
  const std::int64_t warps = std::int64_t(gridDim.x) * warps_per_block;
  for (std::int64_t row = warp; row < p.rows; row += warps) {
    const bool vector_ok = p.vector_ok(p.offset(row, 0));
    affine<T> carry = p.seed(row);
    for (std::int64_t start = 0; start < p.length; start += chunk_items) {
      const std::int64_t valid = min(chunk_items, p.length - start);
      affine<T> items[Items];
      p.load(row, start, first, valid, vector_ok, items);
      thread_inclusive_scan(items, op);
      affine<T> chunk_aggregate;
      const affine<T> prefix = scan.exclusive_scan(items[Items - 1], carry, chunk_aggregate);
      thread_apply_prefix(items, prefix, op);
      p.store(row, start, first, valid, vector_ok, items);
      carry = op(carry, chunk_aggregate);
    }
    if (p.has_final() && lane == 0) p.write_final(row, carry.b);
  }
}

}  // namespace linrec::detail
