// linrec/detail/adjoint_problem.cuh — the backward pass of a row problem, as a problem the row
// kernels scan (see problem.cuh for the interface).
//
// For h[t] = a[t] h[t-1] + b[t] with upstream gradient g[t] = dL/dh[t] and g_final on the final
// state, the adjoint δ[t] = dL/dh[t] (total) runs the other way in time:
//
//     δ[t] = g[t] + a[t+1] δ[t+1],   δ[length-1] = g[length-1] + g_final,
//     db[t] = δ[t],   da[t] = δ[t] h[t-1] (h[-1] = h0),   dh0 = a[0] δ[0].
//
// In the adjoint's own scan order s (s = 0 at the forward's last step), that is a linear
// recurrence seeded with g_final whose step s has coefficient a at step s-1 (1 at s = 0) and input
// g at step s; its output at step s pairs δ with h at step s+1 (h0 past the end). Both shifted
// operands are read as the thread's own aligned vectors plus one neighbouring element, so the
// kernels keep their vector paths, and everything happens in one pass: a, h and g read once, da
// and db written once. For complex values a and h enter conjugated (PyTorch's convention, see
// linear_recurrence_backward.cuh).
#pragma once

#include <linrec/affine.cuh>
#include <linrec/detail/channel_problem.cuh>
#include <linrec/detail/tile_io.cuh>

#include <cstdint>

namespace linrec::detail {

template <typename T, typename Acc, bool Reverse, vector_store Store = vector_store::plain>
struct rows_adjoint_problem {
  using value_type = Acc;
  static constexpr int width = vector_width<T>;
  static constexpr bool bulk_loadable = false;
  /// Not worth asking L2 for tiles ahead (see problem.cuh): a, g and h are three reads, and h is
  /// read a round after a, g when the look-back is deferred. On the H200 at 2^28 fp32 the backward
  /// pass measured 0.73 of copy with that prefetch against 0.77 without.
  static constexpr bool prefetch_ahead = false;
  static constexpr bool prefetch_in_bulk = false;
  // The unchecked path spilled 32 bytes here and slowed the backward pass (0.74 of copy against
  // 0.78 at 2^28).
  static constexpr bool unchecked_whole_tiles = false;
  static constexpr bool striped_stores = false;

  const T* a;
  const T* h;        // the forward output
  const T* g;        // dL/dh
  T* da;
  T* db;             // may be g itself
  const T* h0;       // the forward's h0; may be null (0)
  const T* g_final;  // dL/dh_final; may be null (0)
  T* dh0;            // may be null
  std::int64_t rows;
  std::int64_t length;
  std::int64_t row_stride;
  static constexpr bool reverse = Reverse;  // the adjoint's scan direction: the forward's, reversed

  /// As rows_problem's: going forward in time, da and db stored through inline PTX.
  using lookback_type = rows_adjoint_problem<T, Acc, Reverse, Reverse ? Store : vector_store::ptx>;
  __host__ __device__ lookback_type for_lookback() const {
    return {a, h, g, da, db, h0, g_final, dh0, rows, length, row_stride};
  }

  __device__ __forceinline__ time_direction direction() const { return {reverse}; }
  __device__ __forceinline__ std::int64_t offset(std::int64_t row, std::int64_t step) const {
    return row * row_stride + (reverse ? length - 1 - step : step);
  }
  __device__ __forceinline__ affine<Acc> seed(std::int64_t row) const {
    return {Acc(0), g_final != nullptr ? convert<Acc>(g_final[row]) : Acc(0)};
  }
  __device__ __forceinline__ bool vector_ok(std::int64_t offset) const {
    const std::int64_t start = reverse ? offset + 1 : offset;
    return aligned16(a + start) && aligned16(h + start) && aligned16(g + start) && aligned16(da + start) &&
           aligned16(db + start);
  }

  // Step s: (conj(a) at step s-1, or 1 at the row's first step; g at s).
  template <int Items>
  __device__ __forceinline__ void load(std::int64_t row, std::int64_t start, std::int64_t first,
                                       std::int64_t valid, bool vector_ok, affine<Acc> (&items)[Items]) const {
    const std::int64_t at = offset(row, start);
    const time_direction dir = direction();
    load_items(a + at, g + at, first, valid, vector_ok, items, dir);  // (a, g) at each step
    Acc earlier = Acc(1);
    if (start + first > 0 && first < valid) earlier = conjugate(convert<Acc>(a[at + dir.at(first - 1)]));
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      const Acc own = conjugate(items[k].a);
      items[k].a = earlier;
      earlier = own;
      if (first + k >= valid) items[k] = affine<Acc>::identity();
    }
  }

