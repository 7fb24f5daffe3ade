// tensor_bench — linear_recurrence on channel-last tensors ([batch, time, channels] and
// [time, batch, channels], fp32), against the copy roofline, a one-thread-per-channel sequential
// loop and a three-pass reduce-then-scan, all measured in this one run (timing as in
// linrec_bench: bench_support.cuh). `tile_copy_*` copies with the channel tiles' access pattern and
// residency, without their scan and look-back: the ceiling of those tiles.
//
// Counters besides bench_support's: `floor_ratio`, the time over max(bytes / copy bandwidth,
// 6 us) (issue 3 asks for <= 1.15: flat while the GPU is not full, then at bandwidth), and
// `vs_sequential`, the sequential loop's time over linrec's at the same shape. Every linrec output
// is checked against the sequential loop's before timing.
#include "bench_support.cuh"

#include <benchmark/benchmark.h>
#include <linrec/linrec.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>

namespace {

using namespace linrec_bench;
using linrec::tensor_layout;

// The loop a user writes first: one thread per (batch, channel) walking time, so a warp's loads
// of one step are contiguous channels, with `Ahead` steps loaded before any is used.
template <int Ahead>
__global__ void sequential_loop(const float* a, const float* b, float* h, tensor_layout l) {
  const std::int64_t sequences = l.batch * l.channels;
  for (std::int64_t s = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; s < sequences;
       s += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t bi = s / l.channels, c = s - bi * l.channels;
    // Backwards in time (l.reverse): from the last step, with the time stride negated.
    const std::int64_t base = l.h.offset(bi, l.reverse ? l.length - 1 : 0, c);
    const std::int64_t step = l.reverse ? -l.h.time : l.h.time;
    float state = 0;
    for (std::int64_t t0 = 0; t0 < l.length; t0 += Ahead) {
      float ra[Ahead], rb[Ahead];
#pragma unroll
      for (int k = 0; k < Ahead; ++k) {
        if (t0 + k < l.length) ra[k] = a[base + (t0 + k) * step], rb[k] = b[base + (t0 + k) * step];
      }
#pragma unroll
      for (int k = 0; k < Ahead; ++k) {
        if (t0 + k < l.length) h[base + (t0 + k) * step] = state = fmaf(ra[k], state, rb[k]);
      }
    }
  }
}

void launch_sequential(const float* a, const float* b, float* h, const tensor_layout& l) {
  const std::int64_t sequences = l.batch * l.channels;
  sequential_loop<8><<<unsigned((sequences + 127) / 128), 128, 0, bench_stream()>>>(a, b, h, l);
  CHECK(cudaGetLastError());
}

std::map<std::string, double>& sequential_ms() {
  static std::map<std::string, double> times;
  return times;
}

float max_difference(const float* x, const float* y, std::int64_t n) {
  std::vector<float> hx(static_cast<std::size_t>(n)), hy(static_cast<std::size_t>(n));
  CHECK(cudaMemcpy(hx.data(), x, std::size_t(n) * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hy.data(), y, std::size_t(n) * 4, cudaMemcpyDeviceToHost));
  float worst = 0;
  for (std::size_t i = 0; i < hx.size(); ++i) {
    const float d = std::fabs(hx[i] - hy[i]);
    worst = std::isnan(d) ? INFINITY : std::max(worst, d);
  }
  return worst;
}

// Whether copy 0's output matches the sequential loop on the same inputs; skips the benchmark with
// the difference when not.
bool matches_sequential(benchmark::State& state, const data_sets& sets, const tensor_layout& l) {
  const std::int64_t n = l.elements();
  float* expected = nullptr;
  CHECK(cudaMalloc(&expected, std::size_t(n) * 4));
  launch_sequential(sets.a[0], sets.b[0], expected, l);
  CHECK(cudaStreamSynchronize(bench_stream()));
  const float diff = max_difference(sets.h[0], expected, n);
  CHECK(cudaFree(expected));
  if (!(diff < 1e-4f)) {
    state.SkipWithError(("differs from the sequential loop by " + std::to_string(diff)).c_str());
    return false;
  }
  return true;
}

void add_counters(benchmark::State& state, std::int64_t elements, const std::string& shape) {
  const double med_ms = state.counters["median_us"] / 1e3;
  const double floor_ms = std::max(copy_roofline_ms(elements), 6e-3);
  state.counters["floor_ratio"] = med_ms / floor_ms;
  if (auto it = sequential_ms().find(shape); it != sequential_ms().end()) {
    state.counters["vs_sequential"] = it->second / med_ms;
  }
}

void bench_sequential(benchmark::State& state, tensor_layout l, const std::string& shape) {
  const std::int64_t n = l.elements();
  copy_roofline_ms(n);
  data_sets sets(n, 16);
  const auto call = [&](int c) { launch_sequential(sets.a[c], sets.b[c], sets.h[c], l); };
  run_timed(state, call, sets);
  sequential_ms()[shape] = state.counters["median_us"] / 1e3;
  add_counters(state, n, shape);
}

// The reduce-then-scan users port from Martin & Cundy (2018): pass 1 reduces each chunk of each
// (batch, channel) sequence to its affine map, pass 2 scans those maps along the chunks of each
// sequence, pass 3 rescans every chunk from its carry. One thread per (chunk, sequence), sequences
// fastest so a warp's loads of one step are contiguous channels; a and b are read twice (20 B per
// element against linrec's 12).
struct three_pass_chunks {
  std::int64_t chunks, length;  // chunks per sequence, steps per chunk
};

three_pass_chunks three_pass_chunking(const tensor_layout& l) {
  const std::int64_t sequences = std::max<std::int64_t>(1, l.batch * l.channels);
  const std::int64_t threads = 132 * 2048;  // every SM full
  const std::int64_t wanted = std::clamp<std::int64_t>((threads + sequences - 1) / sequences, 1, std::max<std::int64_t>(1, l.length));
  const std::int64_t length = (l.length + wanted - 1) / wanted;
  return {(l.length + length - 1) / length, length};
}

// Passes 1 and 3, one thread per (chunk, sequence). Pass 1 (Rescan false) writes the chunk's
// map (product of a, state from 0); pass 3 runs the chunk from the carry pass 2 left in maps[].y
// and writes h.
template <bool Rescan>
__global__ void three_pass_chunk(const float* a, const float* b, float* h, float2* maps, tensor_layout l,
                                 three_pass_chunks k) {
  const std::int64_t sequences = l.batch * l.channels;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < sequences * k.chunks;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t chunk = i / sequences, s = i - chunk * sequences;
    const std::int64_t bi = s / l.channels, c = s - bi * l.channels;
    const std::int64_t t1 = min(l.length, (chunk + 1) * k.length);
    float product = 1, state = Rescan ? maps[i].y : 0.0f;
#pragma unroll 8
    for (std::int64_t t = chunk * k.length; t < t1; ++t) {
      const float at = a[l.a.offset(bi, t, c)];
      state = fmaf(at, state, b[l.b.offset(bi, t, c)]);
      if constexpr (Rescan) {
        h[l.h.offset(bi, t, c)] = state;
      } else {
        product *= at;
      }
    }
    if constexpr (!Rescan) maps[i] = {product, state};
  }
}

