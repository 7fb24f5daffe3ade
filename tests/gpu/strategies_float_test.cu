// The entry point in float, each strategy forced in turn (and the staged look-back kernel at every
// size, as small problems never take it by default; the deferred look-back with tiles of 8192 at
// one block per SM; and block_per_row without programmatic launch).
#include "strategy_cases.cuh"

namespace linrec::testing {
using float_configs = ::testing::Types<config<float, strategy::tiled_lookback>,
                                       config<float, strategy::block_per_row>,
                                       config<float, strategy::warp_per_row>,
                                       staged_config<float, 3, 1>, staged_config<float, 6, 3>,
                                       other_reach_config<float>, striped_store_config<float>, large_tile_config<float>,
                                       plain_launch_config<float>>;
INSTANTIATE_TYPED_TEST_SUITE_P(float_, strategy_test, float_configs, config_name);
}  // namespace linrec::testing
