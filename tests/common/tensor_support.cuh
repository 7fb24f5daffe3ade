// tests/common/tensor_support.cuh — running linrec on a tensor_problem with poisoned outputs, and
// checking every element of h against the float64 reference.
#pragma once

#include "gpu_support.cuh"
#include "tensor_problems.hpp"

#include <linrec/linear_recurrence.cuh>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace linrec::testing {

enum class tensor_alias { none, h_is_a, h_is_b };

template <typename T>
struct tensor_result {
  std::vector<T> h;  // h's whole span
  std::vector<T> h_final;
};

/// Runs linear_recurrence<T, Policy> on `p`: outputs poisoned, temporary storage filled with
/// garbage; `offset` elements of misalignment added to every operand (and to h0, h_final).
template <typename T, typename Policy = default_policy<T>>
tensor_result<T> run_tensor_on_device(const tensor_problem<T>& p, tensor_alias alias = tensor_alias::none,
                                      std::int64_t offset = 0) {
  const tensor_layout& l = p.layout;
  const std::size_t h_span = std::size_t(span(l, l.h));
  const std::size_t finals = std::size_t(l.batch * l.channels);
  device_buffer<T> inputs(p.inputs.size() + offset), h(h_span + offset), h0(p.h0.size() + offset),
      h_final(finals + offset);
  LINREC_CUDA_CHECK(cudaMemset(inputs.get(), 0, inputs.size() * sizeof(T)));
  if (!p.inputs.empty()) {
    LINREC_CUDA_CHECK(cudaMemcpy(inputs.get() + offset, p.inputs.data(), p.inputs.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  if (!p.h0.empty()) {
    LINREC_CUDA_CHECK(cudaMemcpy(h0.get() + offset, p.h0.data(), p.h0.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  h.poison();
  h_final.poison();
  const T* a = inputs.get() + offset + p.a_at;
  const T* b = inputs.get() + offset + p.b_at;
  T* out = h.get() + offset;
  if (alias == tensor_alias::h_is_a) out = inputs.get() + offset + p.a_at;
  if (alias == tensor_alias::h_is_b) out = inputs.get() + offset + p.b_at;
  const T* h0_ptr = p.h0.empty() ? nullptr : h0.get() + offset;
  T* final_ptr = h_final.get() + offset;

  std::size_t bytes = 0;
  const status query = linear_recurrence<T, Policy>(nullptr, bytes, a, b, out, l, h0_ptr, final_ptr);
  if (!query.ok()) throw std::runtime_error(std::string("size query failed: ") + query.message());
  device_buffer<unsigned char> temp(bytes);
  LINREC_CUDA_CHECK(cudaMemset(temp.get(), 0xab, bytes));
  std::size_t temp_bytes = bytes;
  const status s = linear_recurrence<T, Policy>(temp.get(), temp_bytes, a, b, out, l, h0_ptr, final_ptr);
  if (!s.ok()) throw std::runtime_error(std::string("linear_recurrence failed: ") + s.message());
  LINREC_CUDA_CHECK(cudaGetLastError());
  LINREC_CUDA_CHECK(cudaDeviceSynchronize());

  tensor_result<T> r;
  r.h.resize(h_span);
  if (h_span > 0) LINREC_CUDA_CHECK(cudaMemcpy(r.h.data(), out, h_span * sizeof(T), cudaMemcpyDeviceToHost));
  r.h_final.resize(finals);
  if (finals > 0) LINREC_CUDA_CHECK(cudaMemcpy(r.h_final.data(), final_ptr, finals * sizeof(T), cudaMemcpyDeviceToHost));
  return r;
}

/// Every element of h written; with h its own buffer, every place of h's span that is no element
/// left untouched.
template <typename T>
void expect_tensor_written(const tensor_problem<T>& p, const std::vector<T>& h, bool own_buffer) {
  const tensor_layout& l = p.layout;
  std::vector<bool> named(h.size(), false);
  std::int64_t unwritten = 0, gap_touched = 0;
  for (std::int64_t bi = 0; bi < l.batch; ++bi) {
    for (std::int64_t t = 0; t < l.length; ++t) {
      for (std::int64_t c = 0; c < l.channels; ++c) {
        const std::size_t i = std::size_t(l.h.offset(bi, t, c));
        named[i] = true;
        unwritten += is_poison(h[i]);
      }
    }
  }
  if (own_buffer) {
    for (std::size_t i = 0; i < h.size(); ++i) gap_touched += !named[i] && !is_poison(h[i]);
  }
  EXPECT_EQ(unwritten, 0) << "elements never written; " << p.describe();
  EXPECT_EQ(gap_touched, 0) << "places between elements of h were written; " << p.describe();
}

/// As expect_matches_reference for rows: L2 and max error within `slack` times a sequential loop
/// in T on the same data (floored at 8 eps), h_final against the reference's final state.
template <typename T>
accuracy expect_tensor_matches_reference(const tensor_problem<T>& p, const tensor_result<T>& out,
                                         bool own_buffer = true, double slack = 2) {
  using R = reference_t<T>;
  std::vector<R> ref_final;
  const std::vector<R> ref = tensor_sequential<R>(p, &ref_final);
  const std::vector<T> loop = tensor_sequential<T>(p);
  accuracy acc{tensor_compare(out.h, ref, p.layout), tensor_compare(loop, ref, p.layout)};
  expect_tensor_written(p, out.h, own_buffer);
  constexpr double roundings = 8 * std::numeric_limits<T>::epsilon();
  EXPECT_LE(acc.device.rel_l2, std::max(slack * acc.sequential.rel_l2, roundings))
      << "relative L2 error above " << slack << "x the sequential loop's; " << p.describe();
  EXPECT_LE(acc.device.max_abs, std::max(slack * acc.sequential.max_abs, roundings * acc.device.ref_max))
      << "max error above " << slack << "x the sequential loop's; " << p.describe();
  double final_err = 0, final_scale = 0;
  for (std::size_t i = 0; i < ref_final.size(); ++i) {
    EXPECT_FALSE(is_poison(out.h_final[i])) << "h_final[" << i << "] unwritten; " << p.describe();
    final_err = std::fmax(final_err, double(std::fabs(R(out.h_final[i]) - ref_final[i])));
    final_scale = std::fmax(final_scale, double(std::fabs(ref_final[i])));
  }
  EXPECT_LE(final_err, std::max(slack * acc.sequential.max_abs, roundings * std::fmax(final_scale, acc.device.ref_max)))
      << "h_final differs from the reference; " << p.describe();
  return acc;
}

}  // namespace linrec::testing