  // db = δ; da = δ times conj(h) at step s+1 (the forward state before step s), h0 (or 0) past
  // the end.
  template <int Items>
  __device__ __forceinline__ void store(std::int64_t row, std::int64_t start, std::int64_t first,
                                        std::int64_t valid, bool vector_ok, const affine<Acc> (&items)[Items]) const {
    const std::int64_t at = offset(row, start);
    const time_direction dir = direction();
    Acc delta[Items], state[Items];
#pragma unroll
    for (int k = 0; k < Items; ++k) delta[k] = items[k].b;
    load_values(h + at, first, valid, vector_ok, state, dir);
    const Acc before_row = h0 != nullptr ? convert<Acc>(h0[row]) : Acc(0);
    Acc after = before_row;
    if (first < valid && start + first + Items < length) after = convert<Acc>(h[at + dir.at(first + Items)]);
    Acc grad[Items];
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      const Acc before = start + first + k + 1 >= length ? before_row : k + 1 < Items ? state[k + 1] : after;
      grad[k] = multiply(delta[k], conjugate(before));
    }
    store_values<Items, T, Acc, Store>(db + at, first, valid, vector_ok, delta, dir);
    store_values<Items, T, Acc, Store>(da + at, first, valid, vector_ok, grad, dir);
  }

  __host__ __device__ __forceinline__ bool has_final() const { return dh0 != nullptr; }
  // dh0 = conj(a[0]) δ[0]: the forward's first step is the adjoint's last.
  __device__ __forceinline__ void write_final(std::int64_t row, Acc delta) const {
    dh0[row] = convert<T>(multiply(conjugate(convert<Acc>(a[offset(row, length - 1)])), delta));
  }
};

/// The same adjoint for the channel kernels (interface in channel_problem.cuh): pointers at the
/// adjoint's first scan step and time strides in its direction. da has a's strides, db has b's,
/// and g has h's.
template <typename T, typename Acc>
struct channel_adjoint_problem {
  using value_type = Acc;
  static constexpr int width = vector_width<T>;
  const T* a;
  const T* h;
  const T* g;
  T* da;
  T* db;
  const T* h0;
  const T* g_final;
  T* dh0;
  std::int64_t batch, length, channels;
  tensor_strides sa, sb, sh;
  bool vectors;  // 16-byte vectors fit all five operands

  __device__ __forceinline__ affine<Acc> seed(std::int64_t batch_index, std::int64_t channel) const {
    return {Acc(0), g_final != nullptr ? convert<Acc>(g_final[batch_index * channels + channel]) : Acc(0)};
  }

  // The straight path (as channel_problem's): a at steps t0-1 … and g at t0 …, past the first.
  // Its first run is held as scanned items (channel_problem::hold_raw_run): its store loads a run
  // of h as well, and with the run raw, ptxas spilled 512 bytes (against 136) in the bf16 tile,
  // which measured 0.78 / 0.77 of copy against 0.785 / 0.784 at [1, 2^21, 128] (H100, session 45).
  static constexpr bool hold_raw_run = false;
  using first_type = T;
  using second_type = T;
  template <int Steps>
  __device__ __forceinline__ bool straight(std::int64_t t0, bool vector) const {
    return vector && t0 > 0 && t0 + Steps <= length;
  }
  template <int Steps, typename Visit>
  __device__ __forceinline__ void visit_straight(std::int64_t batch_index, std::int64_t t0, std::int64_t channel0,
                                                 Visit&& visit) const {
#pragma unroll
    for (int s = 0; s < Steps; ++s) visit(first_operand{}, s, a + sa.offset(batch_index, t0 + s - 1, channel0));
#pragma unroll
    for (int s = 0; s < Steps; ++s) visit(second_operand{}, s, g + sh.offset(batch_index, t0 + s, channel0));
  }
  template <int Steps>
  __device__ __forceinline__ void assemble(const Acc (&first)[Steps][width], const Acc (&second)[Steps][width],
                                           affine<Acc> (&items)[Steps][width]) const {
#pragma unroll
    for (int s = 0; s < Steps; ++s) {
#pragma unroll
      for (int v = 0; v < width; ++v) items[s][v] = {conjugate(first[s][v]), second[s][v]};
    }
  }

