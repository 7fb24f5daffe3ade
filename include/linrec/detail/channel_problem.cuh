// linrec/detail/channel_problem.cuh — the arguments of the channel-tile kernel, and how its tiles
// cut a (batch, length, channels) problem.
#pragma once

#include <linrec/affine.cuh>
#include <linrec/tensor_layout.cuh>
#include <linrec/detail/tile_io.cuh>

#include <cstdint>

namespace linrec::detail {

/// One time step of `Width` channels from channel0 of an operand, converted to V: 16-byte vectors
/// where `vector`, element by element otherwise (channels past the end read as 0); nothing read
/// past `in_time`.
template <int Width, typename S, typename V>
__device__ __forceinline__ void load_channel_run(const S* x, const tensor_strides& s, std::int64_t batch_index,
                                                 std::int64_t t, std::int64_t channel0, bool vector, bool in_time,
                                                 std::int64_t channels, V (&values)[Width]) {
  if (vector && in_time) {
    load_run(x + s.offset(batch_index, t, channel0), values);
  } else {
#pragma unroll
    for (int k = 0; k < Width; ++k) {
      values[k] = in_time && channel0 + k < channels ? convert<V>(x[s.offset(batch_index, t, channel0 + k)]) : V(0);
    }
  }
}

template <int Width, typename S, typename V>
__device__ __forceinline__ void store_channel_run(S* x, const tensor_strides& s, std::int64_t batch_index,
                                                  std::int64_t t, std::int64_t channel0, bool vector,
                                                  std::int64_t channels, const V (&values)[Width]) {
  if (vector) {
    store_run(x + s.offset(batch_index, t, channel0), values);
  } else {
#pragma unroll
    for (int k = 0; k < Width; ++k) {
      if (channel0 + k < channels) x[s.offset(batch_index, t, channel0 + k)] = convert<S>(values[k]);
    }
  }
}

/// Tags for the two operands a channel problem's straight path reads.
struct first_operand {
  static constexpr bool first = true;
};
struct second_operand {
  static constexpr bool first = false;
};

/// A straight run loaded directly: every vector of both operands issued before any is used.
template <typename Problem, int Steps>
__device__ __forceinline__ void load_straight(const Problem& p, std::int64_t batch_index, std::int64_t t0,
                                              std::int64_t channel0,
                                              affine<typename Problem::value_type> (&items)[Steps][Problem::width]) {
  using Acc = typename Problem::value_type;
  Acc first[Steps][Problem::width], second[Steps][Problem::width];
  p.template visit_straight<Steps>(batch_index, t0, channel0, [&](auto operand, int s, const auto* x) {
    if constexpr (decltype(operand)::first) {
      load_run(x, first[s]);
    } else {
      load_run(x, second[s]);
    }
  });
  p.assemble(first, second, items);
}

/// Asks L2 for a straight run's vectors of both operands; nothing for a run that is not straight.
template <int Steps, typename Problem>
__device__ __forceinline__ void prefetch_straight(const Problem& p, std::int64_t batch_index, std::int64_t t0,
                                                  std::int64_t channel0, bool vector) {
  if (!p.template straight<Steps>(t0, vector)) return;
  p.template visit_straight<Steps>(batch_index, t0, channel0, [](auto, int, const auto* x) { prefetch_l2(x); });
}

/// The arguments of the channel kernels, and how they read and write a thread's part of a tile:
/// `Steps` time steps (from t0, in scan order) of `width` channels (from channel0). The kernels
/// are written against this interface (value_type, width, batch, length, channels, vectors, seed,
/// load, prefetch_ahead, prefetch_inputs, prefetch_store_inputs, store, has_final, write_final,
/// hold_raw_run and the straight path's first_type, second_type, straight, visit_straight, assemble),
/// so they also run the backward pass (channel_adjoint_problem). a, b and h are stored as A, B
/// and H; the scan runs in Acc. Time runs forward in memory here: a reverse scan passes pointers
/// at the last step and negated time strides.
template <typename A, typename B, typename H, typename Acc>
struct channel_problem {
  using value_type = Acc;
  /// Channels per thread: one 16-byte vector of the narrowest operand.
  static constexpr int width = operands_width<A, B, H>;
  const A* a;
  const B* b;
  H* h;
  const H* h0;   // may be null: h[-1] = 0
  H* h_final;    // may be null
  std::int64_t batch, length, channels;
  tensor_strides sa, sb, sh;
  // Channels are contiguous in all three operands and every run of `width` channels that starts
  // at a multiple of the width is 16-byte aligned in each: vector loads are safe.
  bool vectors;

