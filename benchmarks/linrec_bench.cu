// linrec_bench — linear_recurrence on time-contiguous rows, against the device-to-device copy
// roofline, CUB's DeviceScan with the same affine operator, and CUB's InclusiveSum on floats as
// the plain scan's reference, all measured in this one run.
//
// Timing: CUDA events around batches of back-to-back calls on one stream, after warm-up; inputs
// rotate among enough copies to keep the working set above 2× the L2, so no call reads a cache
// that its predecessor warmed. Each benchmark reports the median over its iterations (`median_us`,
// per call), the bytes moved per second at that median (12 B per fp32 element: read a, read b,
// write h), and `copy_fraction`: the time a cudaMemcpyAsync moving the same bytes (6 B per element
// read + 6 B written) takes, measured here, over linrec's time. Every output is checked against a
// float64 loop on the host before timing.
#include "bench_support.cuh"

#include <benchmark/benchmark.h>
#include <cub/device/device_scan.cuh>
#include <linrec/linrec.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace {

using namespace linrec_bench;

// Max |h - reference| over every element of copy 0, reference computed in double on the host.
double max_error(const data_sets& sets, const linrec::row_layout& layout) {
  const std::size_t n = std::size_t(sets.elements);
  std::vector<float> a(n), b(n), h(n);
  CHECK(cudaMemcpy(a.data(), sets.a[0], n * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(b.data(), sets.b[0], n * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(h.data(), sets.h[0], n * 4, cudaMemcpyDeviceToHost));
  double worst = 0;
  for (std::int64_t r = 0; r < layout.rows; ++r) {
    double state = 0;
    for (std::int64_t k = 0; k < layout.length; ++k) {
      const std::int64_t t = layout.reverse ? layout.length - 1 - k : k;
      const std::size_t i = std::size_t(r * layout.length + t);
      state = double(a[i]) * state + double(b[i]);
      const double e = std::fabs(double(h[i]) - state);
      worst = std::isnan(e) ? INFINITY : std::max(worst, e);
    }
  }
  return worst;
}

template <typename Policy>
void bench_linrec(benchmark::State& state, linrec::row_layout layout, bool graph = false) {
  const std::int64_t n = layout.rows * layout.length;
  std::size_t bytes = 0;
  if (!linrec::linear_recurrence<float, Policy>(nullptr, bytes, nullptr, nullptr, nullptr, layout)) {
    state.SkipWithError("size query failed");
    return;
  }
  copy_roofline_ms(n);  // measured before our buffers exist, so both fit together in memory
  data_sets sets(n, bytes);
  linrec::status status;
  const auto call = [&](int c) {
    std::size_t temp_bytes = sets.temp_bytes;
    status = linrec::linear_recurrence<float, Policy>(sets.temp, temp_bytes, sets.a[c], sets.b[c], sets.h[c],
                                                      layout, nullptr, nullptr, bench_stream());
  };
  call(0);
  CHECK(cudaStreamSynchronize(bench_stream()));
  if (!status) {
    state.SkipWithError(status.message());
    return;
  }
  if (const double e = max_error(sets, layout); !(e < 1e-4)) {
    state.SkipWithError(("wrong result, max error " + std::to_string(e)).c_str());
    return;
  }
  state.SetLabel(std::string("strategy=") + [&] {
    switch (linrec::chosen_strategy<float, Policy>(layout)) {
      case linrec::strategy::tiled_lookback: return "tiled_lookback";
      case linrec::strategy::block_per_row: return "block_per_row";
      case linrec::strategy::warp_per_row: return "warp_per_row";
      default: return "?";
    }
  }());
  run_timed(state, call, sets, graph);
}

struct load_pair {
  const float* a;
  const float* b;
  __host__ __device__ linrec::affine<float> operator()(std::int64_t i) const { return {a[i], b[i]}; }
};
struct take_b {
  __host__ __device__ float operator()(const linrec::affine<float>& x) const { return x.b; }
};

// CUB's single-pass scan with the same operator over (a, b) pairs: one row only.
void bench_cub_affine(benchmark::State& state, std::int64_t length) {
  copy_roofline_ms(length);
  std::size_t bytes = 0;
  const auto in = [](const float* a, const float* b) {
    return thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), load_pair{a, b});
  };
  CHECK(cub::DeviceScan::InclusiveScan(nullptr, bytes, in(nullptr, nullptr),
                                       thrust::make_transform_output_iterator((float*)nullptr, take_b{}),
                                       linrec::affine_scan_op{}, length, bench_stream()));
  data_sets sets(length, bytes);
  const auto call = [&](int c) {
    std::size_t temp_bytes = sets.temp_bytes;
    CHECK(cub::DeviceScan::InclusiveScan(sets.temp, temp_bytes, in(sets.a[c], sets.b[c]),
                                         thrust::make_transform_output_iterator(sets.h[c], take_b{}),
                                         linrec::affine_scan_op{}, length, bench_stream()));
  };
  call(0);
  CHECK(cudaStreamSynchronize(bench_stream()));
  if (const double e = max_error(sets, linrec::row_layout::contiguous(1, length)); !(e < 1e-4)) {
    state.SkipWithError("CUB result wrong");
    return;
  }
  run_timed(state, call, sets);
}

