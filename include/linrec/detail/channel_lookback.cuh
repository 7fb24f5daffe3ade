// linrec/detail/channel_lookback.cuh — the channel tiles' decoupled look-back: a tile's carry-in,
// one affine map per channel of its group, from the same channels' earlier time chunks.
//
// channel_rescan_kernel (an experiment) calls it and the two helpers below. channel_tiles_kernel
// keeps its own inline copies of the one-warp look-back, the seeds and the final-state write, the
// code the H200 suite last passed: calling this function there compiles the fp32 and fp64 kernels
// to the same SASS, but the 2-byte and complex64 ones to other instruction orders
// (scripts/sass_compare.sh), which no GPU has run yet. Once the suite has run on it, those copies
// should go.
#pragma once

#include <linrec/affine.cuh>
#include <linrec/detail/channel_problem.cuh>
#include <linrec/detail/channel_tile_status.cuh>
#include <linrec/detail/shuffle.cuh>
#include <linrec/tile_status.cuh>

#include <cstdint>

namespace linrec::detail {

/// A channel-tile block's scalars in shared memory: the tile it works on, and for its look-back
/// how many predecessors a round combines, nearest first, and whether the farthest of them is an
/// inclusive prefix; with several look-back warps, also each warp's nearest inclusive prefix (its
/// lane, or -1). Kept apart from the values: a struct mixing values with uninitialized scalars
/// would need dynamic initialization for complex values, whose constructors are not trivial.
template <int LookbackWarps>
struct channel_tile_scalars {
  std::int64_t tile;
  int window_count;
  bool window_has_inclusive;
  int nearest_inclusive[LookbackWarps];
};
template <>
struct channel_tile_scalars<1> {
  std::int64_t tile;
  int window_count;
  bool window_has_inclusive;
};

/// The tile's aggregates published, its carry-in found, its inclusive prefix published: called by
/// every thread of a block of `Threads` threads, `Lanes` of them across the group's channels
/// (`Width` channels each) and Threads / Lanes rows, converged (`lane` and `row`: the thread's
/// place, threadIdx.x % Lanes and threadIdx.x / Lanes), for a tile that is not its group's
/// first chunk and whose aggregate maps are already published. `aggregate` (read in the last row
/// only) is the lane's part of the tile's aggregate, and `own_inclusive` where the lane's part of
/// its inclusive prefix goes (status.values(tile, inclusive) + lane × Width). Sets `exclusive`, on
/// every thread, to its lane's maps of the tile's exclusive prefix.
///
/// A round: the first `LookbackWarps` warps inspect 32 earlier chunks of the group each and wait
/// only for those up to the nearest inclusive prefix. Then every row loads a run of those
/// predecessors' values at once (one L2 round trip for the round, not one per predecessor) and
/// combines it, and the last row combines the rows' results. If no inclusive prefix was in reach,
/// the block looks 32 × LookbackWarps chunks further back. `row_totals` ([rows][at least the
/// group's channels]) and `tile_prefix` (the group's channels, 16-byte aligned) are shared
/// memory the block may reuse once it has passed a barrier after the call.
///
/// Forward progress: a tile waits only on earlier chunks, which have smaller ids; their blocks
/// publish each aggregate before looking back, so the wait ends.
template <int Threads, int Lanes, int LookbackWarps, typename T, int Width, typename RowTotals>
__device__ __forceinline__ void channel_lookback(channel_tile_status<T> status, channel_tiling tiling,
                                                 int lane, int row, std::int64_t tile, std::int64_t chunk,
                                                 const affine<T> (&aggregate)[Width],
                                                 affine<T>* own_inclusive,
                                                 channel_tile_scalars<LookbackWarps>& scalars,
                                                 RowTotals& row_totals, affine<T>* tile_prefix,
                                                 affine<T> (&exclusive)[Width]) {
  using V = affine<T>;
  constexpr int rows = Threads / Lanes;
  constexpr int window = 32 * LookbackWarps;  // predecessors one look-back round inspects
  constexpr int max_per_row = (window + rows - 1) / rows;  // predecessors a row loads in a round
  static_assert(Threads % 32 == 0 && 32 % Lanes == 0, "lanes must tile whole warps");
  static_assert(LookbackWarps >= 1 && LookbackWarps <= Threads / 32, "look-back warps must be warps of the block");
  const affine_scan_op op;
  const bool last_row = row == rows - 1;

  V carry[Width];  // the last row's: op over the rounds so far
  bool have_carry = false;
  for (std::int64_t back = 0;; back += window) {
    if (threadIdx.x < 32 * LookbackWarps) {
      const int j = static_cast<int>(threadIdx.x);  // warp w inspects [32 w, 32 w + 32)
      const bool in_sequence = chunk - 1 - back - j >= 0;
      const std::int64_t predecessor = tile - (back + j + 1) * tiling.groups;
      tile_state state = tile_state::invalid;
      unsigned inclusive_lanes;
      for (;;) {
        if (in_sequence && state == tile_state::invalid) state = status.load_state(predecessor);
        const unsigned invalid_lanes = __ballot_sync(full_warp_mask, in_sequence && state == tile_state::invalid);
        inclusive_lanes = __ballot_sync(full_warp_mask, in_sequence && state == tile_state::inclusive);
        const unsigned needed = inclusive_lanes ? (inclusive_lanes & (0u - inclusive_lanes)) - 1 : ~0u;
        if ((invalid_lanes & needed) == 0) break;
        __nanosleep(32);
      }
      // The sequence's first chunk is always inclusive, so a round that reaches it ends.
      if constexpr (LookbackWarps == 1) {
        if (j == 0) {
          scalars.window_count = inclusive_lanes ? __ffs(inclusive_lanes) : window;
          scalars.window_has_inclusive = inclusive_lanes != 0;
        }
      } else if (j % 32 == 0) {
        scalars.nearest_inclusive[j / 32] = inclusive_lanes ? __ffs(inclusive_lanes) - 1 : -1;
      }
    }
    __syncthreads();
    int count = window;
    bool found = false;
    if constexpr (LookbackWarps == 1) {
      count = scalars.window_count;
      found = scalars.window_has_inclusive;
    } else {
      // Every thread finds the nearest window's inclusive prefix itself: no second barrier.
#pragma unroll
      for (int w = LookbackWarps - 1; w >= 0; --w) {
        const int nearest = scalars.nearest_inclusive[w];
        if (nearest >= 0) {
          count = 32 * w + nearest + 1;
          found = true;
        }
      }
    }
    // Row r takes predecessors [r * per_row, (r + 1) * per_row), nearest first.
    const int per_row = (count + rows - 1) / rows;
    const int first = row * per_row;
    const int last = min(count, first + per_row);
    if (first < last) {
      V loaded[max_per_row][Width];
#pragma unroll
      for (int k = 0; k < max_per_row; ++k) {
        const int j = first + k;
        if (j < last) {
          const tile_state kind = found && j == count - 1 ? tile_state::inclusive : tile_state::aggregate;
          load_maps_bypassing_l1(status.values(tile - (back + j + 1) * tiling.groups, kind) + lane * Width, loaded[k]);
        }
      }
      V row_total[Width];  // an earlier chunk is the left operand
#pragma unroll
      for (int v = 0; v < Width; ++v) row_total[v] = loaded[0][v];
#pragma unroll
      for (int k = 1; k < max_per_row; ++k) {
        if (first + k < last) {
#pragma unroll
          for (int v = 0; v < Width; ++v) row_total[v] = op(loaded[k][v], row_total[v]);
        }
      }
#pragma unroll
      for (int v = 0; v < Width; ++v) row_totals[row][lane * Width + v] = row_total[v];
    }
    __syncthreads();
    if (last_row) {
      const int used_rows = (count + per_row - 1) / per_row;
      for (int r = 0; r < used_rows; ++r) {
#pragma unroll
        for (int v = 0; v < Width; ++v) {
          const V& further = row_totals[r][lane * Width + v];
          carry[v] = have_carry ? op(further, carry[v]) : further;
        }
        have_carry = true;
      }
    }
    __syncthreads();  // everyone has read this round's count and rows before the next writes them
    if (found) break;
  }
  if (last_row) {
    V inclusive[Width];
#pragma unroll
    for (int v = 0; v < Width; ++v) {
      inclusive[v] = op(carry[v], aggregate[v]);
      tile_prefix[lane * Width + v] = carry[v];
    }
    store_maps(own_inclusive, inclusive);
  }
  __syncthreads();
  if (threadIdx.x == 0) status.publish_state(tile, tile_state::inclusive);
#pragma unroll
  for (int v = 0; v < Width; ++v) exclusive[v] = tile_prefix[lane * Width + v];
}

/// The seed of each of a thread's `Width` channels (the identity past the last channel).
template <typename Problem, int Width, typename T>
__device__ __forceinline__ void channel_seeds(const Problem& p, std::int64_t batch_index, std::int64_t channel0,
                                              affine<T> (&seeds)[Width]) {
#pragma unroll
  for (int v = 0; v < Width; ++v) {
    seeds[v] = channel0 + v < p.channels ? p.seed(batch_index, channel0 + v) : affine<T>::identity();
  }
}

/// Writes the final state of a thread's channels where it holds the sequence's last step: its
/// `Steps` steps from t0, in a tile of the group's last chunk.
template <typename Problem, int Steps, int Width, typename T>
__device__ __forceinline__ void channel_write_final(const Problem& p, std::int64_t batch_index, std::int64_t channel0,
                                                    std::int64_t t0, const affine<T> (&items)[Steps][Width]) {
#pragma unroll
  for (int s = 0; s < Steps; ++s) {
    if (t0 + s == p.length - 1) {
#pragma unroll
      for (int v = 0; v < Width; ++v) {
        if (channel0 + v < p.channels) p.write_final(batch_index, channel0 + v, items[s][v].b);
      }
    }
  }
}

}  // namespace linrec::detail