  // Step t: (conj(a) at step t-1, or 1 at t = 0; g at t).
  template <int Steps>
  __device__ __forceinline__ void load(std::int64_t batch_index, std::int64_t t0, std::int64_t channel0, bool vector,
                                       affine<Acc> (&items)[Steps][width]) const {
    if (straight<Steps>(t0, vector)) {
      load_straight(*this, batch_index, t0, channel0, items);
      return;
    }
    Acc va[width], vg[width];
#pragma unroll
    for (int s = 0; s < Steps; ++s) {
      const std::int64_t t = t0 + s;
      const bool in_time = t < length;
      load_channel_run(a, sa, batch_index, t - 1, channel0, vector, in_time && t > 0, channels, va);
      load_channel_run(g, sh, batch_index, t, channel0, vector, in_time, channels, vg);
#pragma unroll
      for (int v = 0; v < width; ++v) {
        items[s][v] = in_time && channel0 + v < channels ? affine<Acc>{t > 0 ? conjugate(va[v]) : Acc(1), vg[v]}
                                                         : affine<Acc>::identity();
      }
    }
  }

  // Tiles ahead are not asked into L2 (see channel_problem): on the H200 at [1, 65536, 1024]
  // fp32 the backward pass measured 0.62 of copy with a round of them (a, g and h) against 0.83.
  static constexpr bool prefetch_ahead = false;
  static constexpr bool prefetch_in_bulk = false;
  // store() reads h at steps t0+1 … t0+Steps: asked into L2 when the tile is loaded, so the
  // store does not wait on DRAM a second time after the look-back (H200, [1, 65536, 1024] fp32
  // channel tiles: 0.84 of copy against 0.80).
  template <int Steps>
  __device__ __forceinline__ void prefetch_store_inputs(std::int64_t batch_index, std::int64_t t0,
                                                        std::int64_t channel0, bool vector) const {
    if (!store_straight<Steps>(t0, vector)) return;
#pragma unroll
    for (int s = 0; s < Steps; ++s) prefetch_l2(h + sh.offset(batch_index, t0 + s + 1, channel0));
  }
  // Whether store() takes its vector path: every step and its successor in time (the h it reads).
  template <int Steps>
  __device__ __forceinline__ bool store_straight(std::int64_t t0, bool vector) const {
    return vector && t0 + Steps < length;
  }

  // db = δ; da = δ times conj(h) at step t+1 (h0, or 0, past the end).
  template <int Steps>
  __device__ __forceinline__ void store(std::int64_t batch_index, std::int64_t t0, std::int64_t channel0, bool vector,
                                        const affine<Acc> (&items)[Steps][width]) const {
    if (store_straight<Steps>(t0, vector)) {
      // Every step and its successor in time, vectors throughout: the h loads first, together.
      Acc before[Steps][width];
#pragma unroll
      for (int s = 0; s < Steps; ++s) load_run(h + sh.offset(batch_index, t0 + s + 1, channel0), before[s]);
#pragma unroll
      for (int s = 0; s < Steps; ++s) {
        Acc delta[width], grad[width];
#pragma unroll
        for (int v = 0; v < width; ++v) {
          delta[v] = items[s][v].b;
          grad[v] = multiply(delta[v], conjugate(before[s][v]));
        }
        store_run(db + sb.offset(batch_index, t0 + s, channel0), delta);
        store_run(da + sa.offset(batch_index, t0 + s, channel0), grad);
      }
      return;
    }
#pragma unroll
    for (int s = 0; s < Steps; ++s) {
      const std::int64_t t = t0 + s;
      if (t >= length) break;
      Acc delta[width], before[width], grad[width];
      load_channel_run(h, sh, batch_index, t + 1, channel0, vector, t + 1 < length, channels, before);
#pragma unroll
      for (int v = 0; v < width; ++v) {
        delta[v] = items[s][v].b;
        if (t + 1 >= length) {
          before[v] = h0 != nullptr && channel0 + v < channels ? convert<Acc>(h0[batch_index * channels + channel0 + v])
                                                               : Acc(0);
        }
        grad[v] = multiply(delta[v], conjugate(before[v]));
      }
      store_channel_run(db, sb, batch_index, t, channel0, vector, channels, delta);
      store_channel_run(da, sa, batch_index, t, channel0, vector, channels, grad);
    }
  }

  __host__ __device__ __forceinline__ bool has_final() const { return dh0 != nullptr; }
  __device__ __forceinline__ void write_final(std::int64_t batch_index, std::int64_t channel, Acc delta) const {
    dh0[batch_index * channels + channel] =
        convert<T>(multiply(conjugate(convert<Acc>(a[sa.offset(batch_index, length - 1, channel)])), delta));
  }
};

}  // namespace linrec::detail
