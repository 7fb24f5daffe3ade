// linrec/detail/channel_tiles_kernel.cuh — strategy::channel_tiles: recurrences along time for
// operands whose channels (not time) are contiguous, e.g. [batch, time, channels].
//
// A tile is `Rows × Steps` time steps of one group of `Lanes × width` channels of one batch entry
// (width = Problem::width: 16 bytes of the narrowest operand). Lanes run across channels, so every
// load and store of a time step is one contiguous run; each thread scans `Steps` consecutive time
// steps of its `width` channels in registers; the block combines its rows through shared memory;
// and the tile's carry-in, one affine map per channel, comes from the same channels' earlier time
// chunks by decoupled look-back. a and b are read once and h written once.
#pragma once

#include <linrec/affine.cuh>
#include <linrec/detail/channel_problem.cuh>
#include <linrec/detail/channel_stage.cuh>
#include <linrec/detail/channel_tile_scan.cuh>
#include <linrec/detail/channel_tile_status.cuh>
#include <linrec/detail/divide.cuh>
#include <linrec/detail/tile_io.cuh>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace linrec::detail {

// Where one thread's part of a channel tile is.
struct channel_place {
  std::int64_t tile, chunk, batch_index, channel0, t0;
  bool vector;
};

// Run: the time steps each thread of the tile owns, consecutive.
template <int Lanes, int Run, typename Problem>
__device__ __forceinline__ channel_place locate_channel_tile(const Problem& p, const channel_tiling& tiling,
                                                             std::int64_t tile) {
  constexpr int width = Problem::width;
  const int lane = static_cast<int>(threadIdx.x) % Lanes;
  const int row = static_cast<int>(threadIdx.x) / Lanes;
  channel_place c;
  c.tile = tile;
  c.chunk = tile_quotient(tile, tiling.groups);
  const std::int64_t group_index = tile - c.chunk * tiling.groups;
  c.batch_index = tile_quotient(group_index, tiling.groups_per_batch);
  c.channel0 = (group_index - c.batch_index * tiling.groups_per_batch) * (Lanes * width) + std::int64_t(lane) * width;
  c.t0 = c.chunk * tiling.steps + std::int64_t(row) * Run;
  c.vector = p.vectors && c.channel0 + width <= p.channels;
  return c;
}

// A channel-tile block's shared scalars, apart from its values: a struct mixing the values with
// uninitialized scalars would need dynamic initialization for complex values, whose constructors
// are not trivial.
struct channel_shared_scalars {
  std::int64_t tile;
  int window_count;  // predecessors to combine this round, nearest first
  bool window_has_inclusive;
};

