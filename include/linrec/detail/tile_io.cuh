// linrec/detail/tile_io.cuh — moving one thread's run of consecutive elements between global memory
// and registers: 16-byte vector accesses where the run is aligned and in bounds, scalar elsewhere.
#pragma once

#include <linrec/affine.cuh>

#include <cuda_runtime.h>

#include <cstdint>

namespace linrec::detail {

template <typename T>
struct vector16;
template <>
struct vector16<float> {
  using type = float4;
  static constexpr int width = 4;
};
template <>
struct vector16<double> {
  using type = double2;
  static constexpr int width = 2;
};

template <typename T>
__host__ __device__ __forceinline__ bool aligned16(const T* p) {
  return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0;
}

/// Which way a run's steps lie in memory: step i of a run based at `p` is p[i] forward and p[-i]
/// in reverse (a reverse scan reads each row from its end, with no flipped copy).
struct time_direction {
  bool reverse = false;

  /// Where the vector holding steps i..i+width-1 starts in memory: the lowest address.
  template <int Width>
  __host__ __device__ __forceinline__ std::int64_t vector_start(std::int64_t i) const {
    return reverse ? -i - (Width - 1) : i;
  }
  __host__ __device__ __forceinline__ std::int64_t at(std::int64_t i) const { return reverse ? -i : i; }
};

/// Loads items first..first+Items-1 of (a, b) into `items`; positions at or past `valid` become
/// the identity, so they leave a scan unchanged. `vector_ok` says the vectors the run's steps
/// fill are 16-byte aligned in a and b (and `first` is a multiple of the vector width).
template <int Items, typename T>
__device__ __forceinline__ void load_items(const T* a, const T* b, std::int64_t first,
                                           std::int64_t valid, bool vector_ok,
                                           affine<T> (&items)[Items], time_direction dir = {}) {
  using vec = vector16<T>;
  constexpr int width = vec::width;
  static_assert(Items % width == 0, "items per thread must fill whole 16-byte vectors");
#pragma unroll
  for (int c = 0; c < Items / width; ++c) {
    const std::int64_t index = first + c * width;
    if (vector_ok && index + width <= valid) {
      const std::int64_t start = dir.vector_start<width>(index);
      const auto va = *reinterpret_cast<const typename vec::type*>(a + start);
      const auto vb = *reinterpret_cast<const typename vec::type*>(b + start);
      const T* ea = reinterpret_cast<const T*>(&va);
      const T* eb = reinterpret_cast<const T*>(&vb);
      // Constant indices on both sides of the choice keep the vectors in registers.
#pragma unroll
      for (int k = 0; k < width; ++k) {
        items[c * width + k] = dir.reverse ? affine<T>{ea[width - 1 - k], eb[width - 1 - k]}
                                           : affine<T>{ea[k], eb[k]};
      }
    } else {
#pragma unroll
      for (int k = 0; k < width; ++k) {
        const std::int64_t at = dir.at(index + k);
        items[c * width + k] = index + k < valid ? affine<T>{a[at], b[at]} : affine<T>::identity();
      }
    }
  }
}

/// Loads positions first..first+Items-1 of one array into `values`; 0 at and past `valid`.
template <int Items, typename T>
__device__ __forceinline__ void load_values(const T* x, std::int64_t first, std::int64_t valid, bool vector_ok,
                                            T (&values)[Items], time_direction dir = {}) {
  using vec = vector16<T>;
  constexpr int width = vec::width;
#pragma unroll
  for (int c = 0; c < Items / width; ++c) {
    const std::int64_t index = first + c * width;
    if (vector_ok && index + width <= valid) {
      const auto v = *reinterpret_cast<const typename vec::type*>(x + dir.vector_start<width>(index));
      const T* e = reinterpret_cast<const T*>(&v);
#pragma unroll
      for (int k = 0; k < width; ++k) values[c * width + k] = dir.reverse ? e[width - 1 - k] : e[k];
    } else {
#pragma unroll
      for (int k = 0; k < width; ++k) values[c * width + k] = index + k < valid ? x[dir.at(index + k)] : T(0);
    }
  }
}

/// Stores `values` at positions below `valid`.
template <int Items, typename T>
__device__ __forceinline__ void store_values(T* x, std::int64_t first, std::int64_t valid, bool vector_ok,
                                             const T (&values)[Items], time_direction dir = {}) {
  using vec = vector16<T>;
  constexpr int width = vec::width;
#pragma unroll
  for (int c = 0; c < Items / width; ++c) {
    const std::int64_t index = first + c * width;
    if (vector_ok && index + width <= valid) {
      typename vec::type v;
      T* e = reinterpret_cast<T*>(&v);
#pragma unroll
      for (int k = 0; k < width; ++k) e[k] = dir.reverse ? values[c * width + width - 1 - k] : values[c * width + k];
      *reinterpret_cast<typename vec::type*>(x + dir.vector_start<width>(index)) = v;
    } else {
#pragma unroll
      for (int k = 0; k < width; ++k) {
        if (index + k < valid) x[dir.at(index + k)] = values[c * width + k];
      }
    }
  }
}

/// Stores the b-part of items (the recurrence's h) for positions below `valid`.
template <int Items, typename T>
__device__ __forceinline__ void store_items(T* h, std::int64_t first, std::int64_t valid,
                                            bool vector_ok, const affine<T> (&items)[Items],
                                            time_direction dir = {}) {
  T values[Items];
#pragma unroll
  for (int i = 0; i < Items; ++i) values[i] = items[i].b;
  store_values(h, first, valid, vector_ok, values, dir);
}

}  // namespace linrec::detail
