// linrec/detail/channel_stage.cuh — a thread's straight channel run kept unconverted until it is
// used: copied from global to shared memory by cp.async while the block still scans and stores
// another (channel_stage), so a block has loads in flight without holding them in registers; or
// held in registers as the same 16-byte vectors (channel_held_run), half the registers of the
// converted run for 2-byte storage.
#pragma once

#include <linrec/affine.cuh>
#include <linrec/detail/channel_problem.cuh>
#include <linrec/detail/tile_io.cuh>

#include <cuda_pipeline.h>

#include <cstddef>
#include <cstring>
#include <type_traits>

namespace linrec::detail {

/// `Vectors` raw 16-byte vectors of S (vector(c) gives the c-th) converted to Width values of Acc.
template <int Vectors, typename S, typename Acc, int Width, typename Vector>
__device__ __forceinline__ void convert_vectors(Vector&& vector, Acc (&values)[Width]) {
  constexpr int per_vector = vector_width<S>;
  static_assert(Vectors * per_vector == Width, "the vectors hold the values");
#pragma unroll
  for (int c = 0; c < Vectors; ++c) {
    const uint4 raw = vector(c);
    S e[per_vector];
    memcpy(e, &raw, sizeof(raw));
#pragma unroll
    for (int k = 0; k < per_vector; ++k) values[c * per_vector + k] = convert<Acc>(e[k]);
  }
}

/// One staged run per thread of a Threads-thread block: `Steps` steps of `Problem::width` channels
/// of both operands of the problem's straight path (see channel_problem::visit_straight), kept
/// as raw 16-byte vectors. Slot k of every thread lies side by side, so a warp's copies and reads
/// of one slot touch consecutive 16-byte words: no bank conflicts.
///
/// A caller keeps one temp_storage per run it stages ahead, fetches into one, commits a copy
/// group per run or per tile (see commit), and reads a run once its group is done. Each thread
/// reads back only what it copied itself, so no barrier is needed between the copy and the read,
/// only the thread's own wait. Between reading a run and copying the next one over it, the
/// caller must pass a __syncthreads() (the reads are then performed before the copies).
template <int Threads, int Steps, typename Problem>
struct channel_stage {
  using Acc = typename Problem::value_type;
  static constexpr int width = Problem::width;
  using first_type = typename Problem::first_type;
  using second_type = typename Problem::second_type;
  static constexpr int first_vectors = width * int(sizeof(first_type)) / 16;    // per step
  static constexpr int second_vectors = width * int(sizeof(second_type)) / 16;  // per step
  static constexpr int slots = Steps * (first_vectors + second_vectors);
  /// The slot order: every step's vectors of the first operand, then the second's. Step s's
  /// first vector of each:
  static constexpr __host__ __device__ int first_slot(int s) { return s * first_vectors; }
  static constexpr __host__ __device__ int second_slot(int s) { return Steps * first_vectors + s * second_vectors; }
  static_assert(width * sizeof(first_type) % 16 == 0 && width * sizeof(second_type) % 16 == 0,
                "a thread's channels must be whole 16-byte vectors of both operands");

  struct temp_storage {
    uint4 slot[slots][Threads];
  };

  /// The straight run at (batch_index, t0, channel0) in slot order: move(slot, source) for each of
  /// its 16-byte vectors, every one before any is used.
  template <typename Move>
  static __device__ __forceinline__ void visit_slots(const Problem& p, std::int64_t batch_index, std::int64_t t0,
                                                     std::int64_t channel0, Move&& move) {
    p.template visit_straight<Steps>(batch_index, t0, channel0, [&](auto operand, int s, const auto* x) {
      using S = std::remove_cv_t<std::remove_pointer_t<decltype(x)>>;
      constexpr bool first = decltype(operand)::first;
      constexpr int vectors = first ? first_vectors : second_vectors;
      const int base = first ? first_slot(s) : second_slot(s);
#pragma unroll
      for (int c = 0; c < vectors; ++c) move(base + c, x + c * vector_width<S>);
    });
  }

  /// Step `s` of a run in slot order, converted: vector(slot) gives the run's raw vectors.
  template <typename Vector>
  static __device__ __forceinline__ void assemble_step(const Problem& p, int s, Vector&& vector,
                                                       affine<Acc> (&item)[width]) {
    Acc first[1][width], second[1][width];
    convert_vectors<first_vectors, first_type>([&](int c) { return vector(first_slot(s) + c); }, first[0]);
    convert_vectors<second_vectors, second_type>([&](int c) { return vector(second_slot(s) + c); }, second[0]);
    affine<Acc> items[1][width];
    p.assemble(first, second, items);
#pragma unroll
    for (int v = 0; v < width; ++v) item[v] = items[0][v];
  }

