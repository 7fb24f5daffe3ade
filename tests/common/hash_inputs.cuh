// tests/common/hash_inputs.cuh — inputs computed from their index, the same on host and device, so
// problems of billions of elements need no host-side copies.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace linrec::testing {

__host__ __device__ inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// Uniform in [0, 1) with 24 random bits.
__host__ __device__ inline float hash_unit(std::uint64_t seed, std::uint64_t index) {
  return float(splitmix64(seed ^ (index * 0xd1342543de82ef95ull)) >> 40) * (1.0f / 16777216.0f);
}

/// a in [0.5, 1), b in [-1, 1).
__host__ __device__ inline float hash_a(std::uint64_t seed, std::uint64_t i) { return 0.5f + 0.5f * hash_unit(seed, 2 * i); }
__host__ __device__ inline float hash_b(std::uint64_t seed, std::uint64_t i) { return 2.0f * hash_unit(seed, 2 * i + 1) - 1.0f; }

}  // namespace linrec::testing
