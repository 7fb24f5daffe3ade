// linrec/detail/tile_io.cuh — moving one thread's run of consecutive elements between global memory
// and registers: 16-byte vector accesses where the run is aligned and in bounds, scalar elsewhere.
#pragma once

#include <linrec/affine.cuh>
#include <linrec/detail/convert.cuh>

#include <cuda_runtime.h>
#include <nv/target>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace linrec::detail {

/// Elements of storage type S in one 16-byte vector: 8 for __half and __nv_bfloat16, 4 for float,
/// 2 for double and complex<float>, 1 for complex<double>.
template <typename S>
inline constexpr int vector_width = 16 / int(sizeof(S));

/// One 16-byte vector of the narrowest of the operand types: the items a row-kernel thread scans
/// and the channels a channel-kernel lane owns are a multiple of it, so each operand moves in
/// whole vectors.
template <typename... S>
inline constexpr int operands_width = std::max({vector_width<S>...});

/// 16-byte vectors of float and double, for code that moves them as they are (bulk copies).
template <typename T>
struct vector16;
template <>
struct vector16<float> {
  using type = float4;
  static constexpr int width = 4;
};
template <>
struct vector16<double> {
  using type = double2;
  static constexpr int width = 2;
};

template <typename T>
__host__ __device__ __forceinline__ bool aligned16(const T* p) {
  return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0;
}

/// One 16-byte load or store of vector_width<S> consecutive elements at a 16-byte aligned p.
/// memcpy between the vector and the elements keeps this free of aliasing UB and compiles to
/// register moves (or byte permutes, for the 2-byte types).
template <typename S>
__device__ __forceinline__ void load_vector(const S* p, S (&e)[vector_width<S>]) {
  const uint4 v = *reinterpret_cast<const uint4*>(p);
  memcpy(e, &v, sizeof(v));
}
template <typename S>
__device__ __forceinline__ void store_vector(S* p, const S (&e)[vector_width<S>]) {
  uint4 v;
  memcpy(&v, e, sizeof(v));
  *reinterpret_cast<uint4*>(p) = v;
}

/// `valid` for a tile every step of which lies in its row: the bounds checks fold away.
inline constexpr std::int64_t every_step_valid = INT64_MAX;

/// How store_values writes a 16-byte vector: a plain store, or one st.global.v4 in inline PTX
/// (__stwb), which the compiler cannot take apart.
///
/// In the look-back kernels scanning forward in time, the compiler split the plain store of each
/// thread's first vector into four 4-byte stores (it merged it with the scalar tail path's, whose
/// addresses are the same going forward): 2.5 times the L2 store requests, and on the H200 at
/// 1 × 2^28 fp32 the forward scan ran at 0.50 of copy against 0.63 with `ptx`. Where the plain
/// store stays whole, it measured faster than `ptx` (the backward pass at 2^28: 0.77 against 0.67
/// of copy in the same run; the reverse scan 0.65 against 0.62 in two runs), so `ptx` is only for
/// those kernels (see rows_problem::lookback_type).
enum class vector_store { plain, ptx };

template <typename S>
__device__ __forceinline__ void store_vector_ptx(S* p, const S (&e)[vector_width<S>]) {
  uint4 v;
  memcpy(&v, e, sizeof(v));
  __stwb(reinterpret_cast<uint4*>(p), v);
}

/// Asks L2 to fetch the line holding p, without waiting and without registers: for data some
/// thread will read later (a tile claimed a round on, the adjoint's h read when a tile is stored).
__device__ __forceinline__ void prefetch_l2(const void* p) {
  asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
}

/// Whether this build has the bulk-copy engine's L2 prefetch (sm_90 and later): in device code of
/// such an architecture, true.
__device__ __forceinline__ constexpr bool bulk_prefetch_available() {
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_90, (return true;), (return false;))
}

/// Asks L2 for `bytes` bytes from p (16-byte aligned, a multiple of 16 bytes) in one request to the
/// bulk-copy engine, from one thread: a whole tile of an operand without each thread computing
/// where its lines are. Nothing where bulk_prefetch_available() is false.
__device__ __forceinline__ void prefetch_l2_bulk(const void* p, std::uint32_t bytes) {
  NV_IF_TARGET(NV_PROVIDES_SM_90, (asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(
                                                    __cvta_generic_to_global(p)),
                                                "r"(bytes)
                                                : "memory");))
}