  __device__ __forceinline__ affine<Acc> seed(std::int64_t batch_index, std::int64_t channel) const {
    return {Acc(0), h0 != nullptr ? convert<Acc>(h0[batch_index * channels + channel]) : Acc(0)};
  }

  /// The straight path: a thread's `Steps` steps are all in time and 16-byte vectors throughout,
  /// so they load as one run of vectors with no branch between them (and the walk may stage them
  /// through shared memory ahead of use: channel_stage).
  using first_type = A;
  using second_type = B;
  template <int Steps>
  __device__ __forceinline__ bool straight(std::int64_t t0, bool vector) const {
    return vector && t0 + Steps <= length;
  }
  /// The straight path's sources: visit(operand, step, pointer) for each step of a, then of b;
  /// operand is first_operand or second_operand.
  template <int Steps, typename Visit>
  __device__ __forceinline__ void visit_straight(std::int64_t batch_index, std::int64_t t0, std::int64_t channel0,
                                                 Visit&& visit) const {
#pragma unroll
    for (int s = 0; s < Steps; ++s) visit(first_operand{}, s, a + sa.offset(batch_index, t0 + s, channel0));
#pragma unroll
    for (int s = 0; s < Steps; ++s) visit(second_operand{}, s, b + sb.offset(batch_index, t0 + s, channel0));
  }
  /// Whether a channel tile with shared runs holds its first run through the look-back as raw
  /// vectors (channel_held_run: folded into the thread's total, then scanned again from the carry)
  /// rather than as scanned items: where the operands are stored narrower than Acc, that is half
  /// the registers. The bf16 tile's ptxas spills went from 56 bytes to none, and bf16 / fp16
  /// [1, 65536, 1024] measured 0.764 / 0.772 of copy against 0.752 / 0.749 (H100, session 45).
  /// For fp32 and complex64, whose raw run is as large as its items, it measured no better.
  static constexpr bool hold_raw_run = sizeof(A) + sizeof(B) < 2 * sizeof(Acc);
  /// The items of a straight run from the values visit_straight's sources hold.
  template <int Steps>
  __device__ __forceinline__ void assemble(const Acc (&first)[Steps][width], const Acc (&second)[Steps][width],
                                           affine<Acc> (&items)[Steps][width]) const {
#pragma unroll
    for (int s = 0; s < Steps; ++s) {
#pragma unroll
      for (int v = 0; v < width; ++v) items[s][v] = {first[s][v], second[s][v]};
    }
  }

