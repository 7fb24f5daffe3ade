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

/// Loads items first..first+Items-1 of (a, b) into `items`; positions at or past `valid` become
/// the identity, so they leave a scan unchanged. `vector_ok` says a and b are 16-byte aligned at
/// item 0 of the tile (and `first` is a multiple of the vector width).
template <int Items, typename T>
__device__ __forceinline__ void load_items(const T* a, const T* b, std::int64_t first,
                                           std::int64_t valid, bool vector_ok,
                                           affine<T> (&items)[Items]) {
  using vec = vector16<T>;
  constexpr int width = vec::width;
  static_assert(Items % width == 0, "items per thread must fill whole 16-byte vectors");
#pragma unroll
  for (int c = 0; c < Items / width; ++c) {
    const std::int64_t index = first + c * width;
    if (vector_ok && index + width <= valid) {
      const auto va = *reinterpret_cast<const typename vec::type*>(a + index);
      const auto vb = *reinterpret_cast<const typename vec::type*>(b + index);
      const T* ea = reinterpret_cast<const T*>(&va);
      const T* eb = reinterpret_cast<const T*>(&vb);
#pragma unroll
      for (int k = 0; k < width; ++k) items[c * width + k] = {ea[k], eb[k]};
    } else {
#pragma unroll
      for (int k = 0; k < width; ++k) {
        items[c * width + k] =
            index + k < valid ? affine<T>{a[index + k], b[index + k]} : affine<T>::identity();
      }
    }
  }
}

/// Stores the b-part of items (the recurrence's h) for positions below `valid`.
template <int Items, typename T>
__device__ __forceinline__ void store_items(T* h, std::int64_t first, std::int64_t valid,
                                            bool vector_ok, const affine<T> (&items)[Items]) {
  using vec = vector16<T>;
  constexpr int width = vec::width;
#pragma unroll
  for (int c = 0; c < Items / width; ++c) {
    const std::int64_t index = first + c * width;
    if (vector_ok && index + width <= valid) {
      typename vec::type v;
      T* e = reinterpret_cast<T*>(&v);
#pragma unroll
      for (int k = 0; k < width; ++k) e[k] = items[c * width + k].b;
      *reinterpret_cast<typename vec::type*>(h + index) = v;
    } else {
#pragma unroll
      for (int k = 0; k < width; ++k) {
        if (index + k < valid) h[index + k] = items[c * width + k].b;
      }
    }
  }
}

/// Writes the state after the last valid position, if this thread holds it.
template <int Items, typename T>
__device__ __forceinline__ void store_final(T* h_final, std::int64_t first, std::int64_t valid,
                                            const affine<T> (&items)[Items]) {
  // A compile-time index per item keeps `items` in registers.
#pragma unroll
  for (int i = 0; i < Items; ++i) {
    if (first + i == valid - 1) *h_final = items[i].b;
  }
}

}  // namespace linrec::detail
