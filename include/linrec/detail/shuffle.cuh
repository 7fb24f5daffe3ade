// linrec/detail/shuffle.cuh — warp shuffles of any trivially copyable value, one 32-bit word at a time.
#pragma once

#include <cuda_runtime.h>

#include <cstring>
#include <type_traits>

namespace linrec::detail {

inline constexpr unsigned full_warp_mask = 0xffffffffu;

// Shuffles move 32-bit words, so a value is split into words and put back together; memcpy keeps
// that free of aliasing UB and compiles to register moves.
template <typename V>
struct shuffle_words {
  static_assert(std::is_trivially_copyable_v<V>, "shuffled values must be trivially copyable");
  static_assert(sizeof(V) % 4 == 0, "shuffled values must be a whole number of 32-bit words");
  static constexpr int count = sizeof(V) / 4;
};

template <typename V, typename Shuffle>
__device__ __forceinline__ V shuffle_by_word(const V& value, Shuffle shuffle) {
  unsigned words[shuffle_words<V>::count];
  memcpy(words, &value, sizeof(V));
#pragma unroll
  for (int i = 0; i < shuffle_words<V>::count; ++i) words[i] = shuffle(words[i]);
  V out;
  memcpy(&out, words, sizeof(V));
  return out;
}

/// The value of lane (lane - delta) within a logical warp of `width` lanes.
template <typename V>
__device__ __forceinline__ V shuffle_up(const V& value, unsigned delta, int width,
                                        unsigned mask = full_warp_mask) {
  return shuffle_by_word(value, [=](unsigned w) { return __shfl_up_sync(mask, w, delta, width); });
}

/// The value of lane (lane + delta) within a logical warp of `width` lanes.
template <typename V>
__device__ __forceinline__ V shuffle_down(const V& value, unsigned delta, int width,
                                          unsigned mask = full_warp_mask) {
  return shuffle_by_word(value,
                         [=](unsigned w) { return __shfl_down_sync(mask, w, delta, width); });
}

/// The value of `src_lane` within a logical warp of `width` lanes.
template <typename V>
__device__ __forceinline__ V shuffle_index(const V& value, int src_lane, int width,
                                           unsigned mask = full_warp_mask) {
  return shuffle_by_word(value,
                         [=](unsigned w) { return __shfl_sync(mask, w, src_lane, width); });
}

}  // namespace linrec::detail