  template <int Steps>
  __device__ __forceinline__ void load(std::int64_t batch_index, std::int64_t t0, std::int64_t channel0, bool vector,
                                       affine<Acc> (&items)[Steps][width]) const {
    if (straight<Steps>(t0, vector)) {
      load_straight(*this, batch_index, t0, channel0, items);
      return;
    }
    Acc va[width], vb[width];
#pragma unroll
    for (int s = 0; s < Steps; ++s) {
      const std::int64_t t = t0 + s;
      const bool in_time = t < length;
      load_channel_run(a, sa, batch_index, t, channel0, vector, in_time, channels, va);
      load_channel_run(b, sb, batch_index, t, channel0, vector, in_time, channels, vb);
#pragma unroll
      for (int v = 0; v < width; ++v) {
        items[s][v] = in_time && channel0 + v < channels ? affine<Acc>{va[v], vb[v]} : affine<Acc>::identity();
      }
    }
  }
  /// What load() will read, asked into L2 ahead of time (straight runs only: it is a hint), and
  /// whether kernels should.
  static constexpr bool prefetch_ahead = true;
  template <int Steps>
  __device__ __forceinline__ void prefetch_inputs(std::int64_t batch_index, std::int64_t t0, std::int64_t channel0,
                                                  bool vector) const {
    prefetch_straight<Steps>(*this, batch_index, t0, channel0, vector);
  }
  /// What store() reads, requested into L2 when the tile is loaded: nothing here.
  template <int Steps>
  __device__ __forceinline__ void prefetch_store_inputs(std::int64_t, std::int64_t, std::int64_t, bool) const {}
  template <int Steps>
  __device__ __forceinline__ void store(std::int64_t batch_index, std::int64_t t0, std::int64_t channel0, bool vector,
                                        const affine<Acc> (&items)[Steps][width]) const {
    if (vector && t0 + Steps <= length) {
#pragma unroll
      for (int s = 0; s < Steps; ++s) {
        Acc out[width];
#pragma unroll
        for (int v = 0; v < width; ++v) out[v] = items[s][v].b;
        store_run(h + sh.offset(batch_index, t0 + s, channel0), out);
      }
      return;
    }
#pragma unroll
    for (int s = 0; s < Steps; ++s) {
      const std::int64_t t = t0 + s;
      if (t >= length) break;
      Acc out[width];
#pragma unroll
      for (int v = 0; v < width; ++v) out[v] = items[s][v].b;
      store_channel_run(h, sh, batch_index, t, channel0, vector, channels, out);
    }
  }
  __host__ __device__ __forceinline__ bool has_final() const { return h_final != nullptr; }
  __device__ __forceinline__ void write_final(std::int64_t batch_index, std::int64_t channel, Acc state) const {
    h_final[batch_index * channels + channel] = convert<H>(state);
  }
};

/// Tiles of `steps` time steps × `group` channels of one batch entry. Tile ids run over the
/// groups first, so tile id - groups is the same channels' previous time chunk: every tile's
/// predecessors have smaller ids, as the look-back's forward-progress argument needs, and the
/// tiles in flight at once spread over many groups rather than queue along one.
struct channel_tiling {
  std::int64_t group;             // channels per tile
  std::int64_t steps;             // time steps per tile
  std::int64_t groups_per_batch;  // ceil(channels / group)
  std::int64_t groups;            // batch * groups_per_batch: tiles per time chunk
  std::int64_t chunks;            // ceil(length / steps)

  __host__ __device__ constexpr std::int64_t tiles() const { return groups * chunks; }
};

// Whether one operand (pointer p, strides s) takes 16-byte vectors across channels: every run of
// channels that starts at a multiple of the problem's width (a multiple of vector_width<T>) is
// 16-byte aligned, as p is and every stride that moves it is a whole number of vectors.
template <typename T>
bool vectors_fit(const T* p, const tensor_strides& s, const tensor_layout& l) {
  constexpr std::int64_t width = vector_width<T>;
  // A stride along a dimension of one element never moves a pointer, so it need not divide.
  return aligned16(p) && (s.channel == 1 || l.channels == 1) && (l.batch == 1 || s.batch % width == 0) &&
         (l.length == 1 || s.time % width == 0);
}

// The same for the forward's three operands.
template <typename A, typename B, typename H>
bool vectors_fit(const A* a, const B* b, const H* h, const tensor_layout& l) {
  return vectors_fit(a, l.a, l) && vectors_fit(b, l.b, l) && vectors_fit(h, l.h, l);
}

}  // namespace linrec::detail
