// linrec/tile_lookback.cuh — the decoupled look-back: a tile's carry-in from the tiles before it.
#pragma once

#include <linrec/affine.cuh>
#include <linrec/detail/shuffle.cuh>
#include <linrec/tile_status.cuh>

#include <cstdint>

namespace linrec {

/// A block-wide prefix callback for `block_scan::inclusive_scan_block_prefix` that computes a
/// tile's exclusive prefix by decoupled look-back (Merrill & Garland, 2016) and publishes the
/// tile's own aggregate and inclusive prefix.
///
/// Tiles [first_tile, tile) are the part of this tile's sequence before it. The first tile of a
/// sequence takes `seed` as its prefix and publishes its inclusive prefix at once. Any other tile
/// publishes its aggregate; then each of the first `LookbackWarps` warps inspects its own window of
/// 32 predecessors (warp 0 the nearest), waiting while any is still invalid, and the block
/// combines the windows, nearest first, up to the first inclusive prefix it meets. If no window
/// holds one, the block moves 32 × LookbackWarps tiles further back and repeats. The tile then
/// publishes its inclusive prefix = op(exclusive prefix, aggregate).
///
/// Why several warps: a round costs one L2 round trip, and while many tiles are in flight the
/// nearest inclusive prefix can lie hundreds of tiles back, so one warp's 32 tiles per round bound
/// how far a round reaches. (On the H200 going from one warp to eight did not measurably change
/// throughput at 2^28: the reach was not what limited it.)
///
/// Forward progress: a tile only ever waits on tiles with smaller ids. With ids from
/// `tile_status::next_tile()`, each of those was taken by a block that is already running (or
/// done), and such a block never waits on a larger id, so the wait ends on any GPU that keeps
/// running the blocks it has started.
template <typename V, int LookbackWarps, typename ScanOp = affine_scan_op>
class tile_lookback_prefix {
  static_assert(LookbackWarps >= 1 && LookbackWarps <= 32, "LookbackWarps must be in [1, 32]");

 public:
  /// Shared memory for combining the warps' windows.
  struct temp_storage {
    V window[LookbackWarps];
    bool has_inclusive[LookbackWarps];
  };

  __device__ __forceinline__ tile_lookback_prefix(temp_storage& storage, const tile_status<V>& status,
                                                  std::int64_t tile, std::int64_t first_tile,
                                                  const V& seed, ScanOp op = {})
      : storage_(storage), status_(status), tile_(tile), first_tile_(first_tile), seed_(seed), op_(op) {}

  /// Called by every thread of a block of at least 32 × LookbackWarps threads, converged; returns
  /// the exclusive prefix (seed included) on all of them. Contains __syncthreads().
  __device__ __forceinline__ V operator()(const V& block_aggregate) {
    if (tile_ == first_tile_) {
      if (threadIdx.x == 0) status_.publish(tile_, tile_state::inclusive, op_(seed_, block_aggregate));
      return seed_;
    }
    if (threadIdx.x == 0) status_.publish(tile_, tile_state::aggregate, block_aggregate);
    return resolve(block_aggregate);
  }

  /// The second half of operator(), for a tile that is not its sequence's first and whose
  /// aggregate the caller has already published: looks back, publishes the inclusive prefix and
  /// returns the exclusive one. A block may publish a tile's aggregate early and resolve the tile
  /// later (after other work), which keeps its successors from waiting on it.
  __device__ __forceinline__ V resolve(const V& block_aggregate) {
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int warp = static_cast<int>(threadIdx.x) >> 5;
    V exclusive{};
    bool have_exclusive = false;
    for (std::int64_t window_end = tile_;; window_end -= 32 * LookbackWarps) {
      if (warp < LookbackWarps) {
        // Lane i of warp w looks at the (32w + i + 1)-th nearest predecessor still unread.
        const std::int64_t predecessor = window_end - 1 - (32 * warp + lane);
        const bool in_sequence = predecessor >= first_tile_;
        V value{};
        tile_state state = tile_state::invalid;
        while (true) {
          if (in_sequence) state = status_.load(predecessor, value);
          if (__all_sync(detail::full_warp_mask, !in_sequence || state != tile_state::invalid)) break;
          __nanosleep(32);
        }
        // The sequence's first tile is always inclusive, so a window reaching it stops there;
        // windows wholly before it are never combined.
        const unsigned inclusive_lanes =
            __ballot_sync(detail::full_warp_mask, in_sequence && state == tile_state::inclusive);
        const int last_lane = inclusive_lanes ? __ffs(inclusive_lanes) - 1 : 31;
        // Combine lanes 0..last_lane; a higher lane holds an earlier tile, so it goes on the left.
#pragma unroll
        for (int offset = 1; offset < 32; offset *= 2) {
          const V earlier = detail::shuffle_down(value, offset, 32);
          if (lane + offset <= last_lane) value = op_(earlier, value);
        }
        if (lane == 0) {
          storage_.window[warp] = value;
          storage_.has_inclusive[warp] = inclusive_lanes != 0;
        }
      }
      __syncthreads();
      bool done = false;
#pragma unroll 1
      for (int w = 0; w < LookbackWarps && !done; ++w) {
        const V window = storage_.window[w];
        exclusive = have_exclusive ? op_(window, exclusive) : window;
        have_exclusive = true;
        done = storage_.has_inclusive[w];
      }
      __syncthreads();  // the windows are read before the next round writes them
      if (done) break;
    }
    if (threadIdx.x == 0) status_.publish(tile_, tile_state::inclusive, op_(exclusive, block_aggregate));
    return exclusive;
  }

 private:
  temp_storage& storage_;
  const tile_status<V>& status_;
  std::int64_t tile_;
  std::int64_t first_tile_;
  V seed_;
  ScanOp op_;
};

}  // namespace linrec
