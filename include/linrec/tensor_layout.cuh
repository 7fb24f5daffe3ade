// linrec/tensor_layout.cuh — the shape of 3-D operands: (batch, length, channels) with any strides.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace linrec {

/// Element strides of one operand along each of its three dimensions. Strides are in elements,
/// not bytes, and must not be negative; 0 broadcasts an input along that dimension.
struct tensor_strides {
  std::int64_t batch = 0;
  std::int64_t time = 0;
  std::int64_t channel = 0;

  __host__ __device__ constexpr std::int64_t offset(std::int64_t b, std::int64_t t, std::int64_t c) const noexcept {
    return b * batch + t * time + c * channel;
  }
  friend constexpr bool operator==(const tensor_strides& x, const tensor_strides& y) noexcept {
    return x.batch == y.batch && x.time == y.time && x.channel == y.channel;
  }
};

/// `batch × channels` independent recurrences of `length` steps each, run along the time
/// dimension: element (b, t, c) of a is at a[a_strides.offset(b, t, c)], and likewise for b and h,
/// each with its own strides. So `a` may be broadcast over batch (stride 0), `a` and `b` may be two
/// views into one gate tensor, and h may have its own layout. h's strides must give every element
/// its own place. h0 and h_final, where given, hold one value per (b, c) at b * channels + c.
///
/// `reverse` runs time backwards, from step length-1 to step 0: h[b, t, c] = a[b, t, c] *
/// h[b, t+1, c] + b[b, t, c], with h0 the state after the last step and h_final the state at step 0.
///
/// The named constructors cover the common layouts with all three operands alike:
/// `batch_time_channels` is PyTorch's batch_first `x[b][t][c]`, `time_batch_channels` is
/// cuDNN's time-major `x[t][b][c]`, `batch_channels_time` is time-contiguous `x[b][c][t]`.
struct tensor_layout {
  std::int64_t batch = 1;
  std::int64_t length = 0;
  std::int64_t channels = 1;
  tensor_strides a{}, b{}, h{};
  bool reverse = false;

  constexpr tensor_layout() noexcept = default;
  /// All six members: with no shorter form, a braced `{rows, length, row_stride}` argument still
  /// means a row_layout to linear_recurrence.
  constexpr tensor_layout(std::int64_t batch_, std::int64_t length_, std::int64_t channels_, tensor_strides a_,
                          tensor_strides b_, tensor_strides h_) noexcept
      : batch(batch_), length(length_), channels(channels_), a(a_), b(b_), h(h_) {}

  /// All three operands with the same strides.
  static constexpr tensor_layout uniform(std::int64_t batch, std::int64_t length,
                                         std::int64_t channels, tensor_strides s) noexcept {
    return {batch, length, channels, s, s, s};
  }
  /// [batch, time, channels], channels contiguous.
  static constexpr tensor_layout batch_time_channels(std::int64_t batch, std::int64_t length,
                                                     std::int64_t channels) noexcept {
    return uniform(batch, length, channels, {length * channels, channels, 1});
  }
  /// [time, batch, channels], channels contiguous.
  static constexpr tensor_layout time_batch_channels(std::int64_t batch, std::int64_t length,
                                                     std::int64_t channels) noexcept {
    return uniform(batch, length, channels, {channels, batch * channels, 1});
  }
  /// [batch, channels, time], time contiguous.
  static constexpr tensor_layout batch_channels_time(std::int64_t batch, std::int64_t length,
                                                     std::int64_t channels) noexcept {
    return uniform(batch, length, channels, {channels * length, 1, length});
  }

  /// The same layout, scanned backwards in time.
  constexpr tensor_layout reversed() const noexcept {
    tensor_layout l = *this;
    l.reverse = true;
    return l;
  }

  /// Recurrences (batch × channels).
  constexpr std::int64_t sequences() const noexcept { return batch * channels; }
  constexpr std::int64_t elements() const noexcept { return batch * length * channels; }
};

}  // namespace linrec