// CUB's InclusiveSum over the b floats of one row: the plain scan's speed on this GPU, 8 B per
// element (b read, h written), against a copy of those 8 B per element. Checked first against a
// float64 prefix sum, relative to the running sum of |b| (a summation's error bound scales with it).
void bench_cub_sum(benchmark::State& state, std::int64_t length) {
  std::size_t bytes = 0;
  CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, (const float*)nullptr, (float*)nullptr, length, bench_stream()));
  data_sets sets(length, bytes);
  const auto call = [&](int c) {
    std::size_t temp_bytes = sets.temp_bytes;
    CHECK(cub::DeviceScan::InclusiveSum(sets.temp, temp_bytes, sets.b[c], sets.h[c], length, bench_stream()));
  };
  call(0);
  CHECK(cudaStreamSynchronize(bench_stream()));
  {
    std::vector<float> b(static_cast<std::size_t>(length)), h(static_cast<std::size_t>(length));
    CHECK(cudaMemcpy(b.data(), sets.b[0], b.size() * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(h.data(), sets.h[0], h.size() * 4, cudaMemcpyDeviceToHost));
    double sum = 0, magnitude = 0, worst = 0;
    for (std::size_t i = 0; i < b.size(); ++i) {
      sum += b[i];
      magnitude += std::fabs(b[i]);
      const double e = std::fabs(double(h[i]) - sum) / magnitude;
      worst = std::isnan(e) ? INFINITY : std::max(worst, e);
    }
    if (!(worst < 1e-5)) {
      state.SkipWithError("CUB sum wrong");
      return;
    }
  }
  run_timed(state, call, sets);
  const double med_ms = state.counters["median_us"] / 1e3;
  const double copy = copy_ms(8 * std::size_t(length));
  state.counters["GBps"] = 8.0 * double(length) / (med_ms * 1e-3) / 1e9;
  state.counters["copy_GBps"] = 8.0 * double(length) / (copy * 1e-3) / 1e9;
  state.counters["copy_fraction"] = copy / med_ms;
}

// The backward pass bytes: a, h and g read, da and db written.
constexpr double backward_bytes_per_element = 20;

// Rescales the counters run_timed reported for 12 B per element to the backward pass's 20.
void report_backward(benchmark::State& state, std::int64_t n) {
  const double med_ms = state.counters["median_us"] / 1e3;
  state.counters["GBps"] = backward_bytes_per_element * double(n) / (med_ms * 1e-3) / 1e9;
  state.counters["copy_fraction"] = copy_roofline_ms(n) * backward_bytes_per_element / 12 / med_ms;
}

// Row r reversed, with the adjoint's coefficients: out_a[t] = a[L-t] (1 at t = 0), out_g[t] = g[L-1-t].
__global__ void flip_for_adjoint(const float* a, const float* g, float* out_a, float* out_g, std::int64_t rows,
                                 std::int64_t length) {
  const std::int64_t n = rows * length;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t r = i / length, t = i - r * length;
    out_a[i] = t == 0 ? 1.0f : a[r * length + length - t];
    out_g[i] = g[r * length + length - 1 - t];
  }
}
// db[t] = δ_rev[L-1-t], da[t] = db[t] h[t-1] (h0 = 0).
__global__ void unflip_gradients(const float* delta_rev, const float* h, float* da, float* db, std::int64_t rows,
                                 std::int64_t length) {
  const std::int64_t n = rows * length;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t r = i / length, t = i - r * length;
    const float d = delta_rev[r * length + length - 1 - t];
    db[i] = d;
    da[i] = t == 0 ? 0.0f : d * h[i - 1];
  }
}

