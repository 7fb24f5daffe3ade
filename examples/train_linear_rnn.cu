// linrec example: training a tiny linear recurrent layer with linear_recurrence_backward.
//
// The layer is a gated linear recurrence over channel-last tensors x[b][t][c] (PyTorch's
// batch_first layout), with three parameters per channel:
//
//     a[t] = sigmoid(wa * x[t] + ba),   h[t] = a[t] * h[t-1] + (1 - a[t]) * wb * x[t].
//
// A teacher layer with fixed parameters makes the targets; the student starts elsewhere and
// learns them by Adam on the mean squared error. Per step: the gates (a small kernel), the
// forward scan (linear_recurrence), dL/dh (a small kernel), the fused backward scan
// (linear_recurrence_backward gives dL/da and dL/db), and the chain rule down to the parameters
// (a small kernel). It prints the loss as it falls, and exits non-zero if it does not.
#include <linrec/linrec.cuh>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CHECK(call)                                                          \
  do {                                                                       \
    const cudaError_t e = (call);                                            \
    if (e != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e)); \
      std::exit(1);                                                          \
    }                                                                        \
  } while (0)
#define CHECK_LINREC(call)                                              \
  do {                                                                  \
    const linrec::status s = (call);                                    \
    if (!s) {                                                           \
      std::fprintf(stderr, "%s failed: %s\n", #call, s.message());      \
      std::exit(1);                                                     \
    }                                                                   \
  } while (0)

namespace {

constexpr int B = 8, T = 2048, C = 64;  // batch, time steps, channels
constexpr std::int64_t N = std::int64_t(B) * T * C;

struct parameters {
  float* wa;
  float* ba;
  float* wb;  // device arrays of C each
};

__device__ float sigmoid(float z) { return 1.0f / (1.0f + expf(-z)); }

// a and the recurrence's input (1 - a) wb x, element-wise; channel c = i % C in [B, T, C].
__global__ void gates(const float* x, parameters p, float* a, float* input) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < N; i += std::int64_t(gridDim.x) * blockDim.x) {
    const int c = int(i % C);
    const float gate = sigmoid(p.wa[c] * x[i] + p.ba[c]);
    a[i] = gate;
    input[i] = (1.0f - gate) * p.wb[c] * x[i];
  }
}

// g = dL/dh for L = mean (h - y)^2, and the loss itself (accumulated into *loss).
__global__ void loss_gradient(const float* h, const float* y, float* g, float* loss) {
  float local = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < N; i += std::int64_t(gridDim.x) * blockDim.x) {
    const float d = h[i] - y[i];
    g[i] = 2.0f * d / float(N);
    local += d * d;
  }
  atomicAdd(loss, local / float(N));
}

// The chain rule from dL/da and dL/d(input) to the parameters: one thread per (batch, channel)
// walks time and adds its sums into grad[0..C) (wa), grad[C..2C) (ba), grad[2C..3C) (wb).
__global__ void parameter_gradients(const float* x, const float* a, const float* da, const float* dinput,
                                    parameters p, float* grad) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= B * C) return;
  const int b = s / C, c = s % C;
  float gwa = 0, gba = 0, gwb = 0;
  for (int t = 0; t < T; ++t) {
    const std::int64_t i = (std::int64_t(b) * T + t) * C + c;
    const float gate = a[i];
    gwb += dinput[i] * (1.0f - gate) * x[i];
    // a enters twice: as the coefficient, and through the input's (1 - a).
    const float dgate = da[i] - dinput[i] * p.wb[c] * x[i];
    const float dz = dgate * gate * (1.0f - gate);
    gwa += dz * x[i];
    gba += dz;
  }
  atomicAdd(&grad[c], gwa);
  atomicAdd(&grad[C + c], gba);
  atomicAdd(&grad[2 * C + c], gwb);
}

