// linrec/detail/staged_lookback_kernel.cuh — strategy::tiled_lookback on sm_90 and later: the
// look-back kernel with its loads taken off the critical path. Thread 0 of each block keeps
// `Stages` claimed tiles of a and b streaming into shared memory through the bulk-copy engine
// (cp.async.bulk, completion counted on an mbarrier per stage), so the block scans one tile while
// the next ones are already in flight. The look-back kernels without staging issue a tile's loads
// only once the tile before it is done, which leaves DRAM idle between tiles: on the H200 they
// reach 0.62 of copy bandwidth on one long row.
#pragma once

#include <linrec/block_scan.cuh>
#include <linrec/detail/lookback_kernel.cuh>
#include <linrec/detail/problem.cuh>
#include <linrec/detail/tile_io.cuh>
#include <linrec/tile_lookback.cuh>
#include <linrec/tile_status.cuh>

#include <cuda/ptx>
#include <nv/target>

#include <cstddef>
#include <cstdint>

namespace linrec::detail {

/// One tile of a and b as the bulk copies leave it: the global layout, unchanged.
template <typename T, std::int64_t TileItems>
struct staged_tile {
  T a[TileItems];
  T b[TileItems];
};

template <int Threads, int Items, int Stages, typename T>
inline constexpr std::size_t staged_lookback_shared_bytes =
    std::size_t(Stages) * sizeof(staged_tile<T, std::int64_t(Threads) * Items>);

// Moves one thread's `Items` consecutive pairs between a staged tile and registers. Thread i's run
// starts at vector i * chunks; read in order, eight consecutive threads of a quarter warp would hit
// the same banks `chunks` times over, so each thread starts at a chunk rotated by its position in
// the quarter warp, and the rotation is undone with compile-time register indices.
template <int Items, typename T>
struct staged_items {
  using vec = vector16<T>;
  static constexpr int width = vec::width;
  static constexpr int chunks = Items / width;
  static constexpr int threads_per_turn = chunks >= 8 ? 1 : 8 / chunks;

  template <typename Visit>
  __device__ __forceinline__ static void for_each_chunk(Visit visit) {
    const int rotation = (static_cast<int>(threadIdx.x) & 7) / threads_per_turn;
#pragma unroll
    for (int c = 0; c < chunks; ++c) visit((c + rotation) % chunks);
  }

  template <std::int64_t TileItems>
  __device__ __forceinline__ static void read(const staged_tile<T, TileItems>& tile, affine<T> (&items)[Items]) {
    const auto* a = reinterpret_cast<const typename vec::type*>(tile.a) + threadIdx.x * chunks;
    const auto* b = reinterpret_cast<const typename vec::type*>(tile.b) + threadIdx.x * chunks;
    for_each_chunk([&](int chunk) {
      const auto va = a[chunk];
      const auto vb = b[chunk];
      const T* ea = reinterpret_cast<const T*>(&va);
      const T* eb = reinterpret_cast<const T*>(&vb);
#pragma unroll
      for (int c = 0; c < chunks; ++c) {
        if (c == chunk) {
#pragma unroll
          for (int k = 0; k < width; ++k) items[c * width + k] = {ea[k], eb[k]};
        }
      }
    });
  }