/// `Count` consecutive elements of x (16-byte aligned, Count * sizeof(S) a multiple of 16) read
/// as vectors and converted to V.
template <int Count, typename S, typename V>
__device__ __forceinline__ void load_run(const S* x, V (&values)[Count]) {
  constexpr int width = vector_width<S>;
  static_assert(Count % width == 0, "a run must fill whole 16-byte vectors of every operand");
#pragma unroll
  for (int c = 0; c < Count / width; ++c) {
    S e[width];
    load_vector(x + c * width, e);
#pragma unroll
    for (int k = 0; k < width; ++k) values[c * width + k] = convert<V>(e[k]);
  }
}
template <int Count, typename S, typename V>
__device__ __forceinline__ void store_run(S* x, const V (&values)[Count]) {
  constexpr int width = vector_width<S>;
  static_assert(Count % width == 0, "a run must fill whole 16-byte vectors of every operand");
#pragma unroll
  for (int c = 0; c < Count / width; ++c) {
    S e[width];
#pragma unroll
    for (int k = 0; k < width; ++k) e[k] = convert<S>(values[c * width + k]);
    store_vector(x + c * width, e);
  }
}

/// Which way a run's steps lie in memory: step i of a run based at `p` is p[i] forward and p[-i]
/// in reverse (a reverse scan reads each row from its end, with no flipped copy).
struct time_direction {
  bool reverse = false;

  /// Where the vector holding steps i..i+width-1 starts in memory: the lowest address.
  template <int Width>
  __host__ __device__ __forceinline__ std::int64_t vector_start(std::int64_t i) const {
    return reverse ? -i - (Width - 1) : i;
  }
  __host__ __device__ __forceinline__ std::int64_t at(std::int64_t i) const { return reverse ? -i : i; }
};

/// Loads positions first..first+Items-1 of one array, converted to V, into `values`; `fill` at
/// and past `valid`. `vector_ok` says the vectors the run's steps fill are 16-byte aligned (and
/// `first` is a multiple of the vector width).
template <int Items, typename S, typename V>
__device__ __forceinline__ void load_values(const S* x, std::int64_t first, std::int64_t valid, bool vector_ok,
                                            V (&values)[Items], time_direction dir = {}, V fill = V(0)) {
  constexpr int width = vector_width<S>;
  static_assert(Items % width == 0, "items per thread must fill whole 16-byte vectors of every operand");
#pragma unroll
  for (int c = 0; c < Items / width; ++c) {
    const std::int64_t index = first + c * width;
    if (vector_ok && index + width <= valid) {
      S e[width];
      load_vector(x + dir.vector_start<width>(index), e);
      // Constant indices on both sides of the choice keep the vectors in registers.
#pragma unroll
      for (int k = 0; k < width; ++k) values[c * width + k] = convert<V>(dir.reverse ? e[width - 1 - k] : e[k]);
    } else {
#pragma unroll
      for (int k = 0; k < width; ++k) {
        values[c * width + k] = index + k < valid ? convert<V>(x[dir.at(index + k)]) : fill;
      }
    }
  }
}

/// A thread's run of Items elements of storage S as they were loaded: 16-byte vectors, not yet
/// converted, each vector's elements in memory order. For a run loaded a tile ahead of its scan:
/// a conversion right after the load makes the thread wait there for the load (the compiler
/// cannot move it past the branch between the vector and element paths), while raw vectors are
/// only waited for where unpack_values converts them.
template <int Items, typename S>
struct loaded_run {
  static constexpr int width = vector_width<S>;
  static_assert(Items % width == 0, "items per thread must fill whole 16-byte vectors of every operand");
  uint4 vectors[Items / width];
};

/// What load_values would read, into `run` as loaded (unpack_values converts it).
template <int Items, typename S>
__device__ __forceinline__ void load_values_as_loaded(const S* x, std::int64_t first, std::int64_t valid,
                                                      bool vector_ok, loaded_run<Items, S>& run, time_direction dir,
                                                      S fill) {
  constexpr int width = vector_width<S>;
#pragma unroll
  for (int c = 0; c < Items / width; ++c) {
    const std::int64_t index = first + c * width;
    if (vector_ok && index + width <= valid) {
      run.vectors[c] = *reinterpret_cast<const uint4*>(x + dir.vector_start<width>(index));
    } else {
      // Element k of a vector holds the step its place in memory would: going backward, the
      // vector's lowest address holds its last step.
      S e[width];
#pragma unroll
      for (int k = 0; k < width; ++k) {
        const std::int64_t i = index + (dir.reverse ? width - 1 - k : k);
        e[k] = i < valid ? x[dir.at(i)] : fill;
      }
      memcpy(&run.vectors[c], e, sizeof(uint4));
    }
  }
}