// The look-back of one channel tile that is not its sequence's first and whose aggregate is
// published: warp 0 inspects `window` (32 or 64: one or two for each lane) earlier chunks of
// these channels per round and waits only for those up to the nearest inclusive prefix. Then
// every row loads a run of those predecessors' values at once (one L2 round trip for the round,
// not one per predecessor) and combines it; the last row combines the rows' results, publishes
// the tile's inclusive prefix from `aggregate` (read on the last row only), and every thread gets
// its channels' exclusive prefix. Called by every thread of the block, converged; `shared_scan`
// is scratch here.
template <int Threads, int Lanes, typename TileScan, typename T, int Width>
__device__ __forceinline__ void channel_lookback(const channel_tile_status<T>& status, const channel_tiling& tiling,
                                                 const channel_place& here, const affine<T> (&aggregate)[Width],
                                                 typename TileScan::temp_storage& shared_scan,
                                                 channel_shared_scalars& shared, affine<T>* shared_tile_prefix,
                                                 int window, affine<T> (&exclusive)[Width]) {
  using V = affine<T>;
  constexpr int width = Width;
  constexpr int rows = Threads / Lanes;
  constexpr int tiles_per_lane = 2;                         // at most, a round
  constexpr int max_window = 32 * tiles_per_lane;           // predecessors one round inspects, at most
  constexpr int max_per_row = (max_window + rows - 1) / rows;  // predecessors a row loads in a round
  const affine_scan_op op;
  const int lane = static_cast<int>(threadIdx.x) % Lanes;
  const int row = static_cast<int>(threadIdx.x) / Lanes;
  const bool last_row = row == rows - 1;
  const std::int64_t tile = here.tile, chunk = here.chunk;

  V carry[width];  // the last row's: op over the rounds so far
  bool have_carry = false;
  for (std::int64_t back = 0;; back += window) {
    if (threadIdx.x < 32) {
      // Lane j inspects the predecessors j + 1, j + 33, ... chunks back (from `back`), so bit d of
      // the masks below is the predecessor d + 1 chunks back.
      const int j = static_cast<int>(threadIdx.x);
      bool in_sequence[tiles_per_lane];
      tile_state state[tiles_per_lane];
#pragma unroll
      for (int i = 0; i < tiles_per_lane; ++i) {
        in_sequence[i] = 32 * i < window && chunk - 1 - back - (j + 32 * i) >= 0;
        state[i] = tile_state::invalid;
      }
      std::uint64_t inclusive_mask;
      for (;;) {
        std::uint64_t invalid_mask = 0;
        inclusive_mask = 0;
#pragma unroll
        for (int i = 0; i < tiles_per_lane; ++i) {
          if (in_sequence[i] && state[i] == tile_state::invalid) {
            state[i] = status.load_state(tile - (back + j + 32 * i + 1) * tiling.groups);
          }
        }
#pragma unroll
        for (int i = 0; i < tiles_per_lane; ++i) {
          invalid_mask |= std::uint64_t(__ballot_sync(full_warp_mask, in_sequence[i] && state[i] == tile_state::invalid))
                          << (32 * i);
          inclusive_mask |= std::uint64_t(__ballot_sync(full_warp_mask, in_sequence[i] && state[i] == tile_state::inclusive))
                            << (32 * i);
        }
        const std::uint64_t needed = inclusive_mask ? (inclusive_mask & (0ull - inclusive_mask)) - 1 : ~0ull;
        if ((invalid_mask & needed) == 0) break;
        __nanosleep(32);
      }
      if (j == 0) {
        // The sequence's first chunk is always inclusive, so a round that reaches it ends.
        shared.window_count = inclusive_mask ? __ffsll(static_cast<long long>(inclusive_mask)) : window;
        shared.window_has_inclusive = inclusive_mask != 0;
      }
    }
    __syncthreads();
    const int count = shared.window_count;
    const bool found = shared.window_has_inclusive;
    // Row r takes predecessors [r * per_row, (r + 1) * per_row), nearest first.
    const int per_row = (count + rows - 1) / rows;
    const int first = row * per_row;
    const int last = min(count, first + per_row);
    if (first < last) {
      V loaded[max_per_row][width];
#pragma unroll
      for (int k = 0; k < max_per_row; ++k) {
        const int j = first + k;
        if (j < last) {
          const tile_state kind = found && j == count - 1 ? tile_state::inclusive : tile_state::aggregate;
          load_maps_bypassing_l1(status.values(tile - (back + j + 1) * tiling.groups, kind) + lane * width, loaded[k]);
        }
      }
      V row_total[width];  // an earlier chunk is the left operand
#pragma unroll
      for (int v = 0; v < width; ++v) row_total[v] = loaded[0][v];
#pragma unroll
      for (int k = 1; k < max_per_row; ++k) {
        if (first + k < last) {
#pragma unroll
          for (int v = 0; v < width; ++v) row_total[v] = op(loaded[k][v], row_total[v]);
        }
      }
#pragma unroll
      for (int v = 0; v < width; ++v) shared_scan.row_aggregates[row][lane * width + v] = row_total[v];
    }
    __syncthreads();
    if (last_row) {
      const int used_rows = (count + per_row - 1) / per_row;
      for (int r = 0; r < used_rows; ++r) {
#pragma unroll
        for (int v = 0; v < width; ++v) {
          const V& further = shared_scan.row_aggregates[r][lane * width + v];
          carry[v] = have_carry ? op(further, carry[v]) : further;
        }
        have_carry = true;
      }
    }
    __syncthreads();  // everyone has read this round's count and rows before the next writes them
    if (found) break;
  }
  if (last_row) {
    V inclusive[width];
#pragma unroll
    for (int v = 0; v < width; ++v) {
      inclusive[v] = op(carry[v], aggregate[v]);
      shared_tile_prefix[lane * width + v] = carry[v];
    }
    store_maps(status.values(tile, tile_state::inclusive) + lane * width, inclusive);
  }
  __syncthreads();
  if (threadIdx.x == 0) status.publish_state(tile, tile_state::inclusive);
#pragma unroll
  for (int v = 0; v < width; ++v) exclusive[v] = shared_tile_prefix[lane * width + v];
}