  template <std::int64_t TileItems>
  __device__ __forceinline__ static void write(staged_tile<T, TileItems>& tile, const affine<T> (&items)[Items]) {
    auto* a = reinterpret_cast<typename vec::type*>(tile.a) + threadIdx.x * chunks;
    auto* b = reinterpret_cast<typename vec::type*>(tile.b) + threadIdx.x * chunks;
    for_each_chunk([&](int chunk) {
      typename vec::type va, vb;
      T* ea = reinterpret_cast<T*>(&va);
      T* eb = reinterpret_cast<T*>(&vb);
#pragma unroll
      for (int c = 0; c < chunks; ++c) {
        if (c == chunk) {
#pragma unroll
          for (int k = 0; k < width; ++k) {
            ea[k] = items[c * width + k].a;
            eb[k] = items[c * width + k].b;
          }
        }
      }
      a[chunk] = va;
      b[chunk] = vb;
    });
  }
};

/// The staged look-back. A block works `Deferral` tiles ahead of its look-backs: each round it
/// scans a newly landed tile, publishes its aggregate (its inclusive prefix if it starts a row)
/// and parks the scanned pairs over its stage; then it resolves the tile it scanned `Deferral`
/// rounds before, whose predecessors have by then had as long to publish theirs, writes that
/// tile's output and refills its stage. Measured on the H200 at 2^28, scanning and resolving in
/// the same round (no deferral, so an aggregate appears only once its block is done waiting on
/// its other tiles) reached 0.19 of copy; one tile of deferral 0.70.
///
/// A stage is busy from its fill until its tile's look-back, so `Stages - Deferral - 1` tiles are
/// in flight while a block scans.
///
/// The first `LookbackWarps` warps look back, `TilesPerLane` predecessors a lane a round; with
/// `StripedStores` (and a problem that allows them) a whole tile's h is stored striped from its
/// stage (store_striped).
///
/// Forward progress: a block takes its tiles in the order it claimed them, and every claimed id
/// belongs to a running block, so the smallest unfinished tile only ever waits on finished ones;
/// claiming ahead (up to Stages + 1 ids per block) and deferring do not change that, since an
/// aggregate never waits on a look-back.
template <int Threads, int Items, int Stages, int Deferral, int TilesPerLane, int LookbackWarps, bool StripedStores,
          typename T, bool Reverse, vector_store Store>
__device__ __forceinline__ void staged_lookback_tiles(const rows_problem<T, T, T, T, Reverse, Store>& p,
                                                      const tile_status<affine<T>>& status,
                                                      std::int64_t tiles_per_row) {
  static_assert(Deferral >= 1 && Stages >= Deferral + 2,
                "the staged look-back defers at least one tile and keeps at least one tile in flight");
  using V = affine<T>;
  using scan = block_scan<V, Threads, Items>;
  static_assert(LookbackWarps >= 1 && LookbackWarps <= Threads / 32, "look-back warps must be warps of the block");
  using lookback = tile_lookback_prefix<V, LookbackWarps, affine_scan_op, TilesPerLane>;
  using io = staged_items<Items, T>;
  constexpr std::int64_t tile_items = scan::tile_items;
  using stage = staged_tile<T, tile_items>;
  constexpr std::uint32_t stage_bytes = std::uint32_t(tile_items * sizeof(T));

  extern __shared__ __align__(128) unsigned char staged_storage[];
  stage* stages = reinterpret_cast<stage*>(staged_storage);
  __shared__ typename scan::temp_storage scan_storage;
  __shared__ typename lookback::temp_storage lookback_storage;
  __shared__ std::uint64_t filled[Stages];     // mbarrier per stage: its tile has landed
  __shared__ std::int64_t stage_tile[Stages];  // the tile each stage holds or awaits
  __shared__ V stage_aggregate[Stages];        // a scanned stage's tile aggregate

  const std::int64_t tiles = status.tiles();
  const std::int64_t first = std::int64_t(threadIdx.x) * Items;
  const affine_scan_op op;
  // Whole tiles whose a and b are 16-byte aligned go through the copy engine; the rest (a row's
  // last tile, rows that start unaligned, every tile of a reverse scan, whose steps run against
  // the copy's order) are read from global memory by the threads.
  const auto bulk_ok = [&](const tile_place& place) {
    return !p.reverse && place.valid == tile_items && aligned16(p.a + place.offset) &&
           aligned16(p.b + place.offset);
  };
  // Thread 0: gives stage s tile `id` and starts its copies.
  const auto fill = [&](int s, std::int64_t id) {
    stage_tile[s] = id;
    if (id >= tiles) return;  // nobody waits on a stage past the end
    const tile_place place = locate_tile<tile_items>(p, id, tiles_per_row);
    if (bulk_ok(place)) {
      cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                           cuda::ptx::space_shared, &filled[s], 2 * stage_bytes);
      cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, stages[s].a,
                               p.a + place.offset, stage_bytes, &filled[s]);
      cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, stages[s].b,
                               p.b + place.offset, stage_bytes, &filled[s]);
    } else {
      cuda::ptx::mbarrier_arrive(&filled[s]);
    }
  };

  std::int64_t claimed = 0;  // thread 0: the id for the next refill, claimed a round early so the
                             // counter's round trip never stalls the block
  if (threadIdx.x == 0) {
#pragma unroll
    for (int s = 0; s < Stages; ++s) cuda::ptx::mbarrier_init(&filled[s], 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
#pragma unroll
    for (int s = 0; s < Stages; ++s) fill(s, status.next_tile());
    claimed = status.next_tile();
  }
  __syncthreads();

  for (std::int64_t k = 0;; ++k) {
    // The new tile. Ids only grow with k, so once one is past the end, every later one is too.
    const int s = static_cast<int>(k % Stages);
    if (const std::int64_t tile = stage_tile[s]; tile < tiles) {
      const tile_place place = locate_tile<tile_items>(p, tile, tiles_per_row);
      while (!cuda::ptx::mbarrier_try_wait_parity(&filled[s], std::uint32_t((k / Stages) & 1))) {
      }
      V items[Items];
      if (bulk_ok(place)) {
        io::read(stages[s], items);
      } else {
        p.load(place.row, place.start, first, place.valid, place.vector_ok, items);
      }
      V aggregate;
      scan(scan_storage).inclusive_scan(items, aggregate);
      if (threadIdx.x == 0) {
        publish_scanned(p, status, tile, place, aggregate);
        stage_aggregate[s] = aggregate;
      }
      io::write(stages[s], items);  // each thread its own slots, so it rereads them unsynchronized
    }
    if (k < Deferral) {
      __syncthreads();  // the scan storage is read by all before the next round's scan rewrites it
      continue;
    }

    // The tile scanned Deferral rounds ago: its prefix, its output, and a new tile for its stage.
    const int held_stage = static_cast<int>((k - Deferral) % Stages);
    const std::int64_t held = stage_tile[held_stage];
    if (held >= tiles) return;
    const tile_place place = locate_tile<tile_items>(p, held, tiles_per_row);
    const V prefix = resolve_published<LookbackWarps, TilesPerLane>(lookback_storage, p, status, held, place,
                                                                    tiles_per_row, stage_aggregate[held_stage]);
    bool stored = false;
    if constexpr (StripedStores && rows_problem<T, T, T, T, Reverse, Store>::striped_stores) {
      if (stores_striped<tile_items>(p, place, tiles_per_row)) {
        // The stage holds the scanned pairs as the tile lies in memory, so a warp reads 512
        // consecutive bytes of each operand, free of bank conflicts; they are slots other threads
        // wrote, ordered by the end-of-round barrier.
        store_striped<Threads, Items>(p, place, prefix, [&](int vector, V (&pairs)[io::width]) {
          const auto va = reinterpret_cast<const typename io::vec::type*>(stages[held_stage].a)[vector];
          const auto vb = reinterpret_cast<const typename io::vec::type*>(stages[held_stage].b)[vector];
          const T* ea = reinterpret_cast<const T*>(&va);
          const T* eb = reinterpret_cast<const T*>(&vb);
#pragma unroll
          for (int k = 0; k < io::width; ++k) pairs[k] = {ea[k], eb[k]};
        });
        stored = true;
      }
    }
    if (!stored) {
      V out[Items];
      io::read(stages[held_stage], out);
#pragma unroll
      for (int i = 0; i < Items; ++i) out[i] = op(prefix, out[i]);
      store_tile<tile_items>(p, place, first, tiles_per_row, out);
    }
    // The generic proxy's shared-memory accesses, ordered before the copy engine's writes.
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
    __syncthreads();
    if (threadIdx.x == 0) {
      fill(held_stage, claimed);
      claimed = status.next_tile();
    }
  }
}

template <int Threads, int Items, int Stages, int Deferral, int MinBlocks, int TilesPerLane, int LookbackWarps,
          bool StripedStores, typename Problem>
__global__ void __launch_bounds__(Threads, MinBlocks)
    staged_lookback_kernel(Problem p, tile_status<affine<typename Problem::value_type>> status,
                           std::int64_t tiles_per_row) {
  // Built for an architecture without the bulk-copy engine, the kernel is never launched: the
  // host checks its binary version first.
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_90,
                    ((staged_lookback_tiles<Threads, Items, Stages, Deferral, TilesPerLane, LookbackWarps,
                                            StripedStores>(p, status, tiles_per_row));),
                    (__trap();))
}

}  // namespace linrec::detail
