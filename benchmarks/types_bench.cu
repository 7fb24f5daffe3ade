// types_bench — linear_recurrence with bf16 storage (6 B per element: a, b read, h written) and
// complex64 storage (24 B per element), next to fp32 (12 B), on the shapes issue 5 names, and the
// backward pass in bf16 and fp32 (5 elements moved per step), each
// against a device-to-device copy of the same bytes measured in this run.
//
// Every output is checked first against a one-thread-per-sequence loop carried in the same
// accumulator (rounded once to h's type), so a wrong result never gets a time.
#include "bench_support.cuh"

#include <benchmark/benchmark.h>
#include <linrec/linrec.cuh>

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace {

using namespace linrec_bench;
using linrec::tensor_layout;
using cfloat = cuda::std::complex<float>;

template <typename S>
__host__ __device__ S from_float(float re, float im) {
  if constexpr (linrec::is_complex_v<S>) {
    return S(re, im);
  } else {
    return linrec::detail::convert<S>(re);
  }
}

// |a| in [0.5, 1) (a random phase for complex), b in [-1, 1).
template <typename S>
__global__ void fill_typed(S* a, S* b, std::int64_t n, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const float r = 0.5f + 0.5f * unit_hash(seed + 4 * std::uint64_t(i));
    const float phase = 6.2831853f * unit_hash(seed + 4 * std::uint64_t(i) + 1);
    a[i] = linrec::is_complex_v<S> ? from_float<S>(r * cosf(phase), r * sinf(phase)) : from_float<S>(r, 0);
    b[i] = from_float<S>(2 * unit_hash(seed + 4 * std::uint64_t(i) + 2) - 1, 2 * unit_hash(seed + 4 * std::uint64_t(i) + 3) - 1);
  }
}

// The reference: one thread per (batch, channel) sequence, in the accumulator.
template <typename S>
__global__ void sequential_typed(const S* a, const S* b, S* h, tensor_layout l) {
  using Acc = linrec::accumulator_t<S>;
  for (std::int64_t s = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; s < l.batch * l.channels;
       s += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t bi = s / l.channels, c = s - bi * l.channels;
    Acc state = Acc(0);
    for (std::int64_t t = 0; t < l.length; ++t) {
      const std::int64_t i = l.h.offset(bi, t, c);
      state = linrec::detail::multiply_add(linrec::detail::convert<Acc>(a[i]), state, linrec::detail::convert<Acc>(b[i]));
      h[i] = linrec::detail::convert<S>(state);
    }
  }
}

template <typename S>
double magnitude(const S& x) {
  if constexpr (linrec::is_complex_v<S>) {
    return std::hypot(double(x.real()), double(x.imag()));
  } else {
    return std::fabs(double(linrec::detail::convert<float>(x)));
  }
}
template <typename S>
double difference(const S& x, const S& y) {
  if constexpr (linrec::is_complex_v<S>) {
    return std::hypot(double(x.real()) - double(y.real()), double(x.imag()) - double(y.imag()));
  } else {
    return std::fabs(double(linrec::detail::convert<float>(x)) - double(linrec::detail::convert<float>(y)));
  }
}

// The worst of |got - want| / (1 + |want|) over n elements of two device arrays.
template <typename S>
double worst_difference(const S* got_d, const S* want_d, std::int64_t n) {
  std::vector<S> got(static_cast<std::size_t>(n)), want(static_cast<std::size_t>(n));
  CHECK(cudaMemcpy(got.data(), got_d, std::size_t(n) * sizeof(S), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(want.data(), want_d, std::size_t(n) * sizeof(S), cudaMemcpyDeviceToHost));
  double worst = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double e = difference(got[i], want[i]) / (1 + magnitude(want[i]));
    worst = std::isnan(e) ? INFINITY : std::max(worst, e);
  }
  return worst;
}

// Both sides round the accumulator's result once: they may differ by an ulp of the storage type
// (2^-7 relative for bf16) plus the accumulators' roundings in their different orders.
template <typename S>
constexpr double storage_tolerance() {
  return sizeof(S) == 2 ? 1.0 / 64 : 1e-4;
}

