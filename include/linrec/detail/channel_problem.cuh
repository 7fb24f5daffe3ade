// linrec/detail/channel_problem.cuh — the arguments of the channel-tile kernel, and how its tiles
// cut a (batch, length, channels) problem.
#pragma once

#include <linrec/affine.cuh>
#include <linrec/tensor_layout.cuh>
#include <linrec/detail/tile_io.cuh>

#include <cstdint>

namespace linrec::detail {

/// One time step of `width` channels from channel0 of an operand: a 16-byte vector where `vector`,
/// element by element otherwise (channels past the end read as 0); nothing read past `in_time`.
template <typename T>
__device__ __forceinline__ void load_channel_run(const T* x, const tensor_strides& s, std::int64_t batch_index,
                                                 std::int64_t t, std::int64_t channel0, bool vector, bool in_time,
                                                 std::int64_t channels, T (&values)[vector16<T>::width]) {
  using vec = vector16<T>;
  constexpr int width = vec::width;
  if (vector && in_time) {
    const auto v = *reinterpret_cast<const typename vec::type*>(x + s.offset(batch_index, t, channel0));
    const T* e = reinterpret_cast<const T*>(&v);
#pragma unroll
    for (int k = 0; k < width; ++k) values[k] = e[k];
  } else {
#pragma unroll
    for (int k = 0; k < width; ++k) {
      values[k] = in_time && channel0 + k < channels ? x[s.offset(batch_index, t, channel0 + k)] : T(0);
    }
  }
}

template <typename T>
__device__ __forceinline__ void store_channel_run(T* x, const tensor_strides& s, std::int64_t batch_index,
                                                  std::int64_t t, std::int64_t channel0, bool vector,
                                                  std::int64_t channels, const T (&values)[vector16<T>::width]) {
  using vec = vector16<T>;
  constexpr int width = vec::width;
  if (vector) {
    typename vec::type v;
    T* e = reinterpret_cast<T*>(&v);
#pragma unroll
    for (int k = 0; k < width; ++k) e[k] = values[k];
    *reinterpret_cast<typename vec::type*>(x + s.offset(batch_index, t, channel0)) = v;
  } else {
#pragma unroll
    for (int k = 0; k < width; ++k) {
      if (channel0 + k < channels) x[s.offset(batch_index, t, channel0 + k)] = values[k];
    }
  }
}

/// The arguments of the channel kernels, and how they read and write a thread's part of a tile:
/// `Steps` time steps (from t0, in scan order) of `width` channels (from channel0). The kernels
/// are written against this interface (value_type, batch, length, channels, vectors, seed, load,
/// store, has_final, write_final), so they also run the backward pass (channel_adjoint_problem).
/// Time runs forward in memory here: a reverse scan passes pointers at the last step and negated
/// time strides.
template <typename T>
struct channel_problem {
  using value_type = T;
  const T* a;
  const T* b;
  T* h;
  const T* h0;   // may be null: h[-1] = 0
  T* h_final;    // may be null
  std::int64_t batch, length, channels;
  tensor_strides sa, sb, sh;
  // Channels are contiguous in all three operands and every run of vector16<T>::width channels
  // that starts at a multiple of the width is 16-byte aligned in each: vector loads are safe.
  bool vectors;

  __device__ __forceinline__ affine<T> seed(std::int64_t batch_index, std::int64_t channel) const {
    return {T(0), h0 != nullptr ? h0[batch_index * channels + channel] : T(0)};
  }

  template <int Steps>
  __device__ __forceinline__ void load(std::int64_t batch_index, std::int64_t t0, std::int64_t channel0, bool vector,
                                       affine<T> (&items)[Steps][vector16<T>::width]) const {
    constexpr int width = vector16<T>::width;
    T va[width], vb[width];
#pragma unroll
    for (int s = 0; s < Steps; ++s) {
      const std::int64_t t = t0 + s;
      const bool in_time = t < length;
      load_channel_run(a, sa, batch_index, t, channel0, vector, in_time, channels, va);
      load_channel_run(b, sb, batch_index, t, channel0, vector, in_time, channels, vb);
#pragma unroll
      for (int v = 0; v < width; ++v) {
        items[s][v] = in_time && channel0 + v < channels ? affine<T>{va[v], vb[v]} : affine<T>::identity();
      }
    }
  }
  template <int Steps>
  __device__ __forceinline__ void store(std::int64_t batch_index, std::int64_t t0, std::int64_t channel0, bool vector,
                                        const affine<T> (&items)[Steps][vector16<T>::width]) const {
    constexpr int width = vector16<T>::width;
#pragma unroll
    for (int s = 0; s < Steps; ++s) {
      const std::int64_t t = t0 + s;
      if (t >= length) break;
      T out[width];
#pragma unroll
      for (int v = 0; v < width; ++v) out[v] = items[s][v].b;
      store_channel_run(h, sh, batch_index, t, channel0, vector, channels, out);
    }
  }
  __host__ __device__ __forceinline__ bool has_final() const { return h_final != nullptr; }
  __device__ __forceinline__ void write_final(std::int64_t batch_index, std::int64_t channel, T state) const {
    h_final[batch_index * channels + channel] = state;
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

// Whether one operand (pointer p, strides s) takes 16-byte vectors across channels, every run of
// vector16<T>::width channels that starts at a multiple of the width aligned.
template <typename T>
bool vectors_fit(const T* p, const tensor_strides& s, const tensor_layout& l) {
  constexpr std::int64_t width = vector16<T>::width;
  // A stride along a dimension of one element never moves a pointer, so it need not divide.
  return aligned16(p) && (s.channel == 1 || l.channels == 1) && (l.batch == 1 || s.batch % width == 0) &&
         (l.length == 1 || s.time % width == 0);
}

// The same for the forward's three operands.
template <typename T>
bool vectors_fit(const T* a, const T* b, const T* h, const tensor_layout& l) {
  return vectors_fit(a, l.a, l) && vectors_fit(b, l.b, l) && vectors_fit(h, l.h, l);
}

}  // namespace linrec::detail
