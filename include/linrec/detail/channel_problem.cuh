// linrec/detail/channel_problem.cuh — the arguments of the channel-tile kernel, and how its tiles
// cut a (batch, length, channels) problem.
#pragma once

#include <linrec/affine.cuh>
#include <linrec/tensor_layout.cuh>
#include <linrec/detail/tile_io.cuh>

#include <cstdint>

namespace linrec::detail {

template <typename T>
struct channel_problem {
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

template <typename T>
bool vectors_fit(const T* a, const T* b, const T* h, const tensor_layout& l) {
  constexpr std::int64_t width = vector16<T>::width;
  const auto fits = [&](const T* p, const tensor_strides& s) {
    // A stride along a dimension of one element never moves a pointer, so it need not divide.
    return aligned16(p) && (s.channel == 1 || l.channels == 1) && (l.batch == 1 || s.batch % width == 0) &&
           (l.length == 1 || s.time % width == 0);
  };
  return fits(a, l.a) && fits(b, l.b) && fits(h, l.h);
}

}  // namespace linrec::detail