// Replaces each chunk's map by the state before the chunk (in .y).
__global__ void three_pass_carries(float2* maps, tensor_layout l, three_pass_chunks k) {
  const std::int64_t sequences = l.batch * l.channels;
  for (std::int64_t s = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; s < sequences;
       s += std::int64_t(gridDim.x) * blockDim.x) {
    float state = 0;
    for (std::int64_t chunk = 0; chunk < k.chunks; ++chunk) {
      const float2 m = maps[chunk * sequences + s];
      maps[chunk * sequences + s].y = state;
      state = fmaf(m.x, state, m.y);
    }
  }
}

void bench_three_pass(benchmark::State& state, tensor_layout l, const std::string& shape) {
  const std::int64_t n = l.elements();
  const three_pass_chunks k = three_pass_chunking(l);
  const std::int64_t maps = l.batch * l.channels * k.chunks;
  copy_roofline_ms(n);
  data_sets sets(n, std::size_t(maps) * sizeof(float2));
  float2* scratch = static_cast<float2*>(sets.temp);
  const unsigned blocks = unsigned(std::min<std::int64_t>((maps + 255) / 256, 1 << 20));
  const unsigned sequence_blocks = unsigned((l.batch * l.channels + 255) / 256);
  const auto call = [&](int c) {
    three_pass_chunk<false><<<blocks, 256, 0, bench_stream()>>>(sets.a[c], sets.b[c], nullptr, scratch, l, k);
    three_pass_carries<<<sequence_blocks, 256, 0, bench_stream()>>>(scratch, l, k);
    three_pass_chunk<true><<<blocks, 256, 0, bench_stream()>>>(sets.a[c], sets.b[c], sets.h[c], scratch, l, k);
  };
  call(0);
  CHECK(cudaGetLastError());
  CHECK(cudaStreamSynchronize(bench_stream()));
  if (!matches_sequential(state, sets, l)) return;
  run_timed(state, call, sets);
  add_counters(state, n, shape);
}

