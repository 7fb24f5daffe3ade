// linrec/linrec.cuh — everything public in linrec, in one include.
#pragma once

#include <linrec/affine.cuh>
#include <linrec/block_scan.cuh>
#include <linrec/linear_recurrence.cuh>
#include <linrec/linear_recurrence_backward.cuh>
#include <linrec/policy.cuh>
#include <linrec/row_layout.cuh>
#include <linrec/status.cuh>
#include <linrec/tensor_layout.cuh>
#include <linrec/tile_lookback.cuh>
#include <linrec/tile_status.cuh>
#include <linrec/value_types.cuh>
#include <linrec/warp_scan.cuh>