// Times `call` over the rotated copies and sets the counters, for `moved` bytes a call of which
// `bytes_per_element` per element, against a copy of the same bytes taking `roofline_ms`.
void time_and_count(benchmark::State& state, const std::function<void(int)>& call, std::size_t moved, int copies,
                    double roofline_ms, std::size_t bytes_per_element) {
  const int calls = calls_per_batch(std::int64_t(moved));
  time_batch(call, calls, copies);
  std::vector<double> ms;
  for (auto _ : state) {
    const double t = time_batch(call, calls, copies).device_ms;
    ms.push_back(t);
    state.SetIterationTime(t * 1e-3);
  }
  const double med = median(ms);
  state.counters["median_us"] = 1e3 * med;
  state.counters["bytes_per_element"] = double(bytes_per_element);
  state.counters["GBps"] = double(moved) / (med * 1e-3) / 1e9;
  state.counters["copy_GBps"] = double(moved) / (roofline_ms * 1e-3) / 1e9;
  state.counters["copy_fraction"] = roofline_ms / med;
}

template <typename S, typename Policy = linrec::auto_policy>
void bench_typed(benchmark::State& state, tensor_layout l) {
  const std::int64_t n = l.elements();
  const std::size_t moved = 3 * sizeof(S) * std::size_t(n);
  const double roofline_ms = copy_ms(moved);
  std::size_t temp_bytes = 0;
  if (!linrec::linear_recurrence<S, Policy>(nullptr, temp_bytes, nullptr, nullptr, nullptr, l)) {
    state.SkipWithError("size query failed");
    return;
  }
  const int copies = int(std::max<std::size_t>(1, (min_working_set + moved - 1) / moved));
  std::vector<S*> a(copies), b(copies), h(copies);
  for (int c = 0; c < copies; ++c) {
    CHECK(cudaMalloc(&a[c], std::size_t(n) * sizeof(S)));
    CHECK(cudaMalloc(&b[c], std::size_t(n) * sizeof(S)));
    CHECK(cudaMalloc(&h[c], std::size_t(n) * sizeof(S)));
    fill_typed<<<2048, 256>>>(a[c], b[c], n, 0x7e570000ull * (c + 1));
    CHECK(cudaGetLastError());
  }
  void* temp = nullptr;
  CHECK(cudaMalloc(&temp, std::max<std::size_t>(temp_bytes, 16)));
  CHECK(cudaDeviceSynchronize());  // the fills ran on the legacy stream, the timed calls run on another
  linrec::status status;
  const auto call = [&](int c) {
    std::size_t bytes = temp_bytes;
    status = linrec::linear_recurrence<S, Policy>(temp, bytes, a[c], b[c], h[c], l, nullptr, nullptr, bench_stream());
  };
  call(0);
  CHECK(cudaStreamSynchronize(bench_stream()));
  bool ok = status.ok();
  if (ok) {
    S* expected = nullptr;
    CHECK(cudaMalloc(&expected, std::size_t(n) * sizeof(S)));
    sequential_typed<<<unsigned((l.batch * l.channels + 127) / 128), 128, 0, bench_stream()>>>(a[0], b[0], expected, l);
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(bench_stream()));  // a non-blocking stream: the copies below do not wait
    const double worst = worst_difference(h[0], expected, n);
    CHECK(cudaFree(expected));
    const double tolerance = storage_tolerance<S>();
    if (!(worst <= tolerance)) {
      state.SkipWithError(("differs from the sequential loop by " + std::to_string(worst)).c_str());
      ok = false;
    }
  } else {
    state.SkipWithError(status.message());
  }
  if (ok) time_and_count(state, call, moved, copies, roofline_ms, 3 * sizeof(S));
  for (int c = 0; c < copies; ++c) cudaFree(a[c]), cudaFree(b[c]), cudaFree(h[c]);
  cudaFree(temp);
}

