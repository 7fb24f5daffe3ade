// The entry point in double, each strategy forced in turn (and
// the staged look-back kernel at every size, as small problems never take it by default).
#include "strategy_cases.cuh"

namespace linrec::testing {
using double_configs = ::testing::Types<config<double, strategy::tiled_lookback>,
                                        config<double, strategy::block_per_row>,
                                        config<double, strategy::warp_per_row>,
                                        staged_config<double, 3, 1>, staged_config<double, 6, 3>,
                                        other_reach_config<double>, striped_store_config<double>>;
INSTANTIATE_TYPED_TEST_SUITE_P(double_, strategy_test, double_configs, config_name);
}  // namespace linrec::testing
