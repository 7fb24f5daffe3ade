// linrec/value_types.cuh — the element types linrec stores and the type it carries the state in.
//
// Operands may be stored as float, double, __half, __nv_bfloat16, cuda::std::complex<float> or
// cuda::std::complex<double>, and a, b and h may each have their own storage type. Every element
// is converted to the accumulator type when it is read, the whole scan runs in the accumulator,
// and each output is rounded once to h's type when it is written: bf16 storage costs the rounding
// of the result to bf16, not an error that grows with the sequence length.
#pragma once

#include <cuda/std/complex>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <type_traits>

namespace linrec {

/// Whether T is cuda::std::complex<float> or cuda::std::complex<double>.
template <typename T>
inline constexpr bool is_complex_v = false;
template <typename R>
inline constexpr bool is_complex_v<cuda::std::complex<R>> = true;

/// Whether T is one of the storage types linrec reads and writes.
template <typename T>
inline constexpr bool is_storage_type_v =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, __half> ||
    std::is_same_v<T, __nv_bfloat16> || std::is_same_v<T, cuda::std::complex<float>> ||
    std::is_same_v<T, cuda::std::complex<double>>;

namespace detail {
template <typename T>
struct real_part {
  using type = T;
};
template <typename R>
struct real_part<cuda::std::complex<R>> {
  using type = R;
};
// The real type arithmetic on T happens in: float for the 2-byte types.
template <typename T>
using real_arithmetic_t =
    std::conditional_t<std::is_same_v<typename real_part<T>::type, double>, double, float>;
}  // namespace detail

/// The type the state is carried in for operands stored as A, B and H:
/// - real: double if any operand is double, else float (never narrower than float, so __half and
///   __nv_bfloat16 are computed in float);
/// - complex if any operand is complex, with the real part chosen as above.
///
/// This is the default; a policy may carry the state in another type (for example double for
/// float storage) by setting `accumulator_type` (see default_policy).
template <typename A, typename B = A, typename H = B>
struct accumulator {
  using real = std::conditional_t<std::is_same_v<detail::real_arithmetic_t<A>, double> ||
                                      std::is_same_v<detail::real_arithmetic_t<B>, double> ||
                                      std::is_same_v<detail::real_arithmetic_t<H>, double>,
                                  double, float>;
  using type = std::conditional_t<is_complex_v<A> || is_complex_v<B> || is_complex_v<H>,
                                  cuda::std::complex<real>, real>;
};
template <typename A, typename B = A, typename H = B>
using accumulator_t = typename accumulator<A, B, H>::type;

}  // namespace linrec