// The channel tiles' memory traffic alone, on [1, T, C] with C a multiple of Lanes x 4: blocks of
// Threads threads take tiles of (Threads / Lanes) rows x Steps time steps of Lanes x 4 channels in
// the channel tiles' order (every group's chunk c before any group's chunk c + 1), load a and b
// into registers as 16-byte vectors and store a + b. No scan and no look-back, so it bounds what a
// one-pass kernel with this tile shape and residency can reach. Claim: a persistent grid (as many
// blocks as fit) takes tiles from an atomic counter, as the channel tiles do; else one block a tile.
template <int Threads, int Lanes, int Steps, bool Claim>
__global__ void __launch_bounds__(Threads, 1)
    tile_copy(const float4* a, const float4* b, float4* h, std::int64_t length, std::int64_t channels,
              std::int64_t tiles, unsigned long long* counter) {
  constexpr int rows = Threads / Lanes;
  const std::int64_t row_vectors = channels / 4;
  const std::int64_t groups = channels / (Lanes * 4);
  const std::int64_t chunk_steps = std::int64_t(rows) * Steps;
  const int lane = static_cast<int>(threadIdx.x) % Lanes, row = static_cast<int>(threadIdx.x) / Lanes;
  __shared__ std::int64_t claimed;
  for (std::int64_t tile = blockIdx.x;;) {
    if constexpr (Claim) {
      __syncthreads();  // everyone has read the previous claim
      if (threadIdx.x == 0) claimed = static_cast<std::int64_t>(atomicAdd(counter, 1ull));
      __syncthreads();
      tile = claimed;
    }
    if (tile >= tiles) break;
    const std::int64_t chunk = tile / groups, group = tile - chunk * groups;
    const std::int64_t t0 = chunk * chunk_steps + std::int64_t(row) * Steps;
    const std::int64_t column = group * Lanes + lane;
    float4 x[Steps], y[Steps];
#pragma unroll
    for (int s = 0; s < Steps; ++s) {
      if (t0 + s < length) x[s] = a[(t0 + s) * row_vectors + column], y[s] = b[(t0 + s) * row_vectors + column];
    }
#pragma unroll
    for (int s = 0; s < Steps; ++s) {
      if (t0 + s < length) {
        h[(t0 + s) * row_vectors + column] = make_float4(x[s].x + y[s].x, x[s].y + y[s].y, x[s].z + y[s].z, x[s].w + y[s].w);
      }
    }
    if constexpr (!Claim) break;
  }
}

