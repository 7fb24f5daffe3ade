// linrec/detail/problem.cuh — the arguments every row kernel takes, as one value, and how a kernel
// reads its tiles' elements and writes their results through it. The row kernels are written
// against this interface, so the same kernels run the forward recurrence (rows_problem) and its
// adjoint for the backward pass (rows_adjoint_problem, in adjoint_problem.cuh):
//
//   value_type (the accumulator), width (items per thread are a multiple); rows, length; has_final()
//   offset(row, step), vector_ok(offset), seed(row)
//   load(row, start, first, valid, vector_ok, items)    the affine elements of a tile's run
//   loads_ahead_as_loaded, loaded_inputs<Items>,        (optional) the same run held as loaded,
//   load_ahead(..., in), unpack(in, items)              converted when it is scanned
//   prefetch_ahead, prefetch_in_bulk,                   whether to, and how to, ask L2 for a tile's inputs
//   prefetch_inputs<Items>(row, start, first, valid, vector_ok),   (every thread its run,
//   prefetch_whole_tile<TileItems>(row, start)                      or one thread all of a tile)
//   unchecked_whole_tiles                               whether whole tiles may pass valid = every_step_valid
//   store(row, start, first, valid, vector_ok, items)   the results, from the scanned elements
//   striped_stores, store_width, store_vector_at(row, start, position, values)
//                                                       (optional) one vector of a whole tile's results
//   lookback_type, for_lookback()                       the problem as the look-back kernels take it
//   write_final(row, state)                             the row's final state, from its holder
//
// `start` is the tile's first step in scan order, `first` the thread's first position in the tile
// and `valid` the tile's steps in the row; `offset(row, start)` is where the tile starts.
#pragma once

#include <linrec/affine.cuh>
#include <linrec/detail/tile_io.cuh>

#include <cstdint>
#include <type_traits>

namespace linrec::detail {

/// Rows of time-contiguous data: element (r, t) at r * row_stride + t, scanned from t = 0 up, or
/// from t = length - 1 down when `Reverse`. a, b and h are stored as A, B and H (h0 and h_final
/// as H) and the scan runs in Acc. The direction is a compile-time choice: a runtime flag kept
/// both vector orders live and took block_per_row's 128 x 8 tiles from 64 to 72-84 registers, too
/// many for 8 blocks per SM (1024 x 65536 rows fell from 0.92 to 0.43 of copy on the H200: the
/// grid no longer fit in one wave).
template <typename A, typename B, typename H, typename Acc, bool Reverse = false,
          vector_store Store = vector_store::plain>
struct rows_problem {
  using value_type = Acc;
  /// Items per thread must be a multiple of this: one 16-byte vector of the narrowest operand.
  static constexpr int width = operands_width<A, B, H>;
  /// The staged look-back may stream a and b into shared memory with bulk copies and scan them
  /// as they lie: when they are stored as the (real) accumulator type.
  static constexpr bool bulk_loadable = std::is_same_v<A, Acc> && std::is_same_v<B, Acc> &&
                                        std::is_same_v<H, Acc> && !is_complex_v<Acc>;
  /// Whether a kernel should ask L2 for tiles ahead of their claim (prefetch_inputs).
  static constexpr bool prefetch_ahead = true;
  /// Whether the look-back kernel asks for a tile ahead with one thread and a bulk request per
  /// operand (prefetch_whole_tile, sm_90) rather than with every thread for its lines
  /// (prefetch_inputs). Backward in time only: on the H200 (session 21, three same-run rounds)
  /// the bulk request took the reverse scan from 0.68-0.69 of copy to 0.72-0.74 at 1 x 2^28
  /// (285-291 us to 270-276 at 64 x 2^20), but the forward scan from 0.74-0.75 to 0.72-0.73.
  static constexpr bool prefetch_in_bulk = Reverse;
  /// Whether the look-back kernel loads and stores whole aligned tiles through a second path
  /// without bounds checks (valid = every_step_valid): a quarter of its instructions a tile went
  /// to index arithmetic and checks, and fp32 rows at 1 x 2^28 ran at 0.73 of copy with it against
  /// 0.64 without (H200, same run). Only where the extra path costs no spills: with 2-byte
  /// storage it spilled 12-16 bytes.
  static constexpr bool unchecked_whole_tiles = sizeof(A) >= 4 && sizeof(B) >= 4 && sizeof(H) >= 4;
  /// Whether the deferred look-back kernel may store a whole tile's h striped: each thread one
  /// vector of `store_width` steps at a time, a warp's vectors end to end (store_vector_at).
  /// Forward in time only, where it was measured: the reverse kernel is already at 64 registers
  /// with 4 bytes of spills (fp32 512 x 8) without it.
  static constexpr bool striped_stores = unchecked_whole_tiles && !Reverse;
  static constexpr int store_width = vector_width<H>;

  const A* a;
  const B* b;
  H* h;
  const H* h0;    // may be null: h[-1] = 0
  H* h_final;     // may be null
  std::int64_t rows;
  std::int64_t length;
  std::int64_t row_stride;
  static constexpr bool reverse = Reverse;

  /// The problem the look-back kernels scan: going forward in time, the same with its vector
  /// stores in inline PTX (see vector_store), which the compiler splits there otherwise.
  using lookback_type = rows_problem<A, B, H, Acc, Reverse, Reverse ? Store : vector_store::ptx>;
  __host__ __device__ lookback_type for_lookback() const {
    return {a, b, h, h0, h_final, rows, length, row_stride};
  }