// The backward pass's reference: one thread per (batch, channel) sequence walking time backwards,
// in the accumulator (see linear_recurrence_backward.cuh; h0 and g_final are 0 here).
template <typename S>
__global__ void sequential_adjoint_typed(const S* a, const S* h, const S* g, S* da, S* db, tensor_layout l) {
  using Acc = linrec::accumulator_t<S>;
  using linrec::detail::conjugate;
  using linrec::detail::convert;
  for (std::int64_t s = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; s < l.batch * l.channels;
       s += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t bi = s / l.channels, c = s - bi * l.channels;
    Acc delta = Acc(0);
    for (std::int64_t t = l.length - 1; t >= 0; --t) {
      const Acc later = t + 1 < l.length ? conjugate(convert<Acc>(a[l.a.offset(bi, t + 1, c)])) : Acc(0);
      delta = linrec::detail::multiply_add(later, delta, convert<Acc>(g[l.h.offset(bi, t, c)]));
      const Acc before = t > 0 ? conjugate(convert<Acc>(h[l.h.offset(bi, t - 1, c)])) : Acc(0);
      db[l.b.offset(bi, t, c)] = convert<S>(delta);
      da[l.a.offset(bi, t, c)] = convert<S>(linrec::detail::multiply(delta, before));
    }
  }
}

// The backward pass in storage S: a, h and g read, da and db written (5 elements moved per step).
template <typename S, typename Policy = linrec::default_policy<S>>
void bench_typed_backward(benchmark::State& state, tensor_layout l) {
  const std::int64_t n = l.elements();
  const std::size_t moved = 5 * sizeof(S) * std::size_t(n);
  const double roofline_ms = copy_ms(moved);
  std::size_t temp_bytes = 0;
  if (!linrec::linear_recurrence_backward<S, Policy>(nullptr, temp_bytes, nullptr, nullptr, nullptr, nullptr, nullptr, l)) {
    state.SkipWithError("size query failed");
    return;
  }
  const int copies = int(std::max<std::size_t>(1, (min_working_set + moved - 1) / moved));
  std::vector<S*> a(copies), g(copies), h(copies);
  S *da, *db, *want_da, *want_db;
  for (int c = 0; c < copies; ++c) {
    CHECK(cudaMalloc(&a[c], std::size_t(n) * sizeof(S)));
    CHECK(cudaMalloc(&g[c], std::size_t(n) * sizeof(S)));
    CHECK(cudaMalloc(&h[c], std::size_t(n) * sizeof(S)));
    fill_typed<<<2048, 256>>>(a[c], g[c], n, 0x7e580000ull * (c + 1));
    CHECK(cudaGetLastError());
    sequential_typed<<<unsigned((l.batch * l.channels + 127) / 128), 128>>>(a[c], g[c], h[c], l);
    CHECK(cudaGetLastError());
  }
  for (S** p : {&da, &db, &want_da, &want_db}) CHECK(cudaMalloc(p, std::size_t(n) * sizeof(S)));
  void* temp = nullptr;
  CHECK(cudaMalloc(&temp, std::max<std::size_t>(temp_bytes, 16)));
  sequential_adjoint_typed<<<unsigned((l.batch * l.channels + 127) / 128), 128>>>(a[0], h[0], g[0], want_da, want_db, l);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());  // the legacy stream's work, before the timed stream's
  linrec::status status;
  const auto call = [&](int c) {
    std::size_t bytes = temp_bytes;
    status = linrec::linear_recurrence_backward<S, Policy>(temp, bytes, a[c], h[c], g[c], da, db, l, nullptr,
                                                           nullptr, nullptr, bench_stream());
  };
  call(0);
  CHECK(cudaStreamSynchronize(bench_stream()));
  bool ok = status.ok();
  if (!ok) state.SkipWithError(status.message());
  const double tolerance = storage_tolerance<S>();
  if (ok) {
    const double worst = std::max(worst_difference(da, want_da, n), worst_difference(db, want_db, n));
    if (!(worst <= tolerance)) {
      state.SkipWithError(("gradients differ from the sequential adjoint by " + std::to_string(worst)).c_str());
      ok = false;
    }
  }
  if (ok) time_and_count(state, call, moved, copies, roofline_ms, 5 * sizeof(S));
  for (int c = 0; c < copies; ++c) cudaFree(a[c]), cudaFree(g[c]), cudaFree(h[c]);
  cudaFree(da), cudaFree(db), cudaFree(want_da), cudaFree(want_db), cudaFree(temp);
}

