// __half and __nv_bfloat16 storage, alone and mixed with float, on every strategy: each output
// within rounding the exact result once to h's type (plus the float accumulator's few roundings).
#include "typed_cases.cuh"

namespace linrec::testing {
namespace {

class storage_types_test : public gpu_test {};

TEST_F(storage_types_test, bf16_everywhere) { check_every_strategy<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16>(); }
TEST_F(storage_types_test, bf16_tiles_taller_than_a_warp) {
  check_tiles_taller_than_a_warp<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16, 1>();
}
TEST_F(storage_types_test, bf16_tiles_with_runs_in_shared_memory) {
  check_tiles_with_shared_runs<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16, 3>();
}
// The 2-byte default asks L2 for nothing ahead; a policy may, as the earlier default did.
TEST_F(storage_types_test, bf16_tiles_with_one_shared_run_and_l2_prefetch) {
  check_tiles_with_shared_runs<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16, 1, 1>();
}
TEST_F(storage_types_test, float_a_with_bf16_tiles_with_runs_in_shared_memory) {
  check_tiles_with_shared_runs<float, __nv_bfloat16, __nv_bfloat16, 1>();
}
// channel_tiles_static_bytes restates the channel-tile kernel's __shared__ objects, so that a
// policy whose runs in shared memory outgrow an SM fails to compile rather than at its launch. It
// must count every one of them: at least what the compiler gives the kernel, less only the
// objects' alignment padding. A __shared__ object added to the kernel and not to the count fails
// here. The instantiations are the ones the tests above launch.
template <typename Policy>
void expect_static_shared_memory_counted() {
  using problem = detail::channel_problem<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16, float>;
  constexpr int lanes = 8;  // the default channel_max_lanes
  static_assert(Policy::channel_max_lanes == lanes);
  const auto kernel = detail::channel_tiles_kernel_for<Policy, lanes, Policy::channel_shared_chunks, problem>();
  cudaFuncAttributes attributes{};
  ASSERT_EQ(cudaFuncGetAttributes(&attributes, kernel), cudaSuccess);
  constexpr std::size_t counted =
      detail::channel_tiles_static_bytes<Policy::channel_threads, lanes, Policy::channel_steps, problem>;
  constexpr std::size_t padding = 3 * 16;  // three objects, none aligned to more than 16 bytes
  EXPECT_GE(attributes.sharedSizeBytes, counted) << Policy::channel_threads << " threads";
  EXPECT_LE(attributes.sharedSizeBytes, counted + padding) << Policy::channel_threads << " threads";
}
TEST_F(storage_types_test, channel_tiles_static_shared_memory_is_counted) {
  using base = default_policy<__nv_bfloat16>;
  expect_static_shared_memory_counted<base>();                           // 256 threads of 8 steps
  expect_static_shared_memory_counted<tall_tiles_typed_policy<base>>();  // 512 threads of 4 steps
}

TEST_F(storage_types_test, fp16_everywhere) { check_every_strategy<__half, __half, __half>(); }
TEST_F(storage_types_test, float_a_with_bf16_b_and_h) { check_every_strategy<float, __nv_bfloat16, __nv_bfloat16>(); }
TEST_F(storage_types_test, bf16_a_with_float_b_and_h) { check_every_strategy<__nv_bfloat16, float, float>(); }
TEST_F(storage_types_test, float_inputs_bf16_output) { check_every_strategy<float, float, __nv_bfloat16>(); }

// The accumulator is float for 2-byte storage, and a policy may carry float storage in double.
struct double_state : default_policy<float, float, float, double> {};
static_assert(std::is_same_v<accumulator_t<__nv_bfloat16>, float>);
static_assert(std::is_same_v<accumulator_t<__half, float, __half>, float>);
static_assert(std::is_same_v<accumulator_t<__half, double, float>, double>);
static_assert(std::is_same_v<accumulator_t<float, cfloat, cfloat>, cfloat>);
static_assert(std::is_same_v<accumulator_t<double, cfloat, cfloat>, cdouble>);
static_assert(default_policy<__nv_bfloat16>::vector_items == 8 && default_policy<__nv_bfloat16>::thread_items == 8);

TEST_F(storage_types_test, float_storage_with_double_accumulator) {
  check_every_strategy<float, float, float, double_state>();
}

}  // namespace
}  // namespace linrec::testing
