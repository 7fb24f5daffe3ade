// linrec/tile_status.cuh — per-tile status in global memory for a single-pass decoupled look-back scan.
#pragma once

#include <linrec/detail/memory_order.cuh>

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace linrec {

/// What a tile has published so far.
enum class tile_state : unsigned {
  invalid = 0,    ///< nothing yet (the zeroed initial state)
  aggregate = 1,  ///< op over this tile's own elements
  inclusive = 2,  ///< op over this tile and every tile before it in its sequence
};

/// A non-owning view of the scan state in global memory: a tile counter that hands out tile ids
/// in the order blocks start, and one status per tile.
///
/// Layout in the caller's memory (16-byte aligned): a 16-byte counter word, then
/// - for values of at most 12 bytes (affine<float>): one 16-byte word per tile holding the value
///   and its state together, written and read with single-copy-atomic .b128 accesses, so a reader
///   never sees a state without its value. They are relaxed (gpu scope): the word carries
///   everything a reader needs, so there is nothing else to order;
/// - for larger values (affine<double>): a state array and two value arrays, one for aggregates
///   and one for inclusive prefixes, so no slot is written twice while a reader may read it. The
///   writer stores the value (relaxed) before the state (release); the reader loads the state
///   (acquire), then the value of that kind (relaxed), so a published state guarantees its value.
///
/// The first `init_bytes(tiles)` bytes must be zero before a scan starts (cudaMemsetAsync), and
/// the state is then used up: zero it again before the next scan.
template <typename V>
class tile_status {
  static_assert(std::is_trivially_copyable_v<V> && sizeof(V) % 4 == 0,
                "tile values must be trivially copyable whole 32-bit words");

 public:
  static constexpr bool packed = sizeof(V) <= 12;

  /// Bytes of global memory for `tiles` tiles (a multiple of 16).
  __host__ __device__ static constexpr std::size_t bytes(std::int64_t tiles) {
    return counter_bytes + state_bytes(tiles) + (packed ? 0 : 2 * round16(sizeof(V) * std::size_t(tiles)));
  }
  /// Leading bytes that must be zero before a scan: the counter and the states.
  __host__ __device__ static constexpr std::size_t init_bytes(std::int64_t tiles) {
    return counter_bytes + state_bytes(tiles);
  }

  /// `storage` must be 16-byte aligned and hold bytes(tiles) bytes.
  __host__ __device__ tile_status(void* storage, std::int64_t tiles)
      : base_(static_cast<unsigned char*>(storage)), tiles_(tiles) {}

  /// The next tile id, in [0, ∞): blocks take ids in the order they reach this call, so a block
  /// never waits on a tile that no running or finished block has taken.
  __device__ __forceinline__ std::int64_t next_tile() const {
    return static_cast<std::int64_t>(
        atomicAdd(reinterpret_cast<unsigned long long*>(base_), 1ull));
  }

  __device__ __forceinline__ void publish(std::int64_t tile, tile_state state, const V& value) const {
    if constexpr (packed) {
      unsigned words[4] = {0u, 0u, 0u, static_cast<unsigned>(state)};
      memcpy(words, &value, sizeof(V));
      detail::word128 word;
      word.lo = words[0] | (std::uint64_t(words[1]) << 32);
      word.hi = words[2] | (std::uint64_t(words[3]) << 32);
      detail::store_relaxed(packed_words() + tile, word);
    } else {
      unsigned words[sizeof(V) / 4];
      memcpy(words, &value, sizeof(V));
      unsigned* slot = value_words(state) + tile * std::int64_t(sizeof(V) / 4);
#pragma unroll
      for (int i = 0; i < int(sizeof(V) / 4); ++i) detail::store_relaxed(slot + i, words[i]);
      detail::store_release(states() + tile, static_cast<unsigned>(state));
    }
  }

  /// Reads a tile's state once, without waiting; `value` is meaningful unless the state is invalid.
  __device__ __forceinline__ tile_state load(std::int64_t tile, V& value) const {
    if constexpr (packed) {
      const detail::word128 word = detail::load_relaxed(packed_words() + tile);
      const unsigned words[4] = {unsigned(word.lo), unsigned(word.lo >> 32), unsigned(word.hi),
                                 unsigned(word.hi >> 32)};
      memcpy(&value, words, sizeof(V));
      return static_cast<tile_state>(words[3]);
    } else {
      const unsigned state = detail::load_acquire(states() + tile);
      if (state != static_cast<unsigned>(tile_state::invalid)) {
        unsigned words[sizeof(V) / 4];
        const unsigned* slot = value_words(static_cast<tile_state>(state)) + tile * std::int64_t(sizeof(V) / 4);
#pragma unroll
        for (int i = 0; i < int(sizeof(V) / 4); ++i) words[i] = detail::load_relaxed(slot + i);
        memcpy(&value, words, sizeof(V));
      }
      return static_cast<tile_state>(state);
    }
  }

  __host__ __device__ std::int64_t tiles() const { return tiles_; }

 private:
  static constexpr std::size_t counter_bytes = 16;
  __host__ __device__ static constexpr std::size_t round16(std::size_t n) { return (n + 15) / 16 * 16; }
  __host__ __device__ static constexpr std::size_t state_bytes(std::int64_t tiles) {
    return packed ? 16 * std::size_t(tiles) : round16(4 * std::size_t(tiles));
  }
  __device__ detail::word128* packed_words() const {
    return reinterpret_cast<detail::word128*>(base_ + counter_bytes);
  }
  __device__ unsigned* states() const { return reinterpret_cast<unsigned*>(base_ + counter_bytes); }
  __device__ unsigned* value_words(tile_state kind) const {
    const std::size_t values = round16(sizeof(V) * std::size_t(tiles_));
    return reinterpret_cast<unsigned*>(base_ + counter_bytes + state_bytes(tiles_) +
                                       (kind == tile_state::inclusive ? values : 0));
  }

  unsigned char* base_;
  std::int64_t tiles_;
};

}  // namespace linrec