// The backward pass on rows: linrec's fused kernel, or (`flipped`) what users do without it:
// flip a and g, run the forward scan, flip the adjoint back and multiply by h.
void bench_backward(benchmark::State& state, linrec::row_layout layout, bool flipped) {
  const std::int64_t n = layout.rows * layout.length;
  std::size_t bytes = 0;
  if (!linrec::linear_recurrence_backward<float>(nullptr, bytes, nullptr, nullptr, nullptr, nullptr, nullptr, layout)) {
    state.SkipWithError("size query failed");
    return;
  }
  copy_roofline_ms(n);
  data_sets sets(n, bytes);  // a = a, b = g, h = the forward output (computed below)
  float *da, *db, *flip_a, *flip_g;
  CHECK(cudaMalloc(&da, n * 4));
  CHECK(cudaMalloc(&db, n * 4));
  CHECK(cudaMalloc(&flip_a, flipped ? n * 4 : 4));
  CHECK(cudaMalloc(&flip_g, flipped ? n * 4 : 4));
  for (int c = 0; c < sets.copies; ++c) {
    std::size_t temp_bytes = sets.temp_bytes;
    CHECK(linrec::linear_recurrence<float>(sets.temp, temp_bytes, sets.a[c], sets.b[c], sets.h[c], layout, nullptr,
                                           nullptr, bench_stream()).cuda());
  }
  linrec::status status;
  const auto call = [&](int c) {
    std::size_t temp_bytes = sets.temp_bytes;
    if (flipped) {
      flip_for_adjoint<<<2048, 256, 0, bench_stream()>>>(sets.a[c], sets.b[c], flip_a, flip_g, layout.rows, layout.length);
      status = linrec::linear_recurrence<float>(sets.temp, temp_bytes, flip_a, flip_g, flip_g, layout, nullptr, nullptr,
                                                bench_stream());
      unflip_gradients<<<2048, 256, 0, bench_stream()>>>(flip_g, sets.h[c], da, db, layout.rows, layout.length);
    } else {
      status = linrec::linear_recurrence_backward<float>(sets.temp, temp_bytes, sets.a[c], sets.h[c], sets.b[c], da, db,
                                                         layout, nullptr, nullptr, nullptr, bench_stream());
    }
  };
  call(0);
  CHECK(cudaStreamSynchronize(bench_stream()));
  if (!status) {
    state.SkipWithError(status.message());
    return;
  }
  // da and db of copy 0 against a float64 adjoint on the host (h from the device's forward pass).
  const auto as_tensor = linrec::tensor_layout::uniform(layout.rows, layout.length, 1, {layout.length, 1, 0});
  if (const double e = adjoint_max_error(sets.a[0], sets.h[0], sets.b[0], da, db, as_tensor); !(e < 1e-3)) {
    state.SkipWithError(("wrong gradients, max error " + std::to_string(e)).c_str());
    return;
  }
  run_timed(state, call, sets);
  report_backward(state, n);
  cudaFree(da), cudaFree(db), cudaFree(flip_a), cudaFree(flip_g);
}

template <linrec::strategy S>
struct forced_policy : linrec::default_policy<float> {
  static constexpr linrec::strategy forced = S;
};

// Tuning candidates: tile shapes of the two tile-based strategies.
template <int Threads, int Items, bool Persistent = true>
struct lookback_tiles : forced_policy<linrec::strategy::tiled_lookback> {
  static constexpr int lookback_threads = Threads;
  static constexpr int lookback_items = Items;
  static constexpr bool lookback_persistent = Persistent;
};
template <int Threads, int Items, int MinBlocks>
struct deferred_lookback_tiles : lookback_tiles<Threads, Items> {
  static constexpr bool lookback_deferred = true;
  static constexpr int lookback_min_blocks = MinBlocks;
};
template <int Threads, int Items>
struct direct_lookback_tiles : lookback_tiles<Threads, Items> {
  static constexpr bool lookback_deferred = false;
  static constexpr int lookback_stages = 0;
};
// The look-back kernels without staging, for comparison.
template <int Threads, int Items, int MinBlocks, int TilesPerLane = 1, int PrefetchRounds = 1>
struct unstaged_deferred_tiles : deferred_lookback_tiles<Threads, Items, MinBlocks> {
  static constexpr int lookback_stages = 0;
  static constexpr int lookback_tiles_per_lane = TilesPerLane;
  static constexpr int lookback_prefetch_rounds = PrefetchRounds;
};
// The deferred kernel with a tile shape and the warps that look back.
template <int Threads, int Items, int MinBlocks, int Warps>
struct deferred_warps : unstaged_deferred_tiles<Threads, Items, MinBlocks> {
  static constexpr int lookback_warps = Warps;
};
// The deferred kernel storing whole tiles striped across the block (lookback_striped_stores).
template <bool Striped, int Warps = 8>
struct deferred_striped : deferred_warps<512, 8, 2, Warps> {
  static constexpr bool lookback_striped_stores = Striped;
};
// The staged look-back kernel at every size.
template <int Threads, int Items, int Stages, int Deferral, int MinBlocks, int Warps = 8, int TilesPerLane = 1>
struct staged_tiles : lookback_tiles<Threads, Items> {
  static constexpr int lookback_stages = Stages;
  static constexpr int lookback_staged_deferral = Deferral;
  static constexpr int lookback_min_blocks = MinBlocks;
  static constexpr std::int64_t lookback_staged_min_tiles_per_block = 0;
  static constexpr int lookback_warps = Warps;
  static constexpr int lookback_tiles_per_lane = TilesPerLane;
  static constexpr bool lookback_striped_stores = true;
};
template <int Threads, int Items, bool Programmatic = true>
struct row_block_tiles : forced_policy<linrec::strategy::block_per_row> {
  static constexpr int row_block_threads = Threads;
  static constexpr int row_block_items = Items;
  static constexpr std::int64_t row_block_short_max_length = 0;  // this shape at every length
  static constexpr bool programmatic_launch = Programmatic;
};