// A tile's publication and look-back, once `aggregate` (read on the last row only) holds op over
// the tile's steps for this thread's channels: `exclusive` becomes op over the sequence before the
// tile (h0 included), and the tile's inclusive prefix is published. Called by every thread of the
// block, converged.
template <int Threads, int Lanes, typename TileScan, typename Problem, typename T, int Width>
__device__ __forceinline__ void resolve_channel_tile(const Problem& p, const channel_tile_status<T>& status,
                                                     const channel_tiling& tiling, const channel_place& here,
                                                     const affine<T> (&aggregate)[Width],
                                                     typename TileScan::temp_storage& shared_scan,
                                                     channel_shared_scalars& shared, affine<T>* shared_tile_prefix,
                                                     int lookback_window, affine<T> (&exclusive)[Width]) {
  const affine_scan_op op;
  const int lane = static_cast<int>(threadIdx.x) % Lanes;
  const bool last_row = static_cast<int>(threadIdx.x) / Lanes == Threads / Lanes - 1;
  if (here.chunk == 0) {
#pragma unroll
    for (int v = 0; v < Width; ++v) {
      exclusive[v] = here.channel0 + v < p.channels ? p.seed(here.batch_index, here.channel0 + v) : affine<T>::identity();
    }
    if (last_row) {
      affine<T> inclusive[Width];
#pragma unroll
      for (int v = 0; v < Width; ++v) inclusive[v] = op(exclusive[v], aggregate[v]);
      store_maps(status.values(here.tile, tile_state::inclusive) + lane * Width, inclusive);
    }
    __syncthreads();
    if (threadIdx.x == 0) status.publish_state(here.tile, tile_state::inclusive);
  } else {
    if (last_row) store_maps(status.values(here.tile, tile_state::aggregate) + lane * Width, aggregate);
    __syncthreads();
    if (threadIdx.x == 0) status.publish_state(here.tile, tile_state::aggregate);
    channel_lookback<Threads, Lanes, TileScan>(status, tiling, here, aggregate, shared_scan, shared,
                                               shared_tile_prefix, lookback_window, exclusive);
  }
}

// Writes h_final (or the problem's final value) from items[s] where the run of Steps steps from
// t0 holds the sequence's last step.
template <int Steps, typename Problem, typename V, int Width>
__device__ __forceinline__ void write_final_in_run(const Problem& p, const channel_place& here, std::int64_t t0,
                                                   const V (&items)[Steps][Width]) {
  if (!p.has_final() || t0 > p.length - 1 || t0 + Steps <= p.length - 1) return;
#pragma unroll
  for (int s = 0; s < Steps; ++s) {
    if (t0 + s == p.length - 1) {
#pragma unroll
      for (int v = 0; v < Width; ++v) {
        if (here.channel0 + v < p.channels) p.write_final(here.batch_index, here.channel0 + v, items[s][v].b);
      }
    }
  }
}

// The kernel's static shared memory, the sum of its __shared__ objects below without their
// padding: a lower bound on what ptxas reports (bf16, 256 threads of 8 steps: 17168 bytes; 512
// of 4: 41488), so a launch that checks it with the stages against an SM's 227 KB at compile
// time rejects no block that fits. A __shared__ object added below must be added here too:
// storage_types_test.channel_tiles_static_shared_memory_is_counted compares the two.
template <int Threads, int Lanes, int Steps, typename Problem>
inline constexpr std::size_t channel_tiles_static_bytes =
    sizeof(typename channel_tile_scan<Threads, Lanes, Steps, Problem::width, typename Problem::value_type>::temp_storage) +
    sizeof(affine<typename Problem::value_type>) * Lanes * Problem::width + sizeof(channel_shared_scalars);