// Tuning: bf16 channel tiles as they were before the default went to 8 lanes of 8 steps and one
// block per SM (32 lanes of 2 steps, 2 blocks per SM).
struct bf16_short_tiles : linrec::default_policy<__nv_bfloat16> {
  static constexpr linrec::strategy forced = linrec::strategy::channel_tiles;
  static constexpr int channel_steps = 2;
  static constexpr int channel_max_lanes = 32;
  static constexpr int channel_min_blocks = 2;
};

// Tuning: the channel walk (bf16 unless S says) by block shape (threads, lanes), whether each
// thread's tiles are staged in shared memory and how many tiles ahead, against the default (128
// threads of 8 lanes, staged two tiles ahead since session 27): staged one tile ahead (the
// default before), unstaged, 64 × 4 (the default before that) both ways, 128 × 16 (fp32's
// lanes), 64 × 8, and wider blocks or more stages.
template <int Threads, int Lanes, bool Staged, int StageTiles = 1, typename S = __nv_bfloat16>
struct walk_shape : linrec::default_policy<S> {
  static constexpr linrec::strategy forced = linrec::strategy::channel_walk;
  static constexpr int channel_walk_threads = Threads;
  static constexpr int channel_walk_lanes = Lanes;
  static constexpr bool channel_walk_prefetch = Staged;
  static constexpr int channel_walk_stage_tiles = StageTiles;
};
// Tuning: bf16 channel tiles of fewer steps a thread, more blocks per SM.
template <int Steps, int MinBlocks>
struct bf16_tiles : linrec::default_policy<__nv_bfloat16> {
  static constexpr linrec::strategy forced = linrec::strategy::channel_tiles;
  static constexpr int channel_steps = Steps;
  static constexpr int channel_min_blocks = MinBlocks;
};

// Tuning: how many rounds of the grid ahead a channel-tile block asks L2 for its inputs.
template <typename S, int TileRounds>
struct tile_prefetch_rounds : linrec::default_policy<S> {
  static constexpr linrec::strategy forced = linrec::strategy::channel_tiles;
  static constexpr int channel_prefetch_rounds = TileRounds;
};

// Tuning: the channel tiles looking back over 64 chunks a round from this many chunks in flight
// per channel group (1: wherever there are as many blocks as groups).
template <typename S, std::int64_t WideFrom>
struct tile_window : linrec::default_policy<S> {
  static constexpr linrec::strategy forced = linrec::strategy::channel_tiles;
  static constexpr std::int64_t channel_wide_lookback_in_flight = WideFrom;
};

// Tuning: the channel tiles with each thread's run of Steps steps in registers (the type's
// channel_steps unless given) continued in shared memory by Chunks more runs of as many steps
// (channel_shared_chunks), asking L2 for tiles PrefetchRounds rounds ahead (the type's default
// unless given: a tile (1 + Chunks) times as tall asks for as many more bytes a round, which may
// outgrow what L2 keeps until the round comes).
template <typename S, int Chunks, int PrefetchRounds = linrec::default_policy<S>::channel_prefetch_rounds,
          int Steps = linrec::default_policy<S>::channel_steps>
struct tile_shared_runs : linrec::default_policy<S> {
  static constexpr linrec::strategy forced = linrec::strategy::channel_tiles;
  static constexpr int channel_steps = Steps;
  static constexpr int channel_shared_chunks = Chunks;
  static constexpr std::int64_t channel_few_groups = 0;  // these runs for every shape
  static constexpr int channel_prefetch_rounds = PrefetchRounds;
};

