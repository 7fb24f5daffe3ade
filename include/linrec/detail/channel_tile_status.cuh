// linrec/detail/channel_tile_status.cuh — per-tile status for a look-back whose value is a vector:
// one affine map per channel of a channel group.
#pragma once

#include <linrec/affine.cuh>
#include <linrec/detail/memory_order.cuh>
#include <linrec/tile_status.cuh>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace linrec::detail {

/// `Count` consecutive affine maps at a 16-byte aligned p, loaded as 16-byte vectors that bypass
/// L1 (ld.global.cg), so they see what other blocks published through L2: a look-back issues all
/// of a predecessor's values at once. A thread's maps are whole 16-byte vectors for every
/// accumulator (width × sizeof(affine<T>) is 32 bytes or more).
template <int Count, typename T>
__device__ __forceinline__ void load_maps_bypassing_l1(const affine<T>* p, affine<T> (&maps)[Count]) {
  static_assert(sizeof(maps) % 16 == 0, "a thread's maps must be whole 16-byte vectors");
  uint4 raw[sizeof(maps) / 16];
#pragma unroll
  for (int i = 0; i < int(sizeof(maps) / 16); ++i) raw[i] = __ldcg(reinterpret_cast<const uint4*>(p) + i);
  memcpy(static_cast<void*>(maps), raw, sizeof(maps));
}

/// `Count` consecutive affine maps stored at a 16-byte aligned p as 16-byte vectors.
template <int Count, typename T>
__device__ __forceinline__ void store_maps(affine<T>* p, const affine<T> (&maps)[Count]) {
  static_assert(sizeof(maps) % 16 == 0, "a thread's maps must be whole 16-byte vectors");
  uint4 raw[sizeof(maps) / 16];
  memcpy(raw, static_cast<const void*>(maps), sizeof(maps));
#pragma unroll
  for (int i = 0; i < int(sizeof(maps) / 16); ++i) reinterpret_cast<uint4*>(p)[i] = raw[i];
}

/// Layout in the caller's memory (16-byte aligned): a 16-byte tile counter, one 32-bit state per
/// tile, then `group` aggregates per tile and `group` inclusive prefixes per tile, in two arrays so
/// no value is written twice while a reader may read it.
///
/// A group's values are written by many threads, so a state cannot travel with its value in one
/// word. Publication: the writers store their values, the block synchronizes, and one thread
/// fences and stores the state with release order (`publish_state`). Reading: one thread loads a
/// state with acquire order; after the block synchronizes, any thread may read the values of that
/// kind from `values()`, with loads that bypass L1 (`load_maps_bypassing_l1`) so none sees a stale copy.
template <typename T>
class channel_tile_status {
 public:
  using value = affine<T>;

  __host__ __device__ static constexpr std::size_t bytes(std::int64_t tiles, std::int64_t group) {
    return init_bytes(tiles) + 2 * values_bytes(tiles, group);
  }
  /// Leading bytes that must be zero before a scan: the counter and the states.
  __host__ __device__ static constexpr std::size_t init_bytes(std::int64_t tiles) {
    return 16 + round16(4 * std::size_t(tiles));
  }

  __host__ __device__ channel_tile_status(void* storage, std::int64_t tiles, std::int64_t group)
      : base_(static_cast<unsigned char*>(storage)), tiles_(tiles), group_(group) {}

  __device__ __forceinline__ std::int64_t next_tile() const {
    return static_cast<std::int64_t>(atomicAdd(reinterpret_cast<unsigned long long*>(base_), 1ull));
  }

  /// Where a tile's values of `kind` (aggregate or inclusive) start.
  __device__ __forceinline__ value* values(std::int64_t tile, tile_state kind) const {
    unsigned char* first = base_ + init_bytes(tiles_) +
                           (kind == tile_state::inclusive ? values_bytes(tiles_, group_) : 0);
    return reinterpret_cast<value*>(first) + tile * group_;
  }

  /// One thread, after every writer of the tile's values of `state` has passed a barrier with it.
  __device__ __forceinline__ void publish_state(std::int64_t tile, tile_state state) const {
    __threadfence();  // cumulative: orders the other writers' stores, seen through the barrier
    store_release(states() + tile, static_cast<unsigned>(state));
  }

  __device__ __forceinline__ tile_state load_state(std::int64_t tile) const {
    return static_cast<tile_state>(load_acquire(states() + tile));
  }

  __device__ __forceinline__ std::int64_t tiles() const { return tiles_; }

 private:
  __host__ __device__ static constexpr std::size_t round16(std::size_t n) { return (n + 15) / 16 * 16; }
  __host__ __device__ static constexpr std::size_t values_bytes(std::int64_t tiles, std::int64_t group) {
    return round16(sizeof(value) * std::size_t(tiles) * std::size_t(group));
  }
  __device__ unsigned* states() const { return reinterpret_cast<unsigned*>(base_ + 16); }

  unsigned char* base_;
  std::int64_t tiles_;
  std::int64_t group_;
};

}  // namespace linrec::detail