// block_per_row converting each tile it loads ahead as it loads it (row_block_hold_loaded off),
// the default before session 26.
struct row_block_converted_ahead : linrec::default_policy<float> {
  static constexpr bool row_block_hold_loaded = false;
};

void register_all() {
  using linrec::row_layout;
  using linrec::strategy;
  struct shape {
    std::int64_t rows, length;
  };
  const auto name = [](const char* what, shape s) {
    return std::string(what) + "/rows:" + std::to_string(s.rows) + "/T:" + std::to_string(s.length);
  };
  const auto add = [](const std::string& n, auto fn) {
    benchmark::RegisterBenchmark(n.c_str(), fn)->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(30);
  };
  for (const shape s : {shape{1, 1 << 28}, shape{1024, 65536}, shape{16384, 4096}, shape{1024, 1024},
                        shape{1, 1 << 14}, shape{1, 1 << 20}, shape{64, 1 << 20}}) {
    const row_layout layout = row_layout::contiguous(s.rows, s.length);
    add(name("linrec", s), [=](benchmark::State& st) { bench_linrec<linrec::default_policy<float>>(st, layout); });
    // Backwards in time, reading each row from its end: the same kernels, reversed vectors.
    add(name("linrec_reverse", s), [=](benchmark::State& st) {
      bench_linrec<linrec::default_policy<float>>(st, layout.reversed());
    });
    if (s.rows * s.length <= (1 << 20)) {
      // The same calls captured in a CUDA graph and replayed: no host work between them.
      add(name("linrec_graph", s), [=](benchmark::State& st) { bench_linrec<linrec::default_policy<float>>(st, layout, true); });
    }
    add(name("linrec_tiled_lookback", s), [=](benchmark::State& st) { bench_linrec<forced_policy<strategy::tiled_lookback>>(st, layout); });
    add(name("linrec_block_per_row", s), [=](benchmark::State& st) {
      if (s.rows == 1 && s.length > (1 << 20)) st.SkipWithError("one block on one long row: not a contender");
      else bench_linrec<forced_policy<strategy::block_per_row>>(st, layout);
    });
    if ((s.rows == 1024 && s.length == 65536) || (s.rows == 1 && s.length == (1 << 28))) {
      add(name("linrec_backward", s), [=](benchmark::State& st) { bench_backward(st, layout, false); });
      add(name("flip_forward_flip_backward", s), [=](benchmark::State& st) { bench_backward(st, layout, true); });
    }
    if (s.length <= 4096) {
      add(name("linrec_warp_per_row", s), [=](benchmark::State& st) { bench_linrec<forced_policy<strategy::warp_per_row>>(st, layout); });
    }
    if (s.rows == 1) {
      add(name("cub_affine_scan", s), [=](benchmark::State& st) { bench_cub_affine(st, s.length); });
      add(name("cub_inclusive_sum", s), [=](benchmark::State& st) { bench_cub_sum(st, s.length); });
    }
    if (s.rows < 1024 || s.length == 4096) {
      add(name("tune_unstaged_direct_256x16", s), [=](benchmark::State& st) { bench_linrec<direct_lookback_tiles<256, 16>>(st, layout); });
      add(name("tune_unstaged_deferred_512x8", s), [=](benchmark::State& st) { bench_linrec<unstaged_deferred_tiles<512, 8, 2>>(st, layout); });
      add(name("tune_deferred_512x8_no_prefetch", s), [=](benchmark::State& st) { bench_linrec<unstaged_deferred_tiles<512, 8, 2, 1, 0>>(st, layout); });
      add(name("tune_deferred_512x8_prefetch2", s), [=](benchmark::State& st) { bench_linrec<unstaged_deferred_tiles<512, 8, 2, 1, 2>>(st, layout); });
      add(name("tune_deferred_512x8_reach2", s), [=](benchmark::State& st) { bench_linrec<unstaged_deferred_tiles<512, 8, 2, 2>>(st, layout); });
      add(name("tune_deferred_512x8_reach4", s), [=](benchmark::State& st) { bench_linrec<unstaged_deferred_tiles<512, 8, 2, 4>>(st, layout); });
      add(name("tune_deferred_256x16", s), [=](benchmark::State& st) { bench_linrec<deferred_warps<256, 16, 2, 8>>(st, layout); });
      // Against the default (striped stores, 8 look-back warps, since session 25): own-run stores
      // at 8 warps and at 16 (the default before), striped stores at 16; the staged kernel (bulk
      // copies into shared memory instead of loads and an L2 prefetch) with striped stores
      // (session 25: 0.745 at best against 0.775 for the default at 1 x 2^28).
      add(name("tune_deferred_512x8_own_run_stores", s), [=](benchmark::State& st) { bench_linrec<deferred_striped<false>>(st, layout); });
      add(name("tune_deferred_512x8_own_run_warps16", s), [=](benchmark::State& st) { bench_linrec<deferred_striped<false, 16>>(st, layout); });
      add(name("tune_deferred_512x8_striped_warps16", s), [=](benchmark::State& st) { bench_linrec<deferred_striped<true, 16>>(st, layout); });
      add(name("tune_staged_512x8_s3_d1_mb2_w8", s), [=](benchmark::State& st) { bench_linrec<staged_tiles<512, 8, 3, 1, 2>>(st, layout); });
      add(name("tune_staged_512x8_s3_d1_mb2_w16", s), [=](benchmark::State& st) { bench_linrec<staged_tiles<512, 8, 3, 1, 2, 16>>(st, layout); });
      add(name("tune_staged_256x8_s4_d1_mb3_reach2", s), [=](benchmark::State& st) { bench_linrec<staged_tiles<256, 8, 4, 1, 3, 8, 2>>(st, layout); });
      add(name("tune_staged_256x8_s5_d1_mb2", s), [=](benchmark::State& st) { bench_linrec<staged_tiles<256, 8, 5, 1, 2>>(st, layout); });
      add(name("tune_staged_256x8_s6_d2_mb2", s), [=](benchmark::State& st) { bench_linrec<staged_tiles<256, 8, 6, 2, 2>>(st, layout); });
      add(name("tune_staged_512x4_s5_d1_mb2_reach2", s), [=](benchmark::State& st) { bench_linrec<staged_tiles<512, 4, 5, 1, 2, 8, 2>>(st, layout); });
      // Tiles of 8192 at one block per SM (parked in dynamic shared memory), 8 warps looking back:
      // 0.69 of copy at 2^28 against 0.74 for the default (H200, session 23).
      add(name("tune_deferred_1024x8_mb1_warps8", s), [=](benchmark::State& st) { bench_linrec<deferred_warps<1024, 8, 1, 8>>(st, layout); });
    }
    if (s.rows >= 1024) {
      add(name("tune_row_block_converted_ahead", s), [=](benchmark::State& st) { bench_linrec<row_block_converted_ahead>(st, layout); });
      add(name("tune_row_block_128x8_plain_launch", s), [=](benchmark::State& st) { bench_linrec<row_block_tiles<128, 8, false>>(st, layout); });
      add(name("tune_row_block_256x4", s), [=](benchmark::State& st) { bench_linrec<row_block_tiles<256, 4>>(st, layout); });
      add(name("tune_row_block_128x4", s), [=](benchmark::State& st) { bench_linrec<row_block_tiles<128, 4>>(st, layout); });
      add(name("tune_row_block_128x8", s), [=](benchmark::State& st) { bench_linrec<row_block_tiles<128, 8>>(st, layout); });
      add(name("tune_row_block_256x8", s), [=](benchmark::State& st) { bench_linrec<row_block_tiles<256, 8>>(st, layout); });
      add(name("tune_row_block_512x8", s), [=](benchmark::State& st) { bench_linrec<row_block_tiles<512, 8>>(st, layout); });
    }
  }
}

}  // namespace

int main(int argc, char** argv) { return linrec_bench::bench_main(argc, argv, "linrec_bench", register_all); }
