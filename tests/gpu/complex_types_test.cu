// Complex recurrences (LRU/S5-style diagonal state): |a| < 1 with random phases, complex64 and
// complex128, and a real decay driving a complex input, on every strategy.
#include "typed_cases.cuh"

namespace linrec::testing {
namespace {

class complex_types_test : public gpu_test {};

TEST_F(complex_types_test, complex64) { check_every_strategy<cfloat, cfloat, cfloat>(); }
TEST_F(complex_types_test, complex64_tiles_taller_than_a_warp) { check_tiles_taller_than_a_warp<cfloat, cfloat, cfloat, 2>(); }
// complex64's default tiles hold three runs in shared memory beyond their registers' (since
// session 50; one in session 49); the cases check_every_strategy leaves out: chunk edges of the
// taller tile, reverse, time-major.
TEST_F(complex_types_test, complex64_tiles_with_shared_runs) { check_tiles_with_shared_runs<cfloat, cfloat, cfloat, 3>(); }
TEST_F(complex_types_test, complex128) { check_every_strategy<cdouble, cdouble, cdouble>(); }
TEST_F(complex_types_test, real_decay_complex_input) { check_every_strategy<float, cfloat, cfloat>(); }

}  // namespace
}  // namespace linrec::testing