// How many elements of h are not a + b (tile_copy's check: every element written, none misplaced).
__global__ void count_unlike_sum(const float* a, const float* b, const float* h, std::int64_t n, unsigned long long* wrong) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x) {
    if (!(h[i] == a[i] + b[i])) atomicAdd(wrong, 1ull);
  }
}

template <int Threads, int Lanes, int Steps, bool Claim>
void bench_tile_copy(benchmark::State& state, tensor_layout l, const std::string& shape) {
  const std::int64_t n = l.elements();
  copy_roofline_ms(n);
  data_sets sets(n, sizeof(unsigned long long));
  auto* counter = static_cast<unsigned long long*>(sets.temp);
  const auto kernel = tile_copy<Threads, Lanes, Steps, Claim>;
  int sms = 0, resident = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, Threads, 0));
  const std::int64_t chunk_steps = std::int64_t(Threads / Lanes) * Steps;
  const std::int64_t tiles = l.channels / (Lanes * 4) * ((l.length + chunk_steps - 1) / chunk_steps);
  const unsigned blocks = Claim ? unsigned(sms * resident) : unsigned(tiles);
  const auto call = [&](int c) {
    if (Claim) CHECK(cudaMemsetAsync(counter, 0, sizeof(unsigned long long), bench_stream()));
    kernel<<<blocks, Threads, 0, bench_stream()>>>(
        reinterpret_cast<const float4*>(sets.a[c]), reinterpret_cast<const float4*>(sets.b[c]),
        reinterpret_cast<float4*>(sets.h[c]), l.length, l.channels, tiles, counter);
  };
  call(0);
  CHECK(cudaGetLastError());
  unsigned long long* wrong;
  CHECK(cudaMalloc(&wrong, sizeof(unsigned long long)));
  CHECK(cudaMemsetAsync(wrong, 0, sizeof(unsigned long long), bench_stream()));
  count_unlike_sum<<<1024, 256, 0, bench_stream()>>>(sets.a[0], sets.b[0], sets.h[0], n, wrong);
  CHECK(cudaGetLastError());
  unsigned long long wrong_count = 0;
  CHECK(cudaMemcpyAsync(&wrong_count, wrong, sizeof(wrong_count), cudaMemcpyDeviceToHost, bench_stream()));
  CHECK(cudaStreamSynchronize(bench_stream()));
  CHECK(cudaFree(wrong));
  if (wrong_count != 0) {
    state.SkipWithError((std::to_string(wrong_count) + " elements are not a + b").c_str());
    return;
  }
  run_timed(state, call, sets);
  add_counters(state, n, shape);
}

template <typename Policy>
void bench_linrec(benchmark::State& state, tensor_layout l, const std::string& shape) {
  const std::int64_t n = l.elements();
  std::size_t bytes = 0;
  if (!linrec::linear_recurrence<float, Policy>(nullptr, bytes, nullptr, nullptr, nullptr, l)) {
    state.SkipWithError("size query failed");
    return;
  }
  copy_roofline_ms(n);
  data_sets sets(n, bytes);
  linrec::status status;
  const auto call = [&](int c) {
    std::size_t temp_bytes = sets.temp_bytes;
    status = linrec::linear_recurrence<float, Policy>(sets.temp, temp_bytes, sets.a[c], sets.b[c], sets.h[c], l,
                                                      nullptr, nullptr, bench_stream());
  };
  call(0);
  CHECK(cudaStreamSynchronize(bench_stream()));
  if (!status) {
    state.SkipWithError(status.message());
    return;
  }
  if (!matches_sequential(state, sets, l)) return;
  run_timed(state, call, sets);
  add_counters(state, n, shape);
}