float* device_copy(const std::vector<float>& v) {
  float* d;
  CHECK(cudaMalloc(&d, v.size() * sizeof(float)));
  CHECK(cudaMemcpy(d, v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice));
  return d;
}

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "train_linear_rnn: no CUDA device found; linrec needs an NVIDIA GPU to run.\n");
    return 2;
  }
  const auto layout = linrec::tensor_layout::batch_time_channels(B, T, C);
  std::mt19937 rng(1234);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(N);
  for (float& v : x) v = normal(rng);
  // The teacher: slow gates (a near 0.9) and a per-channel gain; the student starts at a = 0.5.
  std::vector<float> teacher(3 * C), student(3 * C, 0.0f);
  for (int c = 0; c < C; ++c) {
    teacher[c] = 0.5f + 0.5f * normal(rng) * 0.3f;       // wa
    teacher[C + c] = 2.0f + 0.5f * normal(rng) * 0.3f;   // ba
    teacher[2 * C + c] = 1.0f + 0.5f * normal(rng);      // wb
    student[2 * C + c] = 0.1f;
  }

  float *d_x = device_copy(x), *d_teacher = device_copy(teacher), *d_student = device_copy(student);
  float *a, *input, *h, *y, *g, *da, *grad, *loss;
  for (float** p : {&a, &input, &h, &y, &g, &da}) CHECK(cudaMalloc(p, N * sizeof(float)));
  CHECK(cudaMalloc(&grad, 3 * C * sizeof(float)));
  CHECK(cudaMalloc(&loss, sizeof(float)));
  const parameters teacher_p{d_teacher, d_teacher + C, d_teacher + 2 * C};
  const parameters student_p{d_student, d_student + C, d_student + 2 * C};

  // Targets: the teacher's forward pass.
  gates<<<512, 256>>>(d_x, teacher_p, a, input);
  CHECK(cudaGetLastError());
  CHECK_LINREC(linrec::linear_recurrence<float>(a, input, y, layout));

  // Adam on the 3 C parameters, on the host: they are few.
  std::vector<float> m(3 * C, 0.0f), v(3 * C, 0.0f), grads(3 * C);
  const float lr = 0.05f, beta1 = 0.9f, beta2 = 0.999f;
  float first_loss = 0, last_loss = 0;
  const int steps = 200;
  for (int step = 1; step <= steps; ++step) {
    gates<<<512, 256>>>(d_x, student_p, a, input);
    CHECK(cudaGetLastError());
    CHECK_LINREC(linrec::linear_recurrence<float>(a, input, h, layout));
    CHECK(cudaMemset(loss, 0, sizeof(float)));
    loss_gradient<<<512, 256>>>(h, y, g, loss);
    CHECK(cudaGetLastError());
    // dL/da and dL/d(input) in one fused pass; dL/d(input) overwrites g in place.
    CHECK_LINREC(linrec::linear_recurrence_backward<float>(a, h, g, da, g, layout));
    CHECK(cudaMemset(grad, 0, 3 * C * sizeof(float)));
    parameter_gradients<<<(B * C + 127) / 128, 128>>>(d_x, a, da, g, student_p, grad);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(grads.data(), grad, 3 * C * sizeof(float), cudaMemcpyDeviceToHost));
    float current = 0;
    CHECK(cudaMemcpy(&current, loss, sizeof(float), cudaMemcpyDeviceToHost));
    if (step == 1) first_loss = current;
    last_loss = current;
    if (step == 1 || step % 25 == 0) std::printf("step %3d  loss %.6f\n", step, current);
    for (int k = 0; k < 3 * C; ++k) {
      m[k] = beta1 * m[k] + (1 - beta1) * grads[k];
      v[k] = beta2 * v[k] + (1 - beta2) * grads[k] * grads[k];
      const float m_hat = m[k] / (1 - std::pow(beta1, float(step)));
      const float v_hat = v[k] / (1 - std::pow(beta2, float(step)));
      student[k] -= lr * m_hat / (std::sqrt(v_hat) + 1e-8f);
    }
    CHECK(cudaMemcpy(d_student, student.data(), 3 * C * sizeof(float), cudaMemcpyHostToDevice));
  }
  std::printf("loss %.6f -> %.6f over %d steps\n", first_loss, last_loss, steps);
  for (float* p : {d_x, d_teacher, d_student, a, input, h, y, g, da, grad, loss}) CHECK(cudaFree(p));
  if (!(last_loss < 0.1f * first_loss)) {
    std::fprintf(stderr, "train_linear_rnn: the loss did not fall tenfold\n");
    return 1;
  }
  return 0;
}
