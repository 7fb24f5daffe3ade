// linrec quickstart: h[t] = a[t] * h[t-1] + b[t] over rows of random data, checked against a
// sequential CPU loop in double, then timed for a few lengths.
#include <linrec/linrec.cuh>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CHECK(call)                                                                   \
  do {                                                                                \
    const cudaError_t e = (call);                                                     \
    if (e != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e));          \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "quickstart: no CUDA device found; linrec needs an NVIDIA GPU to run.\n");
    return 2;
  }
  for (const std::int64_t length : {std::int64_t(1) << 14, std::int64_t(1) << 20, std::int64_t(1) << 26}) {
    const std::int64_t rows = 4;
    const auto layout = linrec::row_layout::contiguous(rows, length);
    const std::size_t n = std::size_t(rows * length);

    std::vector<float> a(n), b(n);
    std::mt19937 rng(std::random_device{}());
    std::uniform_real_distribution<float> gate(0.5f, 1.0f);
    std::normal_distribution<float> input(0.0f, 1.0f);
    for (std::size_t i = 0; i < n; ++i) a[i] = gate(rng), b[i] = input(rng);

    float *d_a, *d_b, *d_h;
    CHECK(cudaMalloc(&d_a, n * sizeof(float)));
    CHECK(cudaMalloc(&d_b, n * sizeof(float)));
    CHECK(cudaMalloc(&d_h, n * sizeof(float)));
    CHECK(cudaMemcpy(d_a, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, b.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    // Two-phase temporary storage, as in CUB: ask for the size, allocate, run.
    std::size_t temp_bytes = 0;
    linrec::status s = linrec::linear_recurrence<float>(nullptr, temp_bytes, d_a, d_b, d_h, layout);
    void* d_temp;
    CHECK(cudaMalloc(&d_temp, temp_bytes));
    s = linrec::linear_recurrence<float>(d_temp, temp_bytes, d_a, d_b, d_h, layout);
    if (!s) {
      std::fprintf(stderr, "linear_recurrence: %s\n", s.message());
      return 1;
    }
    CHECK(cudaDeviceSynchronize());

    std::vector<float> h(n);
    CHECK(cudaMemcpy(h.data(), d_h, n * sizeof(float), cudaMemcpyDeviceToHost));
    double max_error = 0;
    for (std::int64_t r = 0; r < rows; ++r) {
      double state = 0;
      for (std::int64_t t = 0; t < length; ++t) {
        const std::size_t i = std::size_t(r * length + t);
        state = double(a[i]) * state + double(b[i]);
        max_error = std::fmax(max_error, std::fabs(double(h[i]) - state));
      }
    }

    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    constexpr int runs = 20;
    s = linrec::linear_recurrence<float>(d_temp, temp_bytes, d_a, d_b, d_h, layout);  // warm-up
    CHECK(cudaEventRecord(start));
    for (int i = 0; i < runs && s; ++i) s = linrec::linear_recurrence<float>(d_temp, temp_bytes, d_a, d_b, d_h, layout);
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    std::printf("rows=%lld T=%-9lld max |h - h_cpu| = %.2e   %8.1f us per call (%.0f GB/s)\n",
                (long long)rows, (long long)length, max_error, 1e3 * ms / runs,
                12.0 * double(n) / (1e-3 * ms / runs) / 1e9);
    const bool ok = s.ok() && max_error < 1e-4;
    CHECK(cudaFree(d_temp));
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_h));
    if (!ok) {
      std::fprintf(stderr, "quickstart: result check failed (%s)\n", s.message());
      return 1;
    }
  }
  return 0;
}
