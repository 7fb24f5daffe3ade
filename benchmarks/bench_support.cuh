// benchmarks/bench_support.cuh — what every linrec benchmark shares: CUDA-event timing of batches of
// calls, inputs rotated through enough copies to outgrow the L2, the copy roofline measured in the
// same run, and the counters each benchmark reports.
#pragma once

#include <benchmark/benchmark.h>
#include <linrec/tensor_layout.cuh>

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <utility>
#include <vector>

namespace linrec_bench {

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}
#define CHECK(call) ::linrec_bench::check((call), #call)

constexpr std::size_t min_working_set = std::size_t(256) << 20;  // > 4x the H200's 60 MB L2

__host__ __device__ inline float unit_hash(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return float((x ^ (x >> 31)) >> 40) * (1.0f / 16777216.0f);
}

__global__ void fill_inputs(float* a, float* b, std::int64_t n, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    a[i] = 0.5f + 0.5f * unit_hash(seed + 2 * std::uint64_t(i));
    b[i] = 2.0f * unit_hash(seed + 2 * std::uint64_t(i) + 1) - 1.0f;
  }
}

// How many copies of a problem of n fp32 elements (12 B each) keep the working set above the L2.
inline int copies_for(std::int64_t n) {
  const std::size_t set_bytes = 12 * std::size_t(n);
  return int(std::max<std::size_t>(1, (min_working_set + set_bytes - 1) / set_bytes));
}

// Rotating copies of one problem's inputs and outputs.
struct data_sets {
  std::int64_t elements = 0;
  int copies = 0;
  std::vector<float*> a, b, h;
  void* temp = nullptr;
  std::size_t temp_bytes = 0;

  data_sets(std::int64_t n, std::size_t temp_size) : elements(n), copies(copies_for(n)) {
    for (int c = 0; c < copies; ++c) {
      float *pa, *pb, *ph;
      CHECK(cudaMalloc(&pa, n * sizeof(float)));
      CHECK(cudaMalloc(&pb, n * sizeof(float)));
      CHECK(cudaMalloc(&ph, n * sizeof(float)));
      fill_inputs<<<2048, 256>>>(pa, pb, n, 0x5eed0000ull * (c + 1));
      CHECK(cudaGetLastError());
      a.push_back(pa), b.push_back(pb), h.push_back(ph);
    }
    temp_bytes = std::max<std::size_t>(temp_size, 16);
    CHECK(cudaMalloc(&temp, temp_bytes));
    CHECK(cudaDeviceSynchronize());
  }
  ~data_sets() {
    for (int c = 0; c < copies; ++c) cudaFree(a[c]), cudaFree(b[c]), cudaFree(h[c]);
    cudaFree(temp);
  }
};

inline cudaStream_t bench_stream() {
  static cudaStream_t stream = [] {
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    return s;
  }();
  return stream;
}

// Milliseconds per call of a batch: on the device (CUDA events), and on the host enqueueing it.
// When the host time comes near the device time, the batch measured the host, not the GPU.
struct batch_time {
  double device_ms;
  double enqueue_ms;
};

// Times a batch of `calls` calls of `call(copy_index)`.
inline batch_time time_batch(const std::function<void(int)>& call, int calls, int copies) {
  static cudaEvent_t start = nullptr, stop = nullptr;
  if (start == nullptr) {
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
  }
  CHECK(cudaEventRecord(start, bench_stream()));
  const auto host_start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) call(i % copies);
  const double enqueue_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - host_start).count() / calls;
  CHECK(cudaEventRecord(stop, bench_stream()));
  CHECK(cudaEventSynchronize(stop));
  CHECK(cudaGetLastError());
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  return {double(ms) / calls, enqueue_ms};
}

// The same batch captured once into a CUDA graph: each time_batch of the returned call replays it
// (`calls` calls, counted as one), so no host work sits between the calls.
inline std::function<void(int)> captured_batch(const std::function<void(int)>& call, int calls, int copies) {
  cudaGraph_t graph;
  CHECK(cudaStreamBeginCapture(bench_stream(), cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < calls; ++i) call(i % copies);
  CHECK(cudaStreamEndCapture(bench_stream(), &graph));
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaGraphDestroy(graph));
  // Owned by the returned function for the life of the process: a benchmark makes one.
  return [exec](int) { CHECK(cudaGraphLaunch(exec, bench_stream())); };
}

