// linrec/detail/divide.cuh — integer division for tile indexing, which every thread of a block
// repeats for every tile it takes.
#pragma once

#include <cstdint>

namespace linrec::detail {

/// n / d for n >= 0, d > 0: through 32-bit division (a few instructions) when both fit, as they
/// do for any tile count a GPU can hold; a 64-bit division is a long emulated sequence.
__host__ __device__ __forceinline__ std::int64_t tile_quotient(std::int64_t n, std::int64_t d) {
  if (((n | d) >> 32) == 0) return std::int64_t(std::uint32_t(n) / std::uint32_t(d));
  return n / d;
}

}  // namespace linrec::detail