/// Each thread owns (1 + SharedChunks) × Steps consecutive time steps of a tile: the first Steps
/// in registers, the rest copied into shared memory (cp.async, channel_stage) as the tile is
/// claimed. With SharedChunks > 0 a thread folds its shared steps into its total after scanning
/// its registers (or folding them too, where the problem holds its register run raw:
/// hold_raw_run), the block scans the totals across rows, the tile looks back, and each thread
/// writes its registers' steps and then the shared ones, scanning them again from shared memory
/// with the carry. A tile then holds more bytes per look-back than registers alone allow (the
/// look-back's latency is paid per tile, however large).
/// PrefetchRounds > 0: a block that claims tile t asks L2 for the inputs of tile
/// t + PrefetchRounds × (blocks in the grid), about the tile some block claims that many rounds
/// later (as deferred_lookback_kernel does), where the problem says `prefetch_ahead`.
/// PrefetchStoreInputs: what the problem's store reads (the adjoint's h) is asked into L2 when
/// the tile is loaded.
/// lookback_window: the earlier chunks a look-back round inspects, 32 or 64.
template <int Threads, int Lanes, int Steps, int SharedChunks, int MinBlocks, int PrefetchRounds,
          bool PrefetchStoreInputs, typename Problem>
__global__ void __launch_bounds__(Threads, MinBlocks)
    channel_tiles_kernel(Problem p, channel_tile_status<typename Problem::value_type> status, channel_tiling tiling,
                         int lookback_window) {
  using T = typename Problem::value_type;
  using V = affine<T>;
  constexpr int width = Problem::width;
  constexpr int group = Lanes * width;
  constexpr int run = Steps * (1 + SharedChunks);  // time steps a thread owns
  static_assert(Threads % 32 == 0 && 32 % Lanes == 0, "lanes must tile whole warps");
  static_assert(SharedChunks >= 0, "SharedChunks counts runs in shared memory");
  const affine_scan_op op;

  using tile_scan = channel_tile_scan<Threads, Lanes, Steps, width, T>;
  __shared__ typename tile_scan::temp_storage shared_scan;
  __shared__ alignas(16) V shared_tile_prefix[group];  // 16-byte aligned: a lane's maps load as vectors
  __shared__ channel_shared_scalars shared;
  using stage = channel_stage<Threads, Steps, Problem>;
  extern __shared__ __align__(16) unsigned char tile_stages[];  // SharedChunks stages: channel_stage_bytes
  [[maybe_unused]] auto* const staged = reinterpret_cast<typename stage::temp_storage*>(tile_stages);

  const std::int64_t tiles = status.tiles();

  // A tile is claimed when the block is ready to start it. Claiming the next one a tile early,
  // to copy its runs in while this one writes h, held up every later tile of its channels that
  // looked back to it: bf16 [1, 2^21, 128] 0.61 of copy against 0.77, fp32 [1, 2^22, 64] 0.63
  // against 0.83 (H100, session 42). Claimed after this tile's look-back instead, with its runs
  // copied in as this tile writes, it still lost 0.01-0.035 everywhere: bf16 0.74 against 0.75
  // at [1, 65536, 1024], the bf16 backward pass 0.74 against 0.77 (H100, session 44).
  const auto claim = [&]() {
    __syncthreads();  // the previous tile is done with shared memory
    if (threadIdx.x == 0) shared.tile = status.next_tile();
    __syncthreads();
    return shared.tile;
  };

  for (std::int64_t claimed = claim(); claimed < tiles; claimed = claim()) {
    const channel_place here = locate_channel_tile<Lanes, run>(p, tiling, claimed);
    // Bit k: whether shared run k is staged (straight); one that is not is read from global
    // memory each time it is needed (tails, element-wise layouts). A mask, not an array, so the
    // runs' loops below can stay rolled without indexing local memory.
    [[maybe_unused]] unsigned staged_runs = 0;
    static_assert(SharedChunks <= 32, "staged_runs holds a bit a shared run");
    // The first run waits out the look-back in registers: as scanned items, or with shared runs
    // where the problem says hold_raw_run, as raw vectors, folded into the thread's total like
    // the shared runs and scanned again from the carry. Raw, it is loaded first, as it is folded
    // first; converted as loaded, it is loaded after the copies are issued, so that no
    // conversion waiting for its loads holds them up.
    constexpr bool hold_raw = SharedChunks > 0 && Problem::hold_raw_run;
    [[maybe_unused]] V items[Steps][width];
    [[maybe_unused]] channel_held_run<Steps, Problem> held;
    [[maybe_unused]] const bool held_straight = hold_raw && p.template straight<Steps>(here.t0, here.vector);
    if (held_straight) held.load(p, here.batch_index, here.t0, here.channel0);
    if constexpr (SharedChunks > 0) {
      // A copy group a run (empty where it is not staged), so each is folded as soon as it lands,
      // while the later ones are still arriving. bf16 [1, 65536, 1024] 0.789 / 0.789 of copy
      // against 0.757 / 0.767 with one group a tile, fp16 0.782 / 0.793 against 0.771 / 0.762;
      // but [1, 2^21, 128] (two channel groups) 0.768 / 0.770 against 0.774 / 0.781 (H100,
      // session 46, call 3; call 2 agreed).
#pragma unroll
      for (int k = 0; k < SharedChunks; ++k) {
        const std::int64_t t = here.t0 + std::int64_t(k + 1) * Steps;
        if (p.template straight<Steps>(t, here.vector)) {
          staged_runs |= 1u << k;
          stage::fetch(staged[k], p, here.batch_index, t, here.channel0);
        }
        stage::commit();
      }
    }
    if constexpr (!hold_raw) p.load(here.batch_index, here.t0, here.channel0, here.vector, items);
    if constexpr (PrefetchStoreInputs) {
      p.template prefetch_store_inputs<run>(here.batch_index, here.t0, here.channel0, here.vector);
    }
    if constexpr (PrefetchRounds > 0 && Problem::prefetch_ahead) {
      const std::int64_t ahead = claimed + std::int64_t(PrefetchRounds) * gridDim.x;
      if (ahead < tiles) {
        const channel_place later = locate_channel_tile<Lanes, run>(p, tiling, ahead);
        p.template prefetch_inputs<run>(later.batch_index, later.t0, later.channel0, later.vector);
      }
    }

    V exclusive[width];
    if constexpr (SharedChunks == 0) {
      tile_scan::scan(shared_scan, items);
      resolve_channel_tile<Threads, Lanes, tile_scan>(p, status, tiling, here, items[Steps - 1], shared_scan, shared,
                                                      shared_tile_prefix, lookback_window, exclusive);
      tile_scan::apply_prefix(exclusive, items);
      p.store(here.batch_index, here.t0, here.channel0, here.vector, items);
      write_final_in_run(p, here, here.t0, items);
    } else {
      // Step t of a shared run that is not staged, converted: read from global memory. Its loops
      // below stay rolled, so this path (a tail, an element-wise layout) is not copied at every
      // step of the staged path's unrolled ones: the default bf16 tile's code 225 -> 147 KB, its
      // instruction-fetch stall 0.88 -> 0.58 cycles an issue, 0.687 -> 0.706 of copy at
      // [1, 65536, 1024] (H100, session 41, two rounds).
      const auto global_step = [&](std::int64_t t, V (&item)[width]) {
        V one[1][width];
        p.load(here.batch_index, t, here.channel0, here.vector, one);
#pragma unroll
        for (int v = 0; v < width; ++v) item[v] = one[0][v];
      };
      V total[width];  // op over this thread's whole run
      // Folds a straight run into total, step s read by read(s, item); `starts` (a constant): the
      // run is the thread's first, whose first step begins total.
      const auto fold_straight = [&](auto starts, auto&& read) {
#pragma unroll
        for (int s = 0; s < Steps; ++s) {
          V item[width];
          read(s, item);
#pragma unroll
          for (int v = 0; v < width; ++v) {
            total[v] = decltype(starts)::value && s == 0 ? item[v] : op(total[v], item[v]);
          }
        }
      };
      // The same for a run that is not straight, a step at a time from global memory.
      const auto fold_from_global = [&](bool starts, std::int64_t t) {
        if (starts) global_step(t, total);
#pragma unroll 1
        for (int s = starts ? 1 : 0; s < Steps; ++s) {
          V item[width];
          global_step(t + s, item);
#pragma unroll
          for (int v = 0; v < width; ++v) total[v] = op(total[v], item[v]);
        }
      };
      if constexpr (!hold_raw) {
        tile_scan::scan_own_steps(items);
#pragma unroll
        for (int v = 0; v < width; ++v) total[v] = items[Steps - 1][v];
      } else if (held_straight) {
        fold_straight(std::true_type{}, [&](int s, V(&item)[width]) { held.read_step(p, s, item); });
      } else {
        fold_from_global(true, here.t0);
      }
      // The runs' loops stay rolled: unrolled, every run copied the conversion, the scan and the
      // store (staged and global paths both), and bf16 tiles of 768 steps or more outgrew the
      // instruction cache: 340-460 KB of code, 12 cycles of instruction-fetch stall an issue,
      // 0.24-0.37 of copy (H100, session 40). Rolled, runs of 4 steps: 110-120 KB, 0.35 cycles,
      // 0.56-0.72.
#pragma unroll 1
      for (int k = 0; k < SharedChunks; ++k) {
        stage::template wait_pending<SharedChunks - 1>(SharedChunks - 1 - k);  // run k has landed
        if (staged_runs >> k & 1u) {
          fold_straight(std::false_type{}, [&](int s, V(&item)[width]) { stage::read_step(staged[k], p, s, item); });
        } else {
          fold_from_global(false, here.t0 + std::int64_t(k + 1) * Steps);
        }
      }
      V before[width];  // op over the rows before this thread's
      const bool has_before = tile_scan::rows_before(shared_scan, total, before);
      V aggregate[width];  // the tile's, on the last row
#pragma unroll
      for (int v = 0; v < width; ++v) aggregate[v] = has_before ? op(before[v], total[v]) : total[v];
      resolve_channel_tile<Threads, Lanes, tile_scan>(p, status, tiling, here, aggregate, shared_scan, shared,
                                                      shared_tile_prefix, lookback_window, exclusive);
      V carry[width];
#pragma unroll
      for (int v = 0; v < width; ++v) carry[v] = has_before ? op(exclusive[v], before[v]) : exclusive[v];
      // Writes h of the straight run from t, step s read by read(s, item), and carries on.
      const auto write_straight = [&](std::int64_t t, auto&& read) {
#pragma unroll
        for (int s = 0; s < Steps; ++s) {
          V item[width];
          read(s, item);
#pragma unroll
          for (int v = 0; v < width; ++v) items[s][v] = carry[v] = op(carry[v], item[v]);
        }
        p.store(here.batch_index, t, here.channel0, here.vector, items);
        write_final_in_run(p, here, t, items);
      };
      // The same for a run that is not straight, a step at a time from global memory: items is
      // indexed by constants only, or it would leave registers.
      const auto write_from_global = [&](std::int64_t t) {
#pragma unroll 1
        for (int s = 0; s < Steps; ++s) {
          V item[width], one[1][width];
          global_step(t + s, item);
#pragma unroll
          for (int v = 0; v < width; ++v) one[0][v] = carry[v] = op(carry[v], item[v]);
          p.store(here.batch_index, t + s, here.channel0, here.vector, one);
          write_final_in_run(p, here, t + s, one);
        }
      };
      if constexpr (!hold_raw) {
        tile_scan::apply_prefix(carry, items);
        p.store(here.batch_index, here.t0, here.channel0, here.vector, items);
        write_final_in_run(p, here, here.t0, items);
#pragma unroll
        for (int v = 0; v < width; ++v) carry[v] = items[Steps - 1][v];
      } else if (held_straight) {
        write_straight(here.t0, [&](int s, V(&item)[width]) { held.read_step(p, s, item); });
      } else {
        write_from_global(here.t0);
      }
#pragma unroll 1
      for (int k = 0; k < SharedChunks; ++k) {
        const std::int64_t t = here.t0 + std::int64_t(k + 1) * Steps;
        if (staged_runs >> k & 1u) {
          write_straight(t, [&](int s, V(&item)[width]) { stage::read_step(staged[k], p, s, item); });
        } else {
          write_from_global(t);
        }
      }
    }
  }
}

}  // namespace linrec::detail
