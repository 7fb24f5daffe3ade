// linrec/detail/plan.cuh — which strategy a shape gets and how much temporary storage it needs.
// Pure host arithmetic: no device query, so sizes and choices are the same on every call.
#pragma once

#include <linrec/affine.cuh>
#include <linrec/policy.cuh>
#include <linrec/row_layout.cuh>
#include <linrec/tile_status.cuh>

#include <cstddef>
#include <cstdint>

namespace linrec::detail {

// Storage handed in by the caller may start anywhere; this much slack lets us align it to 16.
inline constexpr std::size_t temp_alignment = 16;

struct plan {
  strategy chosen;
  std::int64_t tiles_per_row;  // tiled_lookback only
  std::size_t temp_bytes;      // never zero: a null temp pointer is the size query
};

// Acc: the accumulator, which sizes the tile status.
template <typename Acc, typename Policy>
constexpr strategy choose_strategy(const row_layout& layout) noexcept {
  static_assert(Policy::forced != strategy::channel_tiles && Policy::forced != strategy::channel_walk,
                "the channel strategies are for tensor_layout operands, not row_layout");
  if constexpr (Policy::forced != strategy::automatic) {
    return Policy::forced;
  } else {
    if (layout.length <= Policy::warp_per_row_max_length) return strategy::warp_per_row;
    if (layout.rows >= Policy::block_per_row_min_rows) return strategy::block_per_row;
    return strategy::tiled_lookback;
  }
}

template <typename Acc, typename Policy>
constexpr plan make_plan(const row_layout& layout) noexcept {
  const strategy chosen = choose_strategy<Acc, Policy>(layout);
  plan p{chosen, 0, temp_alignment};
  if (chosen == strategy::tiled_lookback && layout.rows > 0 && layout.length > 0) {
    constexpr std::int64_t tile_items = std::int64_t(Policy::lookback_threads) * Policy::lookback_items;
    p.tiles_per_row = (layout.length + tile_items - 1) / tile_items;
    p.temp_bytes += tile_status<affine<Acc>>::bytes(layout.rows * p.tiles_per_row);
  }
  return p;
}

}  // namespace linrec::detail
