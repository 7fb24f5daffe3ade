// Must not compile: a policy whose channel tiles' runs in shared memory and the kernel's own
// shared memory outgrow an SM (512 threads of bf16 with the default three runs: 192 KB of stages
// and 41 KB). The static_assert in launch_channel_tiles_with says so at compile time, where
// otherwise the launch's opt-in would fail at run time (tests/CMakeLists.txt matches its text).
#include <linrec/linear_recurrence.cuh>

#include <cuda_bf16.h>

namespace {

struct oversized : linrec::default_policy<__nv_bfloat16> {
  static constexpr linrec::strategy forced = linrec::strategy::channel_tiles;
  static constexpr int channel_threads = 512;
  static constexpr int channel_steps = 4;
};

}  // namespace

linrec::status enqueue(void* temp, std::size_t& temp_bytes, const __nv_bfloat16* a, const __nv_bfloat16* b,
                       __nv_bfloat16* h, const linrec::tensor_layout& layout) {
  return linrec::linear_recurrence<__nv_bfloat16, oversized>(temp, temp_bytes, a, b, h, layout);
}