/// The values of a run load_values_as_loaded read, converted to V, in step order.
template <int Items, typename S, typename V>
__device__ __forceinline__ void unpack_values(const loaded_run<Items, S>& run, V (&values)[Items],
                                              time_direction dir) {
  constexpr int width = vector_width<S>;
#pragma unroll
  for (int c = 0; c < Items / width; ++c) {
    S e[width];
    memcpy(e, &run.vectors[c], sizeof(uint4));
#pragma unroll
    for (int k = 0; k < width; ++k) values[c * width + k] = convert<V>(dir.reverse ? e[width - 1 - k] : e[k]);
  }
}

/// Loads items first..first+Items-1 of (a, b) into `items`; positions at or past `valid` become
/// the identity, so they leave a scan unchanged.
template <int Items, typename A, typename B, typename V>
__device__ __forceinline__ void load_items(const A* a, const B* b, std::int64_t first, std::int64_t valid,
                                           bool vector_ok, affine<V> (&items)[Items], time_direction dir = {}) {
  V va[Items], vb[Items];
  load_values(a, first, valid, vector_ok, va, dir, V(1));
  load_values(b, first, valid, vector_ok, vb, dir, V(0));
#pragma unroll
  for (int i = 0; i < Items; ++i) items[i] = {va[i], vb[i]};
}

/// Asks L2 for the vectors that load_values would read at positions first..first+Items-1 (nothing
/// where the run is not in 16-byte vectors: the prefetch is only a hint).
template <int Items, typename S>
__device__ __forceinline__ void prefetch_values(const S* x, std::int64_t first, std::int64_t valid, bool vector_ok,
                                                time_direction dir = {}) {
  constexpr int width = vector_width<S>;
  // One request per 128-byte line a run starts in: the threads' runs lie end to end, so every
  // line of the tile but possibly its last holds the start of a run (whole lines for runs of
  // 32 bytes, as fp32 tiles of 8 items have); a vector in the middle of a line repeats a request.
  constexpr int vectors_per_line = 128 / 16;
  if (!vector_ok) return;
#pragma unroll
  for (int c = 0; c < Items / width; c += vectors_per_line) {
    const std::int64_t index = first + c * width;
    if (index + width <= valid) prefetch_l2(x + dir.vector_start<width>(index));
  }
}

/// Stores `values`, each rounded once to S, at positions below `valid`.
template <int Items, typename S, typename V, vector_store Store = vector_store::plain>
__device__ __forceinline__ void store_values(S* x, std::int64_t first, std::int64_t valid, bool vector_ok,
                                             const V (&values)[Items], time_direction dir = {}) {
  constexpr int width = vector_width<S>;
  static_assert(Items % width == 0, "items per thread must fill whole 16-byte vectors of every operand");
#pragma unroll
  for (int c = 0; c < Items / width; ++c) {
    const std::int64_t index = first + c * width;
    if (vector_ok && index + width <= valid) {
      S e[width];
#pragma unroll
      for (int k = 0; k < width; ++k) {
        e[k] = convert<S>(dir.reverse ? values[c * width + width - 1 - k] : values[c * width + k]);
      }
      if constexpr (Store == vector_store::ptx) {
        store_vector_ptx(x + dir.vector_start<width>(index), e);
      } else {
        store_vector(x + dir.vector_start<width>(index), e);
      }
    } else {
#pragma unroll
      for (int k = 0; k < width; ++k) {
        if (index + k < valid) x[dir.at(index + k)] = convert<S>(values[c * width + k]);
      }
    }
  }
}

/// Stores the b-part of items (the recurrence's h) for positions below `valid`.
template <int Items, typename H, typename V, vector_store Store = vector_store::plain>
__device__ __forceinline__ void store_items(H* h, std::int64_t first, std::int64_t valid, bool vector_ok,
                                            const affine<V> (&items)[Items], time_direction dir = {}) {
  V values[Items];
#pragma unroll
  for (int i = 0; i < Items; ++i) values[i] = items[i].b;
  store_values<Items, H, V, Store>(h, first, valid, vector_ok, values, dir);
}

}  // namespace linrec::detail
