// linrec/tile_lookback.cuh — the decoupled look-back: a tile's carry-in from the tiles before it.
#pragma once

#include <linrec/affine.cuh>
#include <linrec/detail/shuffle.cuh>
#include <linrec/tile_status.cuh>

#include <cstdint>

namespace linrec {

/// A `block_scan` prefix callback that computes a tile's exclusive prefix by decoupled look-back
/// (Merrill & Garland, 2016) and publishes the tile's own aggregate and inclusive prefix.
///
/// Tiles [first_tile, tile) form the part of this tile's sequence before it. The first tile of a
/// sequence takes `seed` as its prefix and publishes its inclusive prefix at once. Any other tile
/// publishes its aggregate, then one warp inspects 32 predecessors at a time, nearest first,
/// waiting while any is still invalid; it combines aggregates until it meets an inclusive
/// prefix, then publishes its own inclusive prefix = op(exclusive prefix, aggregate).
///
/// Forward progress: a tile only ever waits on tiles with smaller ids. With ids from
/// `tile_status::next_tile()`, each of those was taken by a block that is already running (or
/// done), and such a block never waits on a larger id, so the wait ends on any GPU that keeps
/// running the blocks it has started.
template <typename V, typename ScanOp = affine_scan_op>
class tile_lookback_prefix {
 public:
  __device__ __forceinline__ tile_lookback_prefix(const tile_status<V>& status, std::int64_t tile,
                                                  std::int64_t first_tile, const V& seed,
                                                  ScanOp op = {})
      : status_(status), tile_(tile), first_tile_(first_tile), seed_(seed), op_(op) {}

  /// Called by all 32 lanes of one warp; returns the exclusive prefix (seed included) on all lanes.
  __device__ __forceinline__ V operator()(const V& block_aggregate) {
    const int lane = static_cast<int>(threadIdx.x) & 31;
    if (tile_ == first_tile_) {
      if (lane == 0) status_.publish(tile_, tile_state::inclusive, op_(seed_, block_aggregate));
      return seed_;
    }
    if (lane == 0) status_.publish(tile_, tile_state::aggregate, block_aggregate);

    V exclusive{};
    bool have_exclusive = false;
    for (std::int64_t window_end = tile_;; window_end -= 32) {
      // Lane i looks at the (i+1)-th nearest predecessor still unread.
      const std::int64_t predecessor = window_end - 1 - lane;
      const bool in_sequence = predecessor >= first_tile_;
      V value{};
      tile_state state = tile_state::invalid;
      while (true) {
        if (in_sequence) state = status_.load(predecessor, value);
        if (__all_sync(detail::full_warp_mask, !in_sequence || state != tile_state::invalid)) break;
        __nanosleep(32);
      }
      // The sequence's first tile is always inclusive, so a window that reaches it stops there.
      const unsigned inclusive_lanes =
          __ballot_sync(detail::full_warp_mask, in_sequence && state == tile_state::inclusive);
      const int last_lane = inclusive_lanes ? __ffs(inclusive_lanes) - 1 : 31;

      // Combine lanes 0..last_lane; a higher lane holds an earlier tile, so it goes on the left.
#pragma unroll
      for (int offset = 1; offset < 32; offset *= 2) {
        const V earlier = detail::shuffle_down(value, offset, 32);
        if (lane + offset <= last_lane) value = op_(earlier, value);
      }
      const V window = detail::shuffle_index(value, 0, 32);
      exclusive = have_exclusive ? op_(window, exclusive) : window;
      have_exclusive = true;
      if (inclusive_lanes) break;
    }
    if (lane == 0) status_.publish(tile_, tile_state::inclusive, op_(exclusive, block_aggregate));
    return exclusive;
  }

 private:
  const tile_status<V>& status_;
  std::int64_t tile_;
  std::int64_t first_tile_;
  V seed_;
  ScanOp op_;
};

}  // namespace linrec
