// linrec/detail/tensor_plan.cuh — which path a tensor layout takes, and its temporary storage.
// Pure host arithmetic on the layout, like plan.cuh.
#pragma once

#include <linrec/detail/channel_problem.cuh>
#include <linrec/detail/channel_tile_status.cuh>
#include <linrec/detail/plan.cuh>
#include <linrec/detail/tile_io.cuh>
#include <linrec/policy.cuh>
#include <linrec/row_layout.cuh>
#include <linrec/tensor_layout.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace linrec::detail {

/// The row layout a tensor layout is, when it is one: time contiguous, all three operands with
/// the same strides, and sequence (b, c) at one row stride times b * channels + c, which is the
/// index h0 and h_final use too.
constexpr std::optional<row_layout> as_rows(const tensor_layout& l) noexcept {
  if (!(l.a == l.h) || !(l.b == l.h)) return std::nullopt;
  const tensor_strides& s = l.h;
  if (l.length > 1 && s.time != 1) return std::nullopt;
  std::int64_t row_stride = l.length;
  if (l.channels > 1) {
    if (l.batch > 1 && s.batch != l.channels * s.channel) return std::nullopt;
    row_stride = s.channel;
  } else if (l.batch > 1) {
    row_stride = s.batch;
  }
  if (row_stride < l.length) return std::nullopt;  // only when one sequence: any stride is fine
  return row_layout{l.batch * l.channels, l.length, row_stride, l.reverse};
}

/// The policy a tensor layout's rows run under: forcing channel_tiles means nothing to rows.
template <typename Policy>
struct row_policy : Policy {
  static constexpr strategy forced =
      Policy::forced == strategy::channel_tiles || Policy::forced == strategy::channel_walk ? strategy::automatic
                                                                                              : Policy::forced;
};

struct tensor_plan {
  strategy chosen;
  row_layout rows;        // the row strategies
  plan row_plan;          // the row strategies
  int lanes;              // the channel strategies: lanes across channels
  bool narrow_walk;       // channel_walk: over narrow groups (channel_narrow_walk_*)
  channel_tiling tiling;  // channel_tiles
  int shared_chunks;      // channel_tiles: runs a thread holds in shared memory (channel_shared_chunks)
  std::size_t temp_bytes;
};

/// Lanes across channels: the fewest of 8, 16 or 32 that cover the channels at `Width` a lane,
/// so few channels do not leave most lanes idle, and at most MaxLanes.
template <int Width, int MaxLanes = 32>
constexpr int channel_lanes(std::int64_t channels) noexcept {
  constexpr std::int64_t width = Width;
  return std::min(MaxLanes, channels <= 8 * width ? 8 : channels <= 16 * width ? 16 : 32);
}

// Acc: the accumulator (it sizes the tile status); Width: channels a thread owns.
template <typename Acc, int Width, typename Policy>
constexpr tensor_plan make_tensor_plan(const tensor_layout& l) noexcept {
  tensor_plan p{};
  const std::optional<row_layout> rows = as_rows(l);
  constexpr bool channels_forced = Policy::forced == strategy::channel_tiles || Policy::forced == strategy::channel_walk;
  if (rows && !channels_forced) {
    p.rows = *rows;
    p.row_plan = make_plan<Acc, row_policy<Policy>>(*rows);
    p.chosen = p.row_plan.chosen;
    p.temp_bytes = p.row_plan.temp_bytes;
    return p;
  }
  // Many groups of the walk's channels: one block walks each. Else, for short sequences whose
  // narrow groups are about one per SM or more, one block walks each of those. Else tiles
  // across blocks.
  constexpr std::int64_t width = Width;
  const auto groups_of = [&](std::int64_t lanes) {
    const std::int64_t group = lanes * width;
    return l.batch * ((l.channels + group - 1) / group);
  };
  const bool walk = Policy::forced == strategy::channel_walk ||
                    (Policy::forced != strategy::channel_tiles &&
                     groups_of(Policy::channel_walk_lanes) >= Policy::channel_walk_min_groups);
  p.narrow_walk = !walk && Policy::forced == strategy::automatic && Policy::channel_narrow_walk_min_groups > 0 &&
                  l.length <= Policy::channel_narrow_walk_max_length &&
                  groups_of(Policy::channel_narrow_walk_lanes) >= Policy::channel_narrow_walk_min_groups;
  p.chosen = walk || p.narrow_walk ? strategy::channel_walk : strategy::channel_tiles;
  p.lanes = p.narrow_walk ? Policy::channel_narrow_walk_lanes
            : walk        ? Policy::channel_walk_lanes
                          : channel_lanes<Width, Policy::channel_max_lanes>(l.channels);
  const int threads = p.narrow_walk ? Policy::channel_narrow_walk_threads
                      : walk        ? Policy::channel_walk_threads
                                    : Policy::channel_threads;
  const std::int64_t group = std::int64_t(p.lanes) * width;
  p.tiling.group = group;
  p.tiling.groups_per_batch = (l.channels + group - 1) / group;
  p.tiling.groups = l.batch * p.tiling.groups_per_batch;
  p.shared_chunks = 0;
  if (p.chosen == strategy::channel_tiles) {
    const bool few = Policy::channel_few_groups > 0 && p.tiling.groups <= Policy::channel_few_groups;
    p.shared_chunks = few ? Policy::channel_few_groups_shared_chunks : Policy::channel_shared_chunks;
  }
  const std::int64_t steps = std::int64_t(threads / p.lanes) *
                             (p.chosen == strategy::channel_walk ? Policy::channel_walk_steps
                                                                 : Policy::channel_steps * (1 + p.shared_chunks));
  p.tiling.steps = steps;
  p.tiling.chunks = (l.length + steps - 1) / steps;
  p.temp_bytes = temp_alignment;  // the walk carries on chip: no tile status
  if (p.chosen == strategy::channel_tiles && l.elements() > 0) p.temp_bytes += channel_tile_status<Acc>::bytes(p.tiling.tiles(), group);
  return p;
}

/// The forward pass's plan for h stored as H, a as A and b as B under Policy (auto_policy:
/// default_policy<H, A, B>), as linear_recurrence and chosen_strategy make it.
template <typename H, typename Policy, typename A = H, typename B = H>
constexpr tensor_plan forward_tensor_plan(const tensor_layout& l) noexcept {
  using P = resolved_policy<Policy, H, A, B>;
  return make_tensor_plan<typename P::accumulator_type, operands_width<A, B, H>, P>(l);
}

}  // namespace linrec::detail