// The backward pass (a, h, g read; da, db written: 20 B per element), its gradients checked against
// a float64 adjoint on the host first. Counters as for the forward, rescaled to 20 B per element.
template <typename Policy = linrec::default_policy<float>>
void bench_backward(benchmark::State& state, tensor_layout l, const std::string& shape) {
  const std::int64_t n = l.elements();
  std::size_t bytes = 0;
  if (!linrec::linear_recurrence_backward<float, Policy>(nullptr, bytes, nullptr, nullptr, nullptr, nullptr, nullptr, l)) {
    state.SkipWithError("size query failed");
    return;
  }
  copy_roofline_ms(n);
  data_sets sets(n, bytes);  // a = a, b = g, h = the forward output
  float *da, *db;
  CHECK(cudaMalloc(&da, std::size_t(n) * 4));
  CHECK(cudaMalloc(&db, std::size_t(n) * 4));
  for (int c = 0; c < sets.copies; ++c) launch_sequential(sets.a[c], sets.b[c], sets.h[c], l);
  linrec::status status;
  const auto call = [&](int c) {
    std::size_t temp_bytes = sets.temp_bytes;
    status = linrec::linear_recurrence_backward<float, Policy>(sets.temp, temp_bytes, sets.a[c], sets.h[c], sets.b[c], da, db, l,
                                                       nullptr, nullptr, nullptr, bench_stream());
  };
  call(0);
  CHECK(cudaStreamSynchronize(bench_stream()));
  if (!status) {
    state.SkipWithError(status.message());
    return;
  }
  if (const double e = adjoint_max_error(sets.a[0], sets.h[0], sets.b[0], da, db, l); !(e < 1e-3)) {
    state.SkipWithError(("wrong gradients, max error " + std::to_string(e)).c_str());
    return;
  }
  run_timed(state, call, sets);
  add_counters(state, n, shape);
  const double med_ms = state.counters["median_us"] / 1e3;
  state.counters["GBps"] = 20.0 * double(n) / (med_ms * 1e-3) / 1e9;
  state.counters["copy_fraction"] = copy_roofline_ms(n) * 20.0 / 12.0 / med_ms;
  cudaFree(da), cudaFree(db);
}

// Tuning candidates for the channel tiles: blocks per SM, steps a thread scans, the most lanes
// across channels, and block threads.
template <int MinBlocks, int Steps, int MaxLanes, int Threads = 256>
struct tiles_tuning : linrec::default_policy<float> {
  static constexpr linrec::strategy forced = linrec::strategy::channel_tiles;
  static constexpr int channel_min_blocks = MinBlocks;
  static constexpr int channel_max_lanes = MaxLanes;
  static constexpr int channel_threads = Threads;
  static constexpr int channel_steps = Steps;
};
// The channel tiles with each thread's run continued in shared memory: Chunks more runs of
// Steps steps (channel_shared_chunks), so a tile spans (1 + Chunks) × Steps steps a thread.
template <int Chunks, int Steps = 16>
struct shared_runs_tuning : linrec::default_policy<float> {
  static constexpr linrec::strategy forced = linrec::strategy::channel_tiles;
  static constexpr int channel_steps = Steps;
  static constexpr int channel_shared_chunks = Chunks;
  static constexpr std::int64_t channel_few_groups = 0;  // these runs for every shape
};
// The channel tiles' L2 prefetch: tiles this many rounds ahead (forward only), and the backward
// pass's h when a tile is loaded.
template <int Rounds, bool StoreInputs>
struct prefetch_tuning : linrec::default_policy<float> {
  static constexpr linrec::strategy forced = linrec::strategy::channel_tiles;
  static constexpr int channel_prefetch_rounds = Rounds;
  static constexpr bool channel_prefetch_store_inputs = StoreInputs;
};
// Tuning: the channel tiles looking back over 64 chunks a round from this many chunks in flight
// per channel group (1: wherever there are as many blocks as groups; 0: never, 32 a round).
template <std::int64_t WideFrom>
struct window_tuning : linrec::default_policy<float> {
  static constexpr linrec::strategy forced = linrec::strategy::channel_tiles;
  static constexpr std::int64_t channel_wide_lookback_in_flight = WideFrom;
};
// Tuning: tiles with channel_few_groups_shared_chunks runs in shared memory up to this many
// channel groups (0: never, the default before session 36 for fp32).
template <std::int64_t FewGroups>
struct few_groups_tuning : linrec::default_policy<float> {
  static constexpr linrec::strategy forced = linrec::strategy::channel_tiles;
  static constexpr std::int64_t channel_few_groups = FewGroups;
};
// The same, asking L2 for the tile a grid's round ahead: a tile twice as tall asks twice the bytes.
struct few_groups_prefetch_tuning : few_groups_tuning<linrec::default_policy<float>::channel_few_groups> {
  static constexpr int channel_prefetch_rounds = 1;
};
// Tuning candidates for the channel walk: block threads, lanes across channels (each 4 channels),
// steps a thread scans, whether each thread's tiles are staged in shared memory, and how many
// tiles ahead.
template <int Threads, int Lanes, int Steps, bool Prefetch, int StageTiles = 2>
struct walk_tuning : linrec::default_policy<float> {
  static constexpr linrec::strategy forced = linrec::strategy::channel_walk;
  static constexpr int channel_walk_threads = Threads;
  static constexpr int channel_walk_lanes = Lanes;
  static constexpr int channel_walk_steps = Steps;
  static constexpr bool channel_walk_prefetch = Prefetch;
  static constexpr int channel_walk_stage_tiles = StageTiles;
};

