// The entry point in float, each strategy forced in turn.
#include "strategy_cases.cuh"

namespace linrec::testing {
using float_configs = ::testing::Types<config<float, strategy::tiled_lookback>,
                                       config<float, strategy::block_per_row>,
                                       config<float, strategy::warp_per_row>>;
INSTANTIATE_TYPED_TEST_SUITE_P(float_, strategy_test, float_configs, config_name);
}  // namespace linrec::testing