  /// Starts copying the straight run at (batch_index, t0, channel0) into this thread's slots.
  static __device__ __forceinline__ void fetch(temp_storage& storage, const Problem& p, std::int64_t batch_index,
                                               std::int64_t t0, std::int64_t channel0) {
    visit_slots(p, batch_index, t0, channel0, [&](int slot, const void* source) {
      __pipeline_memcpy_async(&storage.slot[slot][threadIdx.x], source, 16);
    });
  }

  /// One step of this thread's run, converted: step `s` of the run in `storage`, whose copy group
  /// the caller has already waited for (wait_pending).
  static __device__ __forceinline__ void read_step(const temp_storage& storage, const Problem& p, int s,
                                                   affine<Acc> (&item)[width]) {
    assemble_step(p, s, [&](int slot) { return storage.slot[slot][threadIdx.x]; }, item);
  }

  /// Waits until at most `pending` (0 ... MaxPending) of this thread's newest copy groups are
  /// still in flight: a count known only at run time, for a rolled loop over runs in groups of
  /// their own (cp.async's wait takes its count as an immediate).
  template <int MaxPending>
  static __device__ __forceinline__ void wait_pending(int pending) {
    if constexpr (MaxPending == 0) {
      __pipeline_wait_prior(0);
    } else if (pending >= MaxPending) {
      __pipeline_wait_prior(MaxPending);
    } else {
      wait_pending<MaxPending - 1>(pending);
    }
  }

  /// Closes this thread's copy group: every fetch since the last commit (possibly none).
  static __device__ __forceinline__ void commit() { __pipeline_commit(); }

  /// Waits until at most `Pending` of this thread's newest copy groups are still in flight (the
  /// run in `storage` must not be one of them) and converts the run into the items.
  template <int Pending = 0>
  static __device__ __forceinline__ void read(const temp_storage& storage, const Problem& p,
                                              affine<Acc> (&items)[Steps][width]) {
    __pipeline_wait_prior(Pending);
    Acc first[Steps][width], second[Steps][width];
#pragma unroll
    for (int s = 0; s < Steps; ++s) {
      unpack<first_vectors, first_type>(storage, first_slot(s), first[s]);
      unpack<second_vectors, second_type>(storage, second_slot(s), second[s]);
    }
    p.assemble(first, second, items);
  }

 private:
  template <int Vectors, typename S>
  static __device__ __forceinline__ void unpack(const temp_storage& storage, int base, Acc (&values)[width]) {
    convert_vectors<Vectors, S>([&](int c) { return storage.slot[base + c][threadIdx.x]; }, values);
  }
};

/// A thread's straight run held in registers as the raw 16-byte vectors channel_stage would copy
/// to shared memory, converted a step at a time where it is used. For 2-byte storage this is half
/// the registers of the run's converted items, which a tile would otherwise hold through its
/// look-back.
template <int Steps, typename Problem>
struct channel_held_run {
  using Acc = typename Problem::value_type;
  using layout = channel_stage<32, Steps, Problem>;  // its slot order; Threads plays no part in it
  static constexpr int width = Problem::width;
  uint4 vector[layout::slots];

  /// Loads the straight run at (batch_index, t0, channel0), every vector issued before any is used.
  __device__ __forceinline__ void load(const Problem& p, std::int64_t batch_index, std::int64_t t0,
                                       std::int64_t channel0) {
    layout::visit_slots(p, batch_index, t0, channel0, [&](int slot, const void* source) {
      vector[slot] = *static_cast<const uint4*>(source);
    });
  }

  /// Step `s` of the run, converted.
  __device__ __forceinline__ void read_step(const Problem& p, int s, affine<Acc> (&item)[width]) const {
    layout::assemble_step(p, s, [&](int slot) { return vector[slot]; }, item);
  }
};

/// The dynamic shared memory `Count` stages of channel_stage<Threads, Steps, Problem> take (0 for none).
template <int Threads, int Steps, int Count, typename Problem>
inline constexpr std::size_t channel_stage_bytes =
    Count > 0 ? sizeof(typename channel_stage<Threads, Steps, Problem>::temp_storage) * Count : 0;

}  // namespace linrec::detail