  __device__ __forceinline__ time_direction direction() const { return {reverse}; }
  // Where the row's step s lies, counting steps in scan order.
  __device__ __forceinline__ std::int64_t offset(std::int64_t row, std::int64_t step) const {
    return row * row_stride + (reverse ? length - 1 - step : step);
  }

  // The prefix a row starts from: the map x -> h0, so that the b-part of every inclusive prefix
  // is the recurrence's h directly.
  __device__ __forceinline__ affine<Acc> seed(std::int64_t row) const {
    return {Acc(0), h0 != nullptr ? convert<Acc>(h0[row]) : Acc(0)};
  }
  // Whether 16-byte vectors may be used for a run of steps whose first lies at `offset`: the run's
  // first vector starts there going forward, and ends there going backward.
  __device__ __forceinline__ bool vector_ok(std::int64_t offset) const {
    const std::int64_t start = reverse ? offset + 1 : offset;
    return aligned16(a + start) && aligned16(b + start) && aligned16(h + start);
  }

  template <int Items>
  __device__ __forceinline__ void load(std::int64_t row, std::int64_t start, std::int64_t first,
                                       std::int64_t valid, bool vector_ok, affine<Acc> (&items)[Items]) const {
    const std::int64_t at = offset(row, start);
    load_items(a + at, b + at, first, valid, vector_ok, items, direction());
  }
  /// A thread's run of a tile loaded ahead of its scan, as loaded (see loaded_run): load_ahead
  /// reads what load() would, unpack converts it.
  static constexpr bool loads_ahead_as_loaded = true;
  template <int Items>
  struct loaded_inputs {
    loaded_run<Items, A> a;
    loaded_run<Items, B> b;
  };
  template <int Items>
  __device__ __forceinline__ void load_ahead(std::int64_t row, std::int64_t start, std::int64_t first,
                                             std::int64_t valid, bool vector_ok, loaded_inputs<Items>& in) const {
    const std::int64_t at = offset(row, start);
    load_values_as_loaded(a + at, first, valid, vector_ok, in.a, direction(), convert<A>(1.0f));
    load_values_as_loaded(b + at, first, valid, vector_ok, in.b, direction(), convert<B>(0.0f));
  }
  template <int Items>
  __device__ __forceinline__ void unpack(const loaded_inputs<Items>& in, affine<Acc> (&items)[Items]) const {
    Acc va[Items], vb[Items];
    unpack_values(in.a, va, direction());
    unpack_values(in.b, vb, direction());
#pragma unroll
    for (int i = 0; i < Items; ++i) items[i] = {va[i], vb[i]};
  }
  // What load() will read, asked into L2 ahead of time.
  template <int Items>
  __device__ __forceinline__ void prefetch_inputs(std::int64_t row, std::int64_t start, std::int64_t first,
                                                  std::int64_t valid, bool vector_ok) const {
    const std::int64_t at = offset(row, start);
    prefetch_values<Items>(a + at, first, valid, vector_ok, direction());
    prefetch_values<Items>(b + at, first, valid, vector_ok, direction());
  }
  // What load() will read of a whole tile (steps start … start + TileItems - 1, in 16-byte
  // vectors), asked into L2 by the one calling thread: one bulk request per operand.
  template <std::int64_t TileItems>
  __device__ __forceinline__ void prefetch_whole_tile(std::int64_t row, std::int64_t start) const {
    const std::int64_t lowest = offset(row, start) - (reverse ? TileItems - 1 : 0);
    prefetch_l2_bulk(a + lowest, std::uint32_t(TileItems * sizeof(A)));
    prefetch_l2_bulk(b + lowest, std::uint32_t(TileItems * sizeof(B)));
  }
  template <int Items>
  __device__ __forceinline__ void store(std::int64_t row, std::int64_t start, std::int64_t first,
                                        std::int64_t valid, bool vector_ok, const affine<Acc> (&items)[Items]) const {
    store_items<Items, H, Acc, Store>(h + offset(row, start), first, valid, vector_ok, items, direction());
  }
  // One vector of h: steps position … position + store_width - 1 of a whole aligned tile.
  __device__ __forceinline__ void store_vector_at(std::int64_t row, std::int64_t start, std::int64_t position,
                                                  const Acc (&values)[store_width]) const {
    store_values<store_width, H, Acc, Store>(h + offset(row, start), position, every_step_valid, true, values,
                                             direction());
  }
  __host__ __device__ __forceinline__ bool has_final() const { return h_final != nullptr; }
  __device__ __forceinline__ void write_final(std::int64_t row, Acc state) const {
    h_final[row] = convert<H>(state);
  }
};

/// Writes the row's final state, if this thread holds it: the b-part of the item at the tile's
/// last valid position.
template <typename Problem, int Items, typename T>
__device__ __forceinline__ void store_final(const Problem& p, std::int64_t row, std::int64_t first,
                                            std::int64_t valid, const affine<T> (&items)[Items]) {
  // A compile-time index per item keeps `items` in registers.
#pragma unroll
  for (int i = 0; i < Items; ++i) {
    if (first + i == valid - 1) p.write_final(row, items[i].b);
  }
}

}  // namespace linrec::detail
