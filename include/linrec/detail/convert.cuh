// linrec/detail/convert.cuh — converting elements between their storage type and the accumulator.
//
// Reads widen exactly (every __half, __nv_bfloat16 and float is a float or double); writes round
// to nearest once. A complex accumulator takes a real operand as x + 0i; a complex result has no
// real storage type, so writing one to a real h is a compile-time error.
#pragma once

#include <linrec/value_types.cuh>

#include <type_traits>

namespace linrec::detail {

template <typename To, typename From>
__host__ __device__ __forceinline__ To convert(const From& x) {
  if constexpr (std::is_same_v<To, From>) {
    return x;
  } else if constexpr (std::is_same_v<From, __half>) {
    return convert<To>(__half2float(x));
  } else if constexpr (std::is_same_v<From, __nv_bfloat16>) {
    return convert<To>(__bfloat162float(x));
  } else if constexpr (is_complex_v<To>) {
    using R = typename To::value_type;
    if constexpr (is_complex_v<From>) {
      return To(R(x.real()), R(x.imag()));
    } else {
      return To(R(x), R(0));
    }
  } else {
    static_assert(!is_complex_v<From>, "a complex state cannot be stored in a real h");
    if constexpr (std::is_same_v<To, __half>) {
      if constexpr (std::is_same_v<From, double>) {
        return __double2half(x);
      } else {
        return __float2half_rn(x);
      }
    } else if constexpr (std::is_same_v<To, __nv_bfloat16>) {
      if constexpr (std::is_same_v<From, double>) {
        return __double2bfloat16(x);
      } else {
        return __float2bfloat16_rn(x);
      }
    } else {
      return static_cast<To>(x);
    }
  }
}

/// The complex conjugate; real values unchanged. The backward pass of a complex recurrence uses it
/// (gradients in PyTorch's convention, dL/d conj(z)).
template <typename T>
__host__ __device__ __forceinline__ T conjugate(const T& x) {
  if constexpr (is_complex_v<T>) {
    return T(x.real(), -x.imag());
  } else {
    return x;
  }
}

}  // namespace linrec::detail
