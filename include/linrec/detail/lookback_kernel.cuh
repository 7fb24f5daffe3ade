// linrec/detail/lookback_kernel.cuh — strategy::tiled_lookback: every tile of every row is a block's
// work item; a tile takes its carry-in from the tiles before it in its row by decoupled look-back.
#pragma once

#include <linrec/block_scan.cuh>
#include <linrec/detail/divide.cuh>
#include <linrec/detail/problem.cuh>
#include <linrec/detail/tile_io.cuh>
#include <linrec/tile_lookback.cuh>
#include <linrec/tile_status.cuh>

#include <cstddef>
#include <cstdint>

namespace linrec::detail {

// Where a tile's elements are.
struct tile_place {
  std::int64_t row, tile_in_row, start, offset, valid;  // start: the tile's first step in its row
  bool vector_ok;
};

template <std::int64_t TileItems, typename Problem>
__device__ __forceinline__ tile_place locate_tile(const Problem& p, std::int64_t tile, std::int64_t tiles_per_row) {
  tile_place t;
  t.row = tile_quotient(tile, tiles_per_row);
  t.tile_in_row = tile - t.row * tiles_per_row;
  t.start = t.tile_in_row * TileItems;
  t.offset = p.offset(t.row, t.start);
  t.valid = min(TileItems, p.length - t.start);
  t.vector_ok = p.vector_ok(t.offset);
  return t;
}

// Whether a tile takes the loads and stores without bounds checks (valid = every_step_valid):
// whole and aligned, as nearly all are, where the problem allows it (see unchecked_whole_tiles).
// (A function, not a lambda in the kernel: with one there, nvcc took the complex values'
// shared temp storage for dynamic initialization.)
template <std::int64_t TileItems, typename Problem>
__device__ __forceinline__ bool whole_tile(const tile_place& t) {
  return Problem::unchecked_whole_tiles && t.vector_ok && t.valid == TileItems;
}

// Asks L2 for the inputs of tile `ahead`, if there is one: every thread for its own run's lines.
template <std::int64_t TileItems, int Items, typename Problem>
__device__ __forceinline__ void prefetch_runs(const Problem& p, std::int64_t ahead, std::int64_t tiles,
                                              std::int64_t tiles_per_row, std::int64_t first) {
  if (ahead >= tiles) return;
  const tile_place later = locate_tile<TileItems>(p, ahead, tiles_per_row);
  if (whole_tile<TileItems, Problem>(later)) {
    p.template prefetch_inputs<Items>(later.row, later.start, first, every_step_valid, true);
  } else {
    p.template prefetch_inputs<Items>(later.row, later.start, first, later.valid, later.vector_ok);
  }
}

// The same from one thread, with the bulk-copy engine (sm_90): a request per operand for a whole
// aligned tile (other tiles, the last of a row or a misaligned one, are not asked for), so the
// other threads skip even locating the tile.
template <std::int64_t TileItems, typename Problem>
__device__ __forceinline__ void prefetch_whole_tile(const Problem& p, std::int64_t ahead, std::int64_t tiles,
                                                    std::int64_t tiles_per_row) {
  if (ahead >= tiles) return;
  const tile_place later = locate_tile<TileItems>(p, ahead, tiles_per_row);
  if (later.vector_ok && later.valid == TileItems) p.template prefetch_whole_tile<TileItems>(later.row, later.start);
}

// Tile ids come from the counter, not blockIdx: the look-back's forward-progress argument needs
// every smaller id to belong to a block that has already started. (lookback_kernel claims its next
// id only after it has published its current tile's inclusive prefix: claiming ahead there, with
// the claimed tile's aggregate then waiting behind the current look-back, was measured on the
// H200 to halve throughput. deferred_lookback_kernel claims ahead safely because it publishes
// every aggregate before any look-back.)
template <typename T>
__device__ __forceinline__ std::int64_t claim_tile(const tile_status<affine<T>>& status,
                                                   std::int64_t& shared_tile) {
  __syncthreads();  // everyone has read the previous id
  if (threadIdx.x == 0) shared_tile = status.next_tile();
  __syncthreads();
  return shared_tile;
}

// Thread 0, for a tile just scanned: its aggregate, or its inclusive prefix where it starts a row,
// as nothing before it is left to wait for.
template <typename Problem, typename T>
__device__ __forceinline__ void publish_scanned(const Problem& p, const tile_status<affine<T>>& status,
                                                std::int64_t tile, const tile_place& place,
                                                const affine<T>& aggregate) {
  if (place.tile_in_row == 0) {
    status.publish(tile, tile_state::inclusive, affine_scan_op{}(p.seed(place.row), aggregate));
  } else {
    status.publish(tile, tile_state::aggregate, aggregate);
  }
}

// Everyone, for a tile whose aggregate was published earlier: the prefix of everything before it
// in its row (the seed for a row's first tile, else by look-back), its inclusive prefix published.
template <int LookbackWarps, int TilesPerLane = 1, typename Problem, typename T>
__device__ __forceinline__ affine<T> resolve_published(
    typename tile_lookback_prefix<affine<T>, LookbackWarps, affine_scan_op, TilesPerLane>::temp_storage& storage,
    const Problem& p,
    const tile_status<affine<T>>& status, std::int64_t tile, const tile_place& place,
    std::int64_t tiles_per_row, const affine<T>& aggregate) {
  const affine<T> seed = p.seed(place.row);
  if (place.tile_in_row == 0) return seed;
  return tile_lookback_prefix<affine<T>, LookbackWarps, affine_scan_op, TilesPerLane>(
             storage, status, tile, place.row * tiles_per_row, seed)
      .resolve(aggregate);
}

// A scanned tile's output, and the row's final state where the tile ends its row. Given the
// kernel's `TileItems`, a whole tile takes the unchecked stores (see whole_tile).
template <std::int64_t TileItems = 0, typename Problem, int Items, typename T>
__device__ __forceinline__ void store_tile(const Problem& p, const tile_place& place, std::int64_t first,
                                           std::int64_t tiles_per_row, const affine<T> (&items)[Items]) {
  if (TileItems > 0 && whole_tile<TileItems, Problem>(place)) {
    p.store(place.row, place.start, first, every_step_valid, true, items);
  } else {
    p.store(place.row, place.start, first, place.valid, place.vector_ok, items);
  }
  if (p.has_final() && place.tile_in_row == tiles_per_row - 1) store_final(p, place.row, first, place.valid, items);
}

// Whether a tile, in a kernel storing striped (store_striped), is: whole and aligned, and not a
// row's last tile when h_final is wanted, which the holder of the row's last step writes.
template <std::int64_t TileItems, typename Problem>
__device__ __forceinline__ bool stores_striped(const Problem& p, const tile_place& place, std::int64_t tiles_per_row) {
  return whole_tile<TileItems, Problem>(place) && !(p.has_final() && place.tile_in_row == tiles_per_row - 1);
}

// A parked tile's scanned pairs ([item][thread]) by vectors of Width steps, for store_striped.
// (A functor, not a lambda: with the lambda, nvcc 13.0 over g++ 12, the CI's pair, refused the
// kernel's complex-typed __shared__ storage as dynamically initialized; the H200 machine's
// toolchain accepted it.)
template <int Threads, int Items, int Width, typename V>
struct parked_tile_vectors {
  const V* parked;
  __device__ __forceinline__ void operator()(int vector, V (&pairs)[Width]) const {
    constexpr int vectors_per_thread = Items / Width;
    const int owner = vector / vectors_per_thread;
    const int item = (vector % vectors_per_thread) * Width;
#pragma unroll
    for (int k = 0; k < Width; ++k) pairs[k] = parked[(item + k) * Threads + owner];
  }
};

// A whole tile's h, stored striped: round c, thread i stores vector c × Threads + i of the tile,
// so a warp's store covers 32 vectors end to end (512 contiguous bytes), where a thread storing
// its own run of Items steps half-fills every 32-byte sector of twice that span (fp32 tiles of 8
// items). `scanned_vector(vector, pairs)` gives the tile's scanned pairs at the steps of that
// vector, from wherever the block parked them; the caller orders that after the parking.
template <int Threads, int Items, typename Problem, typename T, typename ScannedVector>
__device__ __forceinline__ void store_striped(const Problem& p, const tile_place& place, const affine<T>& prefix,
                                              ScannedVector scanned_vector) {
  constexpr int width = Problem::store_width;
  static_assert(Items % width == 0, "a thread's items must fill whole vectors of h");
  const affine_scan_op op;
#pragma unroll
  for (int c = 0; c < Items / width; ++c) {
    const int vector = c * Threads + static_cast<int>(threadIdx.x);
    affine<T> pairs[width];
    scanned_vector(vector, pairs);
    T values[width];
#pragma unroll
    for (int k = 0; k < width; ++k) values[k] = op(prefix, pairs[k]).b;
    p.store_vector_at(place.row, place.start, std::int64_t(vector) * width, values);
  }
}

template <int Threads, int Items, typename Problem>
__global__ void __launch_bounds__(Threads)
    lookback_kernel(Problem p, tile_status<affine<typename Problem::value_type>> status, std::int64_t tiles_per_row) {
  using T = typename Problem::value_type;
  using scan = block_scan<affine<T>, Threads, Items>;
  using lookback = tile_lookback_prefix<affine<T>, Threads / 32>;  // every warp looks back
  constexpr std::int64_t tile_items = scan::tile_items;
  __shared__ typename scan::temp_storage scan_storage;
  __shared__ typename lookback::temp_storage lookback_storage;
  __shared__ std::int64_t shared_tile;

  const std::int64_t tiles = status.tiles();
  const std::int64_t first = std::int64_t(threadIdx.x) * Items;
  // Claims a tile and starts loading it; nothing for an id past the end.
  const auto start_tile = [&](std::int64_t& id, tile_place& place, affine<T> (&into)[Items]) {
    id = claim_tile(status, shared_tile);
    if (id < tiles) {
      place = locate_tile<tile_items>(p, id, tiles_per_row);
      p.load(place.row, place.start, first, place.valid, place.vector_ok, into);
    }
  };
  // Scans a loaded tile with its carry-in from the look-back and stores it.
  const auto finish_tile = [&](std::int64_t id, const tile_place& place, affine<T> (&items)[Items]) {
    lookback prefix(lookback_storage, status, id, place.row * tiles_per_row, p.seed(place.row));
    scan(scan_storage).inclusive_scan_block_prefix(items, prefix);
    store_tile(p, place, first, tiles_per_row, items);
  };

  std::int64_t tile;
  tile_place place{};
  affine<T> items[Items];
  for (start_tile(tile, place, items); tile < tiles; start_tile(tile, place, items)) {
    finish_tile(tile, place, items);
  }
}

/// The tile a deferred look-back block parks (its scanned items) and where: in static shared
/// memory up to `deferred_static_park_limit` bytes, else in dynamic shared memory of this size,
/// which the launch asks for (static shared memory stops at 48 KB a block, and tiles of 8192
/// float pairs, a block of 1024 threads or of 16 items a thread, park 64 KB).
template <int Threads, int Items, typename T>
inline constexpr std::size_t deferred_parked_bytes = sizeof(affine<T>) * std::size_t(Threads) * Items;
inline constexpr std::size_t deferred_static_park_limit = 32768;
template <int Threads, int Items, typename T>
inline constexpr bool deferred_parks_dynamically =
    deferred_parked_bytes<Threads, Items, T> > deferred_static_park_limit;

/// The look-back kernel with each tile's look-back deferred by one tile. A block holds two tiles:
/// it loads and scans a new one and publishes its aggregate at once, and only then looks back for
/// the one it holds, whose scanned items wait in shared memory. So every aggregate appears one
/// load after its tile is claimed, never behind a look-back, and by the time a tile looks back its
/// predecessors have long published theirs: the waiting that otherwise idles a block (measured on
/// the H200 at 2^28: 2.7 us of a 5.6 us tile) mostly disappears. The next tile's id is claimed
/// before the held tile's look-back, so the counter's round trip overlaps it too.
///
/// The first `LookbackWarps` warps look back, each lane inspecting `TilesPerLane` predecessors a
/// round (see tile_lookback_prefix).
///
/// With `PrefetchRounds` > 0, a block that claims tile t asks L2 for the inputs of tile
/// t + PrefetchRounds × (blocks in the grid): blocks claim tiles about in turn, so that is about
/// the tile some block claims that many rounds later, and its loads then find it in L2. The
/// memory system so always has a round of tiles' reads in flight, whatever phase the blocks are
/// in (loading, scanning or waiting on their look-backs); each tile is still read from DRAM once.
/// Problems that say `prefetch_in_bulk` ask with one thread of the last warp, a bulk request per
/// operand for the whole tile (sm_90 and later), instead of every thread for its lines. Problems
/// that say `prefetch_ahead = false` are not prefetched.
///
/// With `StripedStores` (and a problem that allows them), a whole tile's output is stored
/// striped across the block from the parked items (store_striped) rather than each thread
/// storing its own run.
///
/// Forward progress as for lookback_kernel: a look-back waits only on smaller ids, whose blocks
/// publish each aggregate without waiting on anything.
template <int Threads, int Items, int MinBlocks, int TilesPerLane, int PrefetchRounds, int LookbackWarps,
          bool StripedStores, typename Problem>
__global__ void __launch_bounds__(Threads, MinBlocks)
    deferred_lookback_kernel(Problem p, tile_status<affine<typename Problem::value_type>> status,
                             std::int64_t tiles_per_row) {
  using T = typename Problem::value_type;
  using V = affine<T>;
  using scan = block_scan<V, Threads, Items>;
  static_assert(LookbackWarps >= 1 && LookbackWarps <= Threads / 32, "look-back warps must be warps of the block");
  using lookback = tile_lookback_prefix<V, LookbackWarps, affine_scan_op, TilesPerLane>;
  constexpr std::int64_t tile_items = scan::tile_items;
  __shared__ typename scan::temp_storage scan_storage;
  __shared__ typename lookback::temp_storage lookback_storage;
  __shared__ std::int64_t shared_tile;
  // [item][thread]: each thread parks and reads its own.
  constexpr bool park_dynamically = deferred_parks_dynamically<Threads, Items, T>;
  __shared__ V held_static[park_dynamically ? 1 : Items * Threads];
  extern __shared__ __align__(16) unsigned char deferred_parked_dynamic[];
  V* const held_items = park_dynamically ? reinterpret_cast<V*>(deferred_parked_dynamic) : held_static;

  const std::int64_t tiles = status.tiles();
  const std::int64_t first = std::int64_t(threadIdx.x) * Items;
  const affine_scan_op op;

  std::int64_t claimed = 0;  // thread 0's claim, handed to the block at the top of each round
  if (threadIdx.x == 0) claimed = status.next_tile();
  bool holding = false;
  std::int64_t held = 0;
  tile_place held_place{};
  V held_aggregate{};
  for (;;) {
    if (threadIdx.x == 0) shared_tile = claimed;
    __syncthreads();
    const std::int64_t tile = shared_tile;
    tile_place place{};
    V items[Items];
    if (tile < tiles) {
      place = locate_tile<tile_items>(p, tile, tiles_per_row);
      if (whole_tile<tile_items, Problem>(place)) {
        p.load(place.row, place.start, first, every_step_valid, true, items);
      } else {
        p.load(place.row, place.start, first, place.valid, place.vector_ok, items);
      }
      if constexpr (PrefetchRounds > 0 && Problem::prefetch_ahead) {
        const std::int64_t ahead = tile + std::int64_t(PrefetchRounds) * gridDim.x;
        if constexpr (Problem::prefetch_in_bulk && bulk_prefetch_available()) {
          if (threadIdx.x == Threads - 32) prefetch_whole_tile<tile_items>(p, ahead, tiles, tiles_per_row);
        } else {
          prefetch_runs<tile_items, Items>(p, ahead, tiles, tiles_per_row, first);
        }
      }
    }
    if (holding) {
      // The held tile: its prefix (while the new tile's loads are in flight), then its output.
      const V prefix = resolve_published<LookbackWarps, TilesPerLane>(lookback_storage, p, status, held,
                                                                     held_place, tiles_per_row, held_aggregate);
      bool stored = false;
      if constexpr (StripedStores && Problem::striped_stores) {
        if (stores_striped<tile_items>(p, held_place, tiles_per_row)) {
          // Each thread reads other threads' parked items ([item][thread]): the top-of-round
          // barrier orders them after the parking, and the new tile's scan (which has a barrier)
          // orders the next parking after these reads.
          store_striped<Threads, Items>(p, held_place, prefix,
                                        parked_tile_vectors<Threads, Items, Problem::store_width, V>{held_items});
          stored = true;
        }
      }
      if (!stored) {
        V out[Items];
#pragma unroll
        for (int i = 0; i < Items; ++i) out[i] = op(prefix, held_items[i * Threads + threadIdx.x]);
        store_tile<tile_items>(p, held_place, first, tiles_per_row, out);
      }
    }
    if (tile >= tiles) return;

    // The new tile: scan it, publish its aggregate (its inclusive prefix if it starts a row, as
    // nothing is left to wait for), claim the next id, and park the items.
    V aggregate;
    scan(scan_storage).inclusive_scan(items, aggregate);
    if (threadIdx.x == 0) {
      publish_scanned(p, status, tile, place, aggregate);
      claimed = status.next_tile();
    }
#pragma unroll
    for (int i = 0; i < Items; ++i) held_items[i * Threads + threadIdx.x] = items[i];
    holding = true;
    held = tile;
    held_place = place;
    held_aggregate = aggregate;
  }
}

}  // namespace linrec::detail
