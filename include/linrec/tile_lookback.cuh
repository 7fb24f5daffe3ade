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
/// 32 × `TilesPerLane` predecessors (warp 0 the nearest; each lane `TilesPerLane` consecutive
/// ones), waiting only for those up to the window's nearest inclusive prefix; then every warp
/// combines the windows, nearest first, up to the first inclusive prefix it meets (each warp
/// itself, so one barrier a round hands the windows around and none hands the result back). If no
/// window holds one, the block moves 32 × LookbackWarps × TilesPerLane tiles further back and
/// repeats. The tile then publishes its inclusive prefix = op(exclusive prefix, aggregate).
///
/// Reach: a round costs one L2 round trip plus a barrier, and while many tiles are in flight
/// the nearest inclusive prefix can lie hundreds of tiles back, so a round must reach past the
/// tiles still unresolved. Reading more than that costs: on the H200 at 2^28 (512-thread blocks,
/// 16 warps), 2 or 4 tiles per lane measured 0.59 and 0.53 of copy against 0.63 for 1.
///
/// Forward progress: a tile only ever waits on tiles with smaller ids. With ids from
/// `tile_status::next_tile()`, each of those was taken by a block that is already running (or
/// done), and such a block never waits on a larger id, so the wait ends on any GPU that keeps
/// running the blocks it has started.
template <typename V, int LookbackWarps, typename ScanOp = affine_scan_op, int TilesPerLane = 1>
class tile_lookback_prefix {
  static_assert(LookbackWarps >= 1 && LookbackWarps <= 32, "LookbackWarps must be in [1, 32]");
  static_assert(TilesPerLane >= 1, "TilesPerLane must be positive");
  static constexpr std::int64_t tiles_per_round = std::int64_t(32) * LookbackWarps * TilesPerLane;

 public:
  /// Shared memory for handing the warps' windows around: one set a round, alternating, so a
  /// round's windows are written while every warp may still be reading the round before's.
  struct temp_storage {
    V window[2][LookbackWarps];
    bool has_inclusive[2][LookbackWarps];
  };

  __device__ __forceinline__ tile_lookback_prefix(temp_storage& storage, const tile_status<V>& status,
                                                  std::int64_t tile, std::int64_t first_tile,
                                                  const V& seed, ScanOp op = {})
      : storage_(storage), status_(status), tile_(tile), first_tile_(first_tile), seed_(seed), op_(op) {}

  /// Called by every thread of a block of at least 32 × LookbackWarps threads, converged; returns
  /// the exclusive prefix (seed included) on all of them. Contains __syncthreads(). As with any
  /// temp_storage, the block must pass a __syncthreads() between two look-backs that share it.
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
    V exclusive{};  // every thread's: op over the windows combined so far
    bool have_exclusive = false;
    int set = 0;  // which of temp_storage's two sets of windows this round writes
    for (std::int64_t window_end = tile_;; window_end -= tiles_per_round, set ^= 1) {
      if (warp < LookbackWarps) {
        // Lane i of warp w looks at TilesPerLane consecutive predecessors, nearest first, from the
        // (32 w + i) TilesPerLane + 1-th nearest still unread.
        const std::int64_t nearest = window_end - 1 - TilesPerLane * (32 * warp + lane);
        V values[TilesPerLane];
        tile_state states[TilesPerLane];
#pragma unroll
        for (int j = 0; j < TilesPerLane; ++j) {
          values[j] = V{};
          states[j] = tile_state::invalid;
        }
        unsigned inclusive_lanes;
        while (true) {
          // Only what is still invalid is read again, and only what the combination needs is
          // waited for: every tile up to the nearest inclusive prefix.
          bool ready = true, found = false;
#pragma unroll
          for (int j = 0; j < TilesPerLane; ++j) {
            const bool in_sequence = nearest - j >= first_tile_;
            if (in_sequence && states[j] == tile_state::invalid) states[j] = status_.load(nearest - j, values[j]);
            if (!found && in_sequence) {
              ready = ready && states[j] != tile_state::invalid;
              found = states[j] == tile_state::inclusive;
            }
          }
          inclusive_lanes = __ballot_sync(detail::full_warp_mask, found && ready);
          const unsigned unready_lanes = __ballot_sync(detail::full_warp_mask, !ready);
          const unsigned needed_lanes =
              inclusive_lanes ? ((inclusive_lanes & (0u - inclusive_lanes)) << 1) - 1 : ~0u;
          if ((unready_lanes & needed_lanes) == 0) break;
          __nanosleep(32);
        }
        // This lane's tiles, nearest first, up to its nearest inclusive prefix: an earlier tile is
        // the left operand. (The sequence's first tile is always inclusive, so tiles before it
        // are never combined.)
        V value = values[0];
        bool stopped = states[0] == tile_state::inclusive;
#pragma unroll
        for (int j = 1; j < TilesPerLane; ++j) {
          if (!stopped && nearest - j >= first_tile_) {
            value = op_(values[j], value);
            stopped = states[j] == tile_state::inclusive;
          }
        }
        const int last_lane = inclusive_lanes ? __ffs(inclusive_lanes) - 1 : 31;
        // Combine lanes 0..last_lane; a higher lane holds earlier tiles, so it goes on the left.
#pragma unroll
        for (int offset = 1; offset < 32; offset *= 2) {
          const V earlier = detail::shuffle_down(value, offset, 32);
          if (lane + offset <= last_lane) value = op_(earlier, value);
        }
        if (lane == 0) {
          storage_.window[set][warp] = value;
          storage_.has_inclusive[set][warp] = inclusive_lanes != 0;
        }
      }
      __syncthreads();
      // Every warp combines the windows, nearest first, up to the first holding an inclusive
      // prefix: one shuffle tree, where warp 0 alone doing it cost a second barrier to hand the
      // result to the block (H200, 1 x 2^28: 0.650 / 0.653 of copy against 0.641 / 0.645).
      // The next round writes the other set, so no barrier guards this one's reads.
      V window{};
      bool inclusive = false;
      if (lane < LookbackWarps) {
        window = storage_.window[set][lane];
        inclusive = storage_.has_inclusive[set][lane];
      }
      const unsigned inclusive_warps = __ballot_sync(detail::full_warp_mask, inclusive);
      const int last_warp = inclusive_warps ? __ffs(inclusive_warps) - 1 : LookbackWarps - 1;
#pragma unroll
      for (int offset = 1; offset < LookbackWarps; offset *= 2) {
        const V earlier = detail::shuffle_down(window, offset, 32);
        if (lane + offset <= last_warp) window = op_(earlier, window);
      }
      window = detail::shuffle_index(window, 0, 32);
      exclusive = have_exclusive ? op_(window, exclusive) : window;
      have_exclusive = true;
      if (inclusive_warps != 0) break;
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
