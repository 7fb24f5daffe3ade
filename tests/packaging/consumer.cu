// A consumer of linrec: one call of the public API, compiled by each packaging test.
#include <linrec/linrec.cuh>

#include <cstdio>

int main() {
  float* a = nullptr;
  float* b = nullptr;
  float* h = nullptr;
  std::size_t bytes = 0;
  const auto layout = linrec::row_layout::contiguous(1, 1 << 20);
  const linrec::status s = linrec::linear_recurrence<float>(nullptr, bytes, a, b, h, layout);
  std::printf("linrec consumer: %s, %zu bytes of temporary storage\n", s.message(), bytes);
  // Instantiates every strategy's kernel, as real use would.
  const linrec::status run = linrec::linear_recurrence<float>(a, b, h, layout);
  return s.ok() && run == linrec::error::null_a ? 0 : 1;
}