// Tuning: the backward pass's channel tiles with Chunks runs in shared memory
// (channel_backward_shared_chunks).
template <typename S, int Chunks>
struct tile_backward_shared_runs : linrec::default_policy<S> {
  static constexpr linrec::strategy forced = linrec::strategy::channel_tiles;
  static constexpr int channel_backward_shared_chunks = Chunks;
};

// The channel tiles with the default knobs: what the shapes with few channel groups took before
// the narrow walk (session 32).
template <typename S>
struct forced_tiles : linrec::default_policy<S> {
  static constexpr linrec::strategy forced = linrec::strategy::channel_tiles;
};
// The automatic choice without the narrow walk, which picks the tuning lines a shape gets.
struct without_narrow_walk : linrec::default_policy<__nv_bfloat16> {
  static constexpr std::int64_t channel_narrow_walk_min_groups = 0;
};

// Tuning: block_per_row tiles by threads, tiles asked of L2 ahead and whether the tile ahead is
// held as loaded (row_block_hold_loaded), for storage S. Since session 26 the default holds the
// tile ahead, asks none ahead, at 256 threads for the 2-byte types (0.97-0.98 of copy at 1024 ×
// 65536 bf16, H200) and 128 for the rest.
template <typename S, int Threads, int Prefetch, bool Held = true>
struct row_tiles : linrec::default_policy<S> {
  static constexpr int row_block_threads = Threads;
  static constexpr int row_block_prefetch_tiles = Prefetch;
  static constexpr bool row_block_hold_loaded = Held;
};

