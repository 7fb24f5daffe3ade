// linrec/status.cuh — what a linrec host call returns: success, a named bad argument, or a CUDA error.
#pragma once

#include <cuda_runtime.h>

namespace linrec {

/// Why a call did nothing. Every value but `success` and `cuda_error` names the argument at fault;
/// such errors are found before anything is launched, and no output is touched.
enum class error : int {
  success = 0,
  negative_rows,                ///< layout.rows < 0
  negative_length,              ///< layout.length < 0
  row_stride_less_than_length,  ///< layout.row_stride < layout.length
  size_overflow,                ///< an operand's extent (in bytes) does not fit in 64 bits
  null_a,                       ///< a == nullptr while rows * length > 0
  null_b,                       ///< b == nullptr while rows * length > 0
  null_h,                       ///< h == nullptr while rows * length > 0
  misaligned_a,                 ///< a is not aligned to alignof(T)
  misaligned_b,                 ///< b is not aligned to alignof(T)
  misaligned_h,                 ///< h is not aligned to alignof(T)
  misaligned_h0,                ///< h0 is not aligned to alignof(T)
  misaligned_h_final,           ///< h_final is not aligned to alignof(T)
  h_overlaps_a,                 ///< h and a overlap without being the same array (h == a is fine)
  h_overlaps_b,                 ///< h and b overlap without being the same array (h == b is fine)
  temp_storage_too_small,       ///< temp_storage_bytes is less than the size query returned
  negative_batch,               ///< tensor_layout.batch < 0
  negative_channels,            ///< tensor_layout.channels < 0
  negative_stride_a,            ///< a stride of tensor_layout.a is negative
  negative_stride_b,            ///< a stride of tensor_layout.b is negative
  negative_stride_h,            ///< a stride of tensor_layout.h is negative
  h_overlaps_itself,            ///< tensor_layout.h's strides send two elements to one place
  null_g,                       ///< backward: g == nullptr while the problem is not empty
  null_da,                      ///< backward: da == nullptr while the problem is not empty
  null_db,                      ///< backward: db == nullptr while the problem is not empty
  misaligned_g,                 ///< backward: g is not aligned to alignof(T)
  misaligned_da,                ///< backward: da is not aligned to alignof(T)
  misaligned_db,                ///< backward: db is not aligned to alignof(T)
  misaligned_g_final,           ///< backward: g_final is not aligned to alignof(T)
  misaligned_dh0,               ///< backward: dh0 is not aligned to alignof(T)
  da_overlaps,                  ///< backward: da overlaps a, h, g or db
  db_overlaps,                  ///< backward: db overlaps a, h or da, or g without being g exactly
  da_overlaps_itself,           ///< backward: tensor_layout.a's strides send two elements of da to one place
  db_overlaps_itself,           ///< backward: tensor_layout.b's strides send two elements of db to one place
  cuda_error,                   ///< a CUDA runtime call failed; status::cuda() says which error
};

/// A short English description of `e`, naming the argument where there is one.
inline const char* error_string(error e) noexcept {
  switch (e) {
    case error::success: return "success";
    case error::negative_rows: return "layout.rows is negative";
    case error::negative_length: return "layout.length is negative";
    case error::row_stride_less_than_length: return "layout.row_stride is less than layout.length";
    case error::size_overflow: return "layout: an operand's extent overflows a 64-bit byte count";
    case error::null_a: return "a is null but the problem is not empty";
    case error::null_b: return "b is null but the problem is not empty";
    case error::null_h: return "h is null but the problem is not empty";
    case error::misaligned_a: return "a is not aligned to alignof(T)";
    case error::misaligned_b: return "b is not aligned to alignof(T)";
    case error::misaligned_h: return "h is not aligned to alignof(T)";
    case error::misaligned_h0: return "h0 is not aligned to alignof(T)";
    case error::misaligned_h_final: return "h_final is not aligned to alignof(T)";
    case error::h_overlaps_a: return "h partially overlaps a (in-place use needs h == a exactly)";
    case error::h_overlaps_b: return "h partially overlaps b (in-place use needs h == b exactly)";
    case error::temp_storage_too_small:
      return "temp_storage_bytes is smaller than the size query returned";
    case error::negative_batch: return "layout.batch is negative";
    case error::negative_channels: return "layout.channels is negative";
    case error::negative_stride_a: return "layout.a has a negative stride";
    case error::negative_stride_b: return "layout.b has a negative stride";
    case error::negative_stride_h: return "layout.h has a negative stride";
    case error::h_overlaps_itself:
      return "layout.h's strides map two elements to one place (zero or interleaved strides)";
    case error::null_g: return "g is null but the problem is not empty";
    case error::null_da: return "da is null but the problem is not empty";
    case error::null_db: return "db is null but the problem is not empty";
    case error::misaligned_g: return "g is not aligned to alignof(T)";
    case error::misaligned_da: return "da is not aligned to alignof(T)";
    case error::misaligned_db: return "db is not aligned to alignof(T)";
    case error::misaligned_g_final: return "g_final is not aligned to alignof(T)";
    case error::misaligned_dh0: return "dh0 is not aligned to alignof(T)";
    case error::da_overlaps: return "da overlaps a, h, g or db";
    case error::db_overlaps:
      return "db overlaps a, h or da, or partially overlaps g (in-place use needs db == g exactly)";
    case error::da_overlaps_itself:
      return "layout.a's strides map two elements of da to one place (a broadcast a needs its gradient summed)";
    case error::db_overlaps_itself:
      return "layout.b's strides map two elements of db to one place (a broadcast b needs its gradient summed)";
    case error::cuda_error: return "a CUDA runtime call failed";
  }
  return "unknown linrec::error";
}

/// The result of a linrec host call: an `error` and, for `error::cuda_error`, the CUDA error code.
/// Converts to true on success. Mark of a failed call: nothing was launched, or (cuda_error only)
/// the CUDA runtime refused the launch or an allocation.
class [[nodiscard]] status {
 public:
  constexpr status() noexcept = default;
  constexpr status(error e) noexcept : error_(e) {}  // NOLINT: implicit by design
  constexpr explicit status(cudaError_t e) noexcept
      : error_(e == cudaSuccess ? error::success : error::cuda_error), cuda_(e) {}

  constexpr bool ok() const noexcept { return error_ == error::success; }
  constexpr explicit operator bool() const noexcept { return ok(); }
  constexpr error code() const noexcept { return error_; }
  /// The CUDA error behind `error::cuda_error`; cudaSuccess otherwise.
  constexpr cudaError_t cuda() const noexcept { return cuda_; }
  /// error_string(code()), or the CUDA runtime's message for a CUDA error.
  const char* message() const noexcept {
    return error_ == error::cuda_error ? cudaGetErrorString(cuda_) : error_string(error_);
  }

  friend constexpr bool operator==(status s, error e) noexcept { return s.error_ == e; }
  friend constexpr bool operator!=(status s, error e) noexcept { return s.error_ != e; }

 private:
  error error_ = error::success;
  cudaError_t cuda_ = cudaSuccess;
};

}  // namespace linrec
