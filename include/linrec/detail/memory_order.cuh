// linrec/detail/memory_order.cuh — GPU-scope loads and stores with explicit memory order.
//
// Decoupled look-back communicates between blocks that run at the same time, so the accesses to
// tile status must be morally strong (PTX memory model): relaxed, acquire or release at .gpu scope,
// never plain or cache-hinted loads, which the compiler or L1 may serve stale.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace linrec::detail {

/// A 16-byte word stored and loaded as one single-copy-atomic .b128 access (PTX ISA 8.3, sm_70+).
struct alignas(16) word128 {
  std::uint64_t lo;
  std::uint64_t hi;
};

__device__ __forceinline__ void store_relaxed(word128* address, word128 value) {
  asm volatile(
      "{\n\t.reg .b128 t;\n\tmov.b128 t, {%1, %2};\n\tst.relaxed.gpu.global.b128 [%0], t;\n\t}" ::"l"(
          address),
      "l"(value.lo), "l"(value.hi)
      : "memory");
}

__device__ __forceinline__ word128 load_relaxed(const word128* address) {
  word128 value;
  asm volatile(
      "{\n\t.reg .b128 t;\n\tld.relaxed.gpu.global.b128 t, [%2];\n\tmov.b128 {%0, %1}, t;\n\t}"
      : "=l"(value.lo), "=l"(value.hi)
      : "l"(address)
      : "memory");
  return value;
}

__device__ __forceinline__ void store_release(unsigned* address, unsigned value) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(address), "r"(value) : "memory");
}

__device__ __forceinline__ unsigned load_acquire(const unsigned* address) {
  unsigned value;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(value) : "l"(address) : "memory");
  return value;
}

__device__ __forceinline__ void store_relaxed(unsigned* address, unsigned value) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(address), "r"(value) : "memory");
}

__device__ __forceinline__ unsigned load_relaxed(const unsigned* address) {
  unsigned value;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(value) : "l"(address) : "memory");
  return value;
}

}  // namespace linrec::detail