void register_all() {
  struct shape {
    const char* layout;
    std::int64_t batch, length, channels;
  };
  const shape shapes[] = {
      {"btc", 1, 4096, 1024},   {"btc", 1, 16384, 1024}, {"btc", 1, 65536, 1024}, {"btc", 1, 262144, 1024},
      {"btc", 1, 1 << 22, 64},  {"btc", 8, 4096, 4096},  {"tbc", 8, 4096, 4096},  {"btc", 1, 1024, 262144},
      {"btc", 1, 1024, 1024},   {"btc", 1, 1024, 64},  // launch-bound: 12 MB and 768 KB
      {"btc", 4, 16384, 2048},  // 128 groups of the walk, 1024 narrow groups: eight waves of narrow walks
      {"btc", 1, 1 << 21, 128}, {"btc", 1, 1 << 20, 256}, {"btc", 1, 1 << 19, 512},  // 4, 8, 16 groups of the tiles
  };
  for (const shape& s : shapes) {
    const bool time_major = std::string(s.layout) == "tbc";
    const tensor_layout l = time_major ? tensor_layout::time_batch_channels(s.batch, s.length, s.channels)
                                       : tensor_layout::batch_time_channels(s.batch, s.length, s.channels);
    // Named as the tensor's dimensions in memory order.
    const std::string dims = time_major ? "[T:" + std::to_string(s.length) + ",B:" + std::to_string(s.batch) + ",C:" + std::to_string(s.channels) + "]"
                                        : "[B:" + std::to_string(s.batch) + ",T:" + std::to_string(s.length) + ",C:" + std::to_string(s.channels) + "]";
    const std::int64_t steps = s.length;
    // The loop runs `length` dependent steps per thread: fewer timed iterations when that is long.
    const int loop_iterations = steps >= (1 << 20) ? 3 : steps >= (1 << 16) ? 10 : 30;
    benchmark::RegisterBenchmark(("sequential_loop/" + dims).c_str(),
                                 [=](benchmark::State& st) { bench_sequential(st, l, dims); })
        ->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(loop_iterations);
    const auto add = [&](const std::string& name, auto fn) {
      benchmark::RegisterBenchmark((name + "/" + dims).c_str(), fn)->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(30);
    };
    add("three_pass", [=](benchmark::State& st) { bench_three_pass(st, l, dims); });
    add("linrec", [=](benchmark::State& st) { bench_linrec<linrec::default_policy<float>>(st, l, dims); });
    add("linrec_reverse", [=](benchmark::State& st) { bench_linrec<linrec::default_policy<float>>(st, l.reversed(), dims); });
    if ((s.batch == 1 && (s.length == 65536 || s.length == 4096) && s.channels == 1024) || (s.batch == 8 && s.length == 4096)) {
      add("linrec_backward", [=](benchmark::State& st) { bench_backward(st, l, dims); });
    }
    if (s.batch == 1 && (s.length == 65536 || s.length == 4096) && s.channels == 1024) {
      // The backward pass on channel_tiles with the default knobs (the narrow walk takes 4096).
      add("tune_backward_tiles", [=](benchmark::State& st) { bench_backward<prefetch_tuning<0, true>>(st, l, dims); });
    }
    if (s.batch == 1 && s.length == 65536 && s.channels == 1024) {  // the backward pass on channel_tiles
      add("tune_backward_tiles_no_prefetch", [=](benchmark::State& st) { bench_backward<prefetch_tuning<0, false>>(st, l, dims); });
      add("tune_backward_tiles_shared1", [=](benchmark::State& st) { bench_backward<shared_runs_tuning<1>>(st, l, dims); });
    }
    if (s.batch * s.channels <= 256 * 32) {  // the shapes that took channel_tiles before the narrow walk
      add("tune_tiles", [=](benchmark::State& st) { bench_linrec<window_tuning<32>>(st, l, dims); });  // the default's knobs
    }
    if (s.batch == 1 && s.length >= 65536 && s.channels <= 1024) {
      // Channel groups from 2 to 32: one run in shared memory (up to 16 by default) or none.
      add("tune_tiles_few_groups0", [=](benchmark::State& st) { bench_linrec<few_groups_tuning<0>>(st, l, dims); });
      add("tune_tiles_few_groups32", [=](benchmark::State& st) { bench_linrec<few_groups_tuning<32>>(st, l, dims); });
      add("tune_tiles_few_groups_prefetch1", [=](benchmark::State& st) { bench_linrec<few_groups_prefetch_tuning>(st, l, dims); });
    }
    if (s.batch == 1 && s.length >= (1 << 19) && s.channels <= 512) {
      // The backward pass ignores channel_few_groups: its line with one run is shared_runs_tuning's.
      add("linrec_backward", [=](benchmark::State& st) { bench_backward(st, l, dims); });
      add("tune_backward_tiles_shared1", [=](benchmark::State& st) { bench_backward<shared_runs_tuning<1>>(st, l, dims); });
    }
    if (s.batch * s.channels < 256 * 32) {  // the shapes that take channel_tiles (default: 8 lanes x 16 steps, 1 block per SM)
      add("tune_tiles_shared1", [=](benchmark::State& st) { bench_linrec<shared_runs_tuning<1>>(st, l, dims); });
      add("tune_tiles_s8_shared3", [=](benchmark::State& st) { bench_linrec<shared_runs_tuning<3, 8>>(st, l, dims); });
      add("tune_tiles_prefetch1", [=](benchmark::State& st) { bench_linrec<prefetch_tuning<1, true>>(st, l, dims); });
      add("tune_tiles_window64", [=](benchmark::State& st) { bench_linrec<window_tuning<1>>(st, l, dims); });
      add("tune_tiles_window32", [=](benchmark::State& st) { bench_linrec<window_tuning<0>>(st, l, dims); });
      add("tune_tiles_prefetch2", [=](benchmark::State& st) { bench_linrec<prefetch_tuning<2, true>>(st, l, dims); });
      add("tune_tiles_s4_lanes32", [=](benchmark::State& st) { bench_linrec<tiles_tuning<2, 4, 32>>(st, l, dims); });
      add("tune_tiles_s8_lanes16", [=](benchmark::State& st) { bench_linrec<tiles_tuning<2, 8, 16>>(st, l, dims); });
      add("tune_tiles_s8_lanes32", [=](benchmark::State& st) { bench_linrec<tiles_tuning<2, 8, 32>>(st, l, dims); });
      add("tune_tiles_512x8_lanes8_mb1", [=](benchmark::State& st) { bench_linrec<tiles_tuning<1, 8, 8, 512>>(st, l, dims); });
      add("tune_tiles_s8_lanes8", [=](benchmark::State& st) { bench_linrec<tiles_tuning<2, 8, 8>>(st, l, dims); });
      add("tune_tiles_s4_lanes8_mb3", [=](benchmark::State& st) { bench_linrec<tiles_tuning<3, 4, 8>>(st, l, dims); });
    }
    if (s.batch == 1 && !time_major && s.channels % 32 == 0 && s.batch * s.channels < 256 * 32) {
      // The channel tiles' access pattern as a plain copy (h = a + b): the default tile (256
      // threads, 8 lanes, 16 steps) claimed by persistent blocks as the channel tiles are, and
      // tiles of 4 steps, one block a tile, several resident an SM.
      add("tile_copy_claimed", [=](benchmark::State& st) { bench_tile_copy<256, 8, 16, true>(st, l, dims); });
      add("tile_copy_4_steps", [=](benchmark::State& st) { bench_tile_copy<256, 8, 4, false>(st, l, dims); });
    }
    if (s.batch * s.channels == 1024) {
      // The walk over narrow channel groups, 8 channels (32 contiguous bytes a time step) or 4,
      // so that 1024 channels make 128 or 256 walking blocks, each of 64 to 256 rows of time
      // (more rows than a warp holds: the rows scan by warps, channel_tile_scan). No look-back,
      // no tile status: each block streams its group's time with its tiles staged ahead.
      add("tune_narrow_walk_256x2", [=](benchmark::State& st) { bench_linrec<walk_tuning<256, 2, 8, true, 2>>(st, l, dims); });
      add("tune_narrow_walk_256x2_s1", [=](benchmark::State& st) { bench_linrec<walk_tuning<256, 2, 8, true, 1>>(st, l, dims); });
      add("tune_narrow_walk_128x2_s3", [=](benchmark::State& st) { bench_linrec<walk_tuning<128, 2, 8, true, 3>>(st, l, dims); });
      add("tune_narrow_walk_64x2_s4", [=](benchmark::State& st) { bench_linrec<walk_tuning<64, 2, 8, true, 4>>(st, l, dims); });
      add("tune_narrow_walk_128x1", [=](benchmark::State& st) { bench_linrec<walk_tuning<128, 1, 8, true, 2>>(st, l, dims); });
    }
    if (s.batch * s.channels >= 256 * 32) {  // enough groups for a block each to walk
      add("tune_walk_64x8_unstaged", [=](benchmark::State& st) { bench_linrec<walk_tuning<64, 8, 8, false>>(st, l, dims); });
      add("tune_walk_64x4", [=](benchmark::State& st) { bench_linrec<walk_tuning<64, 8, 4, true>>(st, l, dims); });
      add("tune_walk_lanes16_128x8", [=](benchmark::State& st) { bench_linrec<walk_tuning<128, 16, 8, true>>(st, l, dims); });
      add("tune_walk_lanes32_256x4", [=](benchmark::State& st) { bench_linrec<walk_tuning<256, 32, 4, true>>(st, l, dims); });
      add("tune_walk_lanes32_256x4_unstaged", [=](benchmark::State& st) { bench_linrec<walk_tuning<256, 32, 4, false>>(st, l, dims); });
    }
  }
}

}  // namespace

int main(int argc, char** argv) { return linrec_bench::bench_main(argc, argv, "tensor_bench", register_all); }