void register_all() {
  struct shape {
    const char* name;
    tensor_layout layout;
  };
  const shape shapes[] = {
      {"[B:1,T:65536,C:1024]", tensor_layout::batch_time_channels(1, 65536, 1024)},
      {"[B:8,T:4096,C:4096]", tensor_layout::batch_time_channels(8, 4096, 4096)},
      {"rows:1024/T:65536", tensor_layout::batch_channels_time(1, 65536, 1024)},
      // Few channel groups (bf16: 2 of 64 channels; complex64: 8 of 16), where fp32 gains from
      // taller tiles (channel_few_groups): whether the shared-run lines do here too.
      {"[B:1,T:2097152,C:128]", tensor_layout::batch_time_channels(1, 1 << 21, 128)},
      // A length that tiles of 256, 512, 768, 896 and 1024 steps all divide (64512 = 63 × 1024 =
      // 84 × 768 = 72 × 896): whether the taller bf16 tiles collapse only where T leaves each
      // group a partial last chunk (session 39).
      {"[B:1,T:64512,C:1024]", tensor_layout::batch_time_channels(1, 64512, 1024)},
  };
  for (const shape& s : shapes) {
    const tensor_layout l = s.layout;
    const auto add = [&](const std::string& name, auto fn) {
      benchmark::RegisterBenchmark((name + "/" + s.name).c_str(), fn)
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond)
          ->Iterations(30);
    };
    add("bf16", [=](benchmark::State& st) { bench_typed<__nv_bfloat16>(st, l); });
    add("fp16", [=](benchmark::State& st) { bench_typed<__half>(st, l); });
    add("fp32", [=](benchmark::State& st) { bench_typed<float>(st, l); });
    add("complex64", [=](benchmark::State& st) { bench_typed<cfloat>(st, l); });
    add("bf16_backward", [=](benchmark::State& st) { bench_typed_backward<__nv_bfloat16>(st, l); });
    add("fp32_backward", [=](benchmark::State& st) { bench_typed_backward<float>(st, l); });
    // complex64's backward pass keeps runs of 16 steps (channel_backward_steps) where its forward
    // pass takes runs of 8: this line is what would say whether it should follow.
    add("complex64_backward", [=](benchmark::State& st) { bench_typed_backward<cfloat>(st, l); });
    using bf16 = __nv_bfloat16;
    switch (linrec::chosen_strategy<bf16, without_narrow_walk>(l)) {
      case linrec::strategy::block_per_row:
        // The default before session 26 (128 threads, 2 tiles asked ahead, converted as loaded):
        // 0.87 of copy in bf16.
        add("tune_bf16_rows_128_prefetch2_converted", [=](benchmark::State& st) { bench_typed<bf16, row_tiles<bf16, 128, 2, false>>(st, l); });
        add("tune_bf16_rows_256_converted", [=](benchmark::State& st) { bench_typed<bf16, row_tiles<bf16, 256, 0, false>>(st, l); });
        add("tune_bf16_rows_128", [=](benchmark::State& st) { bench_typed<bf16, row_tiles<bf16, 128, 0>>(st, l); });
        add("tune_bf16_rows_512", [=](benchmark::State& st) { bench_typed<bf16, row_tiles<bf16, 512, 0>>(st, l); });
        add("tune_bf16_rows_256_prefetch1", [=](benchmark::State& st) { bench_typed<bf16, row_tiles<bf16, 256, 1>>(st, l); });
        add("tune_bf16_rows_256_prefetch2", [=](benchmark::State& st) { bench_typed<bf16, row_tiles<bf16, 256, 2>>(st, l); });
        add("tune_fp16_rows_128_prefetch2_converted", [=](benchmark::State& st) { bench_typed<__half, row_tiles<__half, 128, 2, false>>(st, l); });
        add("tune_fp32_rows_256", [=](benchmark::State& st) { bench_typed<float, row_tiles<float, 256, 0>>(st, l); });
        add("tune_fp32_rows_512", [=](benchmark::State& st) { bench_typed<float, row_tiles<float, 512, 0>>(st, l); });
        add("tune_fp32_rows_128_converted", [=](benchmark::State& st) { bench_typed<float, row_tiles<float, 128, 0, false>>(st, l); });
        add("tune_complex64_rows_256", [=](benchmark::State& st) { bench_typed<cfloat, row_tiles<cfloat, 256, 0>>(st, l); });
        add("tune_complex64_rows_128_converted", [=](benchmark::State& st) { bench_typed<cfloat, row_tiles<cfloat, 128, 0, false>>(st, l); });
        break;
      case linrec::strategy::channel_walk:
        add("tune_bf16_walk_128x8_unstaged", [=](benchmark::State& st) { bench_typed<bf16, walk_shape<128, 8, false>>(st, l); });
        add("tune_bf16_walk_64x4", [=](benchmark::State& st) { bench_typed<bf16, walk_shape<64, 4, false>>(st, l); });
        add("tune_bf16_walk_64x4_staged", [=](benchmark::State& st) { bench_typed<bf16, walk_shape<64, 4, true>>(st, l); });
        add("tune_bf16_walk_128x16", [=](benchmark::State& st) { bench_typed<bf16, walk_shape<128, 16, false>>(st, l); });
        add("tune_bf16_walk_64x8", [=](benchmark::State& st) { bench_typed<bf16, walk_shape<64, 8, false>>(st, l); });
        add("tune_bf16_walk_128x8_staged1", [=](benchmark::State& st) { bench_typed<bf16, walk_shape<128, 8, true, 1>>(st, l); });
        add("tune_fp16_walk_128x8_staged1", [=](benchmark::State& st) { bench_typed<__half, walk_shape<128, 8, true, 1, __half>>(st, l); });
        add("tune_bf16_walk_128x8_staged3", [=](benchmark::State& st) { bench_typed<bf16, walk_shape<128, 8, true, 3>>(st, l); });
        add("tune_bf16_walk_128x16_staged2", [=](benchmark::State& st) { bench_typed<bf16, walk_shape<128, 16, true, 2>>(st, l); });
        add("tune_bf16_walk_256x16_staged1", [=](benchmark::State& st) { bench_typed<bf16, walk_shape<256, 16, true, 1>>(st, l); });
        add("tune_bf16_walk_256x16_staged2", [=](benchmark::State& st) { bench_typed<bf16, walk_shape<256, 16, true, 2>>(st, l); });
        add("tune_bf16_walk_256x8_staged2", [=](benchmark::State& st) { bench_typed<bf16, walk_shape<256, 8, true, 2>>(st, l); });
        add("tune_fp32_walk_128x16_staged2", [=](benchmark::State& st) { bench_typed<float, walk_shape<128, 16, true, 2, float>>(st, l); });
        break;
      case linrec::strategy::channel_tiles:
        // L2 asked a round ahead: off for fp32 (session 28), for the 2-byte types (session 41:
        // their three runs in shared memory lose with it) and for complex64 (session 49: its runs
        // in shared memory lose with it; on from session 28).
        add("tune_bf16_prefetch1", [=](benchmark::State& st) { bench_typed<bf16, tile_prefetch_rounds<bf16, 1>>(st, l); });
        add("tune_fp16_prefetch1", [=](benchmark::State& st) { bench_typed<__half, tile_prefetch_rounds<__half, 1>>(st, l); });
        add("tune_fp32_prefetch1", [=](benchmark::State& st) { bench_typed<float, tile_prefetch_rounds<float, 1>>(st, l); });
        add("tune_complex64_prefetch1", [=](benchmark::State& st) { bench_typed<cfloat, tile_prefetch_rounds<cfloat, 1>>(st, l); });
        add("tune_bf16_short_tiles", [=](benchmark::State& st) { bench_typed<bf16, bf16_short_tiles>(st, l); });
        add("tune_bf16_tiles_s4_mb2", [=](benchmark::State& st) { bench_typed<bf16, bf16_tiles<4, 2>>(st, l); });
        add("tune_bf16_window64", [=](benchmark::State& st) { bench_typed<bf16, tile_window<bf16, 1>>(st, l); });
        add("tune_complex64_window64", [=](benchmark::State& st) { bench_typed<cfloat, tile_window<cfloat, 1>>(st, l); });
        add("tune_bf16_shared2", [=](benchmark::State& st) { bench_typed<bf16, tile_shared_runs<bf16, 2, 1>>(st, l); });
        // complex64's defaults before: runs of 16 steps in registers, none in shared memory with
        // L2 asked a round ahead (until session 49), then one in shared memory without it (session
        // 49); the default since, three runs of 8 (tiles of 1024 steps, as tall), is
        // tune_complex64_tiles below. Two runs of 8 steps: tiles of 768. (Two shared runs of 16
        // steps take 256 KB a block: they do not fit.)
        add("tune_complex64_shared0_prefetch1", [=](benchmark::State& st) { bench_typed<cfloat, tile_shared_runs<cfloat, 0, 1, 16>>(st, l); });
        add("tune_complex64_s16_shared1", [=](benchmark::State& st) { bench_typed<cfloat, tile_shared_runs<cfloat, 1, 0, 16>>(st, l); });
        add("tune_complex64_s8_shared2", [=](benchmark::State& st) { bench_typed<cfloat, tile_shared_runs<cfloat, 2, 0, 8>>(st, l); });
        // bf16's defaults before: no runs in shared memory (until session 35), one run with the
        // L2 prefetch (sessions 35-40; fp16 too); the default since, three runs without it, is
        // tune_bf16_tiles below.
        add("tune_bf16_shared0", [=](benchmark::State& st) { bench_typed<bf16, tile_shared_runs<bf16, 0>>(st, l); });
        add("tune_bf16_shared1_prefetch1", [=](benchmark::State& st) { bench_typed<bf16, tile_shared_runs<bf16, 1, 1>>(st, l); });
        add("tune_fp16_shared1_prefetch1", [=](benchmark::State& st) { bench_typed<__half, tile_shared_runs<__half, 1, 1>>(st, l); });
        // The backward pass's runs (channel_backward_shared_chunks: one by default) at none and at
        // the forward's three.
        add("tune_bf16_backward_shared0", [=](benchmark::State& st) { bench_typed_backward<bf16, tile_backward_shared_runs<bf16, 0>>(st, l); });
        add("tune_bf16_backward_shared3", [=](benchmark::State& st) { bench_typed_backward<bf16, tile_backward_shared_runs<bf16, 3>>(st, l); });
        add("tune_bf16_shared1_prefetch0", [=](benchmark::State& st) { bench_typed<bf16, tile_shared_runs<bf16, 1, 0>>(st, l); });
        add("tune_bf16_shared2_prefetch0", [=](benchmark::State& st) { bench_typed<bf16, tile_shared_runs<bf16, 2, 0>>(st, l); });
        // 4 steps a thread in registers and 3, 5 or 6 runs of 4 in shared memory, or 2 steps and
        // 11 runs of 2: tiles of 512, 768, 896 and 768 steps without spills, where 8 steps with 2
        // or 3 runs of 8 spill (ptxas with the runs' loops rolled, session 40: 44 bytes without
        // the L2 prefetch, 172 with it; session 38, unrolled: 92 and 160). Session 39 (H100): the
        // tiles of 768 and 896 steps collapse all the same (0.23-0.33 of copy at
        // [1, 65536, 1024] against 0.68), so the spills were not the cause. Session 40: the
        // instruction cache was (the runs' unrolled loops); rolled, 0.56-0.72.
        add("tune_bf16_s4_shared3", [=](benchmark::State& st) { bench_typed<bf16, tile_shared_runs<bf16, 3, 1, 4>>(st, l); });
        add("tune_bf16_s4_shared5", [=](benchmark::State& st) { bench_typed<bf16, tile_shared_runs<bf16, 5, 1, 4>>(st, l); });
        add("tune_bf16_s4_shared5_prefetch0", [=](benchmark::State& st) { bench_typed<bf16, tile_shared_runs<bf16, 5, 0, 4>>(st, l); });
        add("tune_bf16_s4_shared6", [=](benchmark::State& st) { bench_typed<bf16, tile_shared_runs<bf16, 6, 1, 4>>(st, l); });
        add("tune_bf16_s4_shared6_prefetch0", [=](benchmark::State& st) { bench_typed<bf16, tile_shared_runs<bf16, 6, 0, 4>>(st, l); });
        add("tune_bf16_s2_shared11_prefetch0", [=](benchmark::State& st) { bench_typed<bf16, tile_shared_runs<bf16, 11, 0, 2>>(st, l); });
        add("tune_bf16_tiles", [=](benchmark::State& st) { bench_typed<bf16, forced_tiles<bf16>>(st, l); });
        add("tune_fp32_tiles", [=](benchmark::State& st) { bench_typed<float, forced_tiles<float>>(st, l); });
        add("tune_complex64_tiles", [=](benchmark::State& st) { bench_typed<cfloat, forced_tiles<cfloat>>(st, l); });
        // The walk over narrow channel groups by shape (slower than the tiles here: session 32).
        // bf16: one lane is 8 channels (16 bytes a step: 128 groups) and two lanes 16 (32 bytes:
        // 64 groups); complex64: two lanes are 4 channels (32 bytes: 256 groups); fp32: 8.
        add("tune_bf16_narrow_walk_256x1", [=](benchmark::State& st) { bench_typed<bf16, walk_shape<256, 1, true, 2>>(st, l); });
        add("tune_bf16_narrow_walk_128x2", [=](benchmark::State& st) { bench_typed<bf16, walk_shape<128, 2, true, 2>>(st, l); });
        add("tune_complex64_narrow_walk_128x2", [=](benchmark::State& st) { bench_typed<cfloat, walk_shape<128, 2, true, 2, cfloat>>(st, l); });
        add("tune_fp32_narrow_walk_256x2", [=](benchmark::State& st) { bench_typed<float, walk_shape<256, 2, true, 2, float>>(st, l); });
        break;
      default:
        break;
    }
  }
}

}  // namespace

int main(int argc, char** argv) { return linrec_bench::bench_main(argc, argv, "types_bench", register_all); }
