// Bad input with mixed and narrow storage types is refused on the host, naming the argument, before
// anything is launched: no pointer below is dereferenced.
#include <gtest/gtest.h>
#include <linrec/linear_recurrence.cuh>
#include <linrec/linear_recurrence_backward.cuh>

#include <cstdint>

namespace {

using linrec::error;
using linrec::row_layout;
using linrec::tensor_layout;
using bf16 = __nv_bfloat16;
using cfloat = cuda::std::complex<float>;
using cdouble = cuda::std::complex<double>;

template <typename T>
T* fake(std::uintptr_t address) {
  return reinterpret_cast<T*>(address);
}

void* const temp = fake<void>(0x40000000);
constexpr std::size_t temp_bytes = std::size_t(1) << 30;

template <typename A, typename B, typename H>
linrec::status run(const A* a, const B* b, H* h, row_layout layout) {
  std::size_t bytes = temp_bytes;
  return linrec::linear_recurrence<H>(temp, bytes, a, b, h, layout);
}

TEST(value_types_validation, pointers_must_be_aligned_to_their_own_element) {
  const auto layout = row_layout::contiguous(4, 1000);
  EXPECT_EQ(run(fake<bf16>(0x10000001), fake<float>(0x20000000), fake<bf16>(0x30000000), layout),
            error::misaligned_a);
  EXPECT_EQ(run(fake<float>(0x10000000), fake<float>(0x20000002), fake<bf16>(0x30000000), layout),
            error::misaligned_b);
  // complex<double> is 16-byte aligned: an 8-byte offset is misaligned.
  EXPECT_EQ(run(fake<double>(0x10000000), fake<cdouble>(0x20000000), fake<cdouble>(0x30000008), layout),
            error::misaligned_h);
}

TEST(value_types_validation, overlaps_count_bytes_of_each_type) {
  const auto layout = row_layout::contiguous(1, 1000);
  // h of 1000 bf16 spans 2000 bytes: b (float) starting 1998 bytes in overlaps it.
  EXPECT_EQ(run(fake<float>(0x10000000), fake<float>(0x30000000 + 1996), fake<bf16>(0x30000000), layout),
            error::h_overlaps_b);
  // Past it, validation passes (what follows is the launch, which fails here without a GPU).
  EXPECT_NE(run(fake<float>(0x10000000), fake<float>(0x30000000 + 2000), fake<bf16>(0x30000000), layout).code(),
            error::h_overlaps_b);
  // The same address with another element size is not in place: element i of one is not element i of the other.
  EXPECT_EQ(run(fake<float>(0x30000000), fake<bf16>(0x20000000), fake<bf16>(0x30000000), layout), error::h_overlaps_a);
  EXPECT_NE(run(fake<bf16>(0x30000000), fake<float>(0x20000000), fake<bf16>(0x30000000), layout).code(),
            error::h_overlaps_a);
  // A tensor layout's overlap is checked the same way.
  std::size_t bytes = temp_bytes;
  const auto btc = tensor_layout::batch_time_channels(2, 10, 64);
  EXPECT_EQ(linrec::linear_recurrence<bf16>(temp, bytes, fake<float>(0x30000000), fake<float>(0x20000000),
                                            fake<bf16>(0x30000000), btc),
            error::h_overlaps_a);
}

TEST(value_types_validation, sizes_are_checked_for_the_widest_operand) {
  // 2^59 elements fit in 64 bits as bf16 bytes but not as complex<double> (16 bytes each).
  const row_layout layout{std::int64_t(1) << 29, std::int64_t(1) << 30, std::int64_t(1) << 30};
  EXPECT_TRUE((linrec::detail::validate_layout<bf16>(layout)) == error::success);
  EXPECT_EQ(run(fake<bf16>(0x10000000), fake<cdouble>(0x20000000), fake<cdouble>(0x30000000), layout),
            error::size_overflow);
}

TEST(value_types_validation, the_backward_pass_checks_alignment_per_type) {
  std::size_t bytes = temp_bytes;
  EXPECT_EQ(linrec::linear_recurrence_backward<cfloat>(temp, bytes, fake<cfloat>(0x10000000), fake<cfloat>(0x20000000),
                                                       fake<cfloat>(0x30000004), fake<cfloat>(0x50000000),
                                                       fake<cfloat>(0x60000000), row_layout::contiguous(2, 100)),
            error::misaligned_g);
}

}  // namespace