inline int calls_per_batch(std::int64_t bytes) {
  return bytes >= (std::int64_t(512) << 20) ? 1 : bytes >= (std::int64_t(32) << 20) ? 5 : 50;
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median ms per call of a device-to-device copy that reads and writes `bytes` in all (half each
// way), over rotating buffers that keep the working set above the L2.
inline double copy_ms(std::size_t bytes) {
  static std::map<std::size_t, double> cache;
  if (auto it = cache.find(bytes); it != cache.end()) return it->second;
  const std::size_t half = bytes / 2;
  const int copies = int(std::max<std::size_t>(1, (min_working_set + bytes - 1) / bytes));
  std::vector<char*> src, dst;
  for (int c = 0; c < copies; ++c) {
    char *s, *d;
    CHECK(cudaMalloc(&s, half));
    CHECK(cudaMalloc(&d, half));
    CHECK(cudaMemset(s, 1, half));
    src.push_back(s), dst.push_back(d);
  }
  const auto call = [&](int c) { CHECK(cudaMemcpyAsync(dst[c], src[c], half, cudaMemcpyDeviceToDevice, bench_stream())); };
  const int calls = calls_per_batch(std::int64_t(bytes));
  time_batch(call, calls, copies);  // warm-up
  std::vector<double> times;
  for (int i = 0; i < 30; ++i) times.push_back(time_batch(call, calls, copies).device_ms);
  for (int c = 0; c < copies; ++c) cudaFree(src[c]), cudaFree(dst[c]);
  return cache[bytes] = median(times);
}

// The copy of the 12 B per element linrec moves for fp32 (a and b read, h written).
inline double copy_roofline_ms(std::int64_t elements) { return copy_ms(12 * std::size_t(elements)); }

inline void report(benchmark::State& state, const std::vector<double>& ms, std::int64_t elements,
                   double enqueue_ms = 0) {
  const double med = median(ms);
  state.counters["median_us"] = 1e3 * med;
  if (enqueue_ms > 0) state.counters["enqueue_us"] = 1e3 * enqueue_ms;
  state.counters["GBps"] = 12.0 * double(elements) / (med * 1e-3) / 1e9;
  state.counters["copy_GBps"] = 12.0 * double(elements) / (copy_roofline_ms(elements) * 1e-3) / 1e9;
  state.counters["copy_fraction"] = copy_roofline_ms(elements) / med;
}

// A warm-up batch, then one timed batch per benchmark iteration; reports the median, and the
// median host time per call spent enqueueing. With `graph`, each batch is one replay of a CUDA
// graph that captured it.
inline void run_timed(benchmark::State& state, const std::function<void(int)>& call, const data_sets& sets,
                      bool graph = false) {
  const int calls = calls_per_batch(12 * sets.elements);
  const std::function<void(int)> batch = graph ? captured_batch(call, calls, sets.copies) : call;
  const int launches = graph ? 1 : calls;
  time_batch(batch, launches, sets.copies);
  std::vector<double> ms, enqueue_ms;
  for (auto _ : state) {
    const batch_time per_launch = time_batch(batch, launches, sets.copies);
    const double t = per_launch.device_ms * launches / calls;
    ms.push_back(t);
    enqueue_ms.push_back(per_launch.enqueue_ms * launches / calls);
    state.SetIterationTime(t * 1e-3);
  }
  report(state, ms, sets.elements, median(enqueue_ms));
}

/// Max error of the backward pass's da and db (device arrays of `l`'s h layout, as are a, the
/// forward output h and g) against a float64 adjoint on the host, with h0 = g_final = 0.
inline double adjoint_max_error(const float* d_a, const float* d_h, const float* d_g, const float* d_da,
                                const float* d_db, const linrec::tensor_layout& l) {
  const std::size_t m = std::size_t(l.elements());
  std::vector<float> a(m), g(m), h(m), da(m), db(m);
  const std::pair<std::vector<float>*, const float*> copies[] = {{&a, d_a}, {&g, d_g}, {&h, d_h}, {&da, d_da}, {&db, d_db}};
  for (const auto& [host, device] : copies) CHECK(cudaMemcpy(host->data(), device, m * 4, cudaMemcpyDeviceToHost));
  double worst = 0;
  for (std::int64_t bi = 0; bi < l.batch; ++bi) {
    for (std::int64_t c = 0; c < l.channels; ++c) {
      double delta = 0;
      for (std::int64_t t = l.length - 1; t >= 0; --t) {
        const std::size_t i = std::size_t(l.h.offset(bi, t, c));
        delta = double(g[i]) + (t == l.length - 1 ? 0.0 : double(a[std::size_t(l.h.offset(bi, t + 1, c))]) * delta);
        const double want_da = t == 0 ? 0.0 : delta * double(h[std::size_t(l.h.offset(bi, t - 1, c))]);
        const double e = std::fmax(std::fabs(db[i] - delta), std::fabs(da[i] - want_da));
        worst = std::isnan(e) ? INFINITY : std::fmax(worst, e);
      }
    }
  }
  return worst;
}

/// main() of a benchmark binary: refuses to run without a GPU (exit 2), else registers and runs.
inline int bench_main(int argc, char** argv, const char* name, void (*register_all)()) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "%s: no CUDA device; benchmarks need an NVIDIA GPU.\n", name);
    return 2;
  }
  register_all();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace linrec_bench
