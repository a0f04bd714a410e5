#include <tessera/kernel_generator/reduction_plan.hpp>

#include <algorithm>
#include <bit>

namespace tessera::kernel_generator {

namespace {

std::size_t ceil_div(std::size_t a, std::size_t b) { return a / b + (a % b != 0); }
std::size_t pow2_at_least(std::size_t n) { return std::bit_ceil(std::max<std::size_t>(n, 1)); }

// Work-groups that keep every compute unit busy: a GPU hides memory latency with many resident
// work-items (2048 fill an H100/H200 multiprocessor: 8 groups of 256, 2 of 1024); a CPU device
// runs one group per core at a time, a few per core even out the cores.
std::size_t target_groups(const runtime::device_info& device, bool gpu, std::size_t work_group) {
  const std::size_t units = std::max<std::size_t>(device.compute_units, 1);
  return gpu ? units * (2048 / std::clamp<std::size_t>(work_group, 256, 2048)) : 4 * units;
}

// At most this many work-groups in the second and third launch dimensions (NVIDIA's limit).
constexpr std::size_t max_groups = 65535;

const runtime::device_info* planned_as = nullptr;

// The most elements of its row (of its column) a fused-levels work-item holds.
constexpr std::size_t max_held_row_items = 32;
constexpr std::size_t max_held_column_items = 16;

}  // namespace

const runtime::device_info& planning_device(const runtime::device_info& device) {
  return planned_as != nullptr ? *planned_as : device;
}
void plan_launches_as(const runtime::device_info* device) { planned_as = device; }

// The smallest and largest block of rows of a CPU's work-item (blocked_rows_per_item).
constexpr std::size_t least_blocked_rows = 16;
constexpr std::size_t most_blocked_rows = 4096;

std::size_t blocked_rows_per_item(index_t outputs) {
  return std::clamp<std::size_t>(std::bit_floor(static_cast<std::size_t>(std::max<index_t>(outputs, 1))),
                                 least_blocked_rows, most_blocked_rows);
}

int blocked_columns_per_step(std::size_t block) { return block >= most_blocked_rows ? 4 : 1; }

reduction_walk pass_walk(const runtime::device_info& device, bool whole_steps) {
  if (device.type == runtime::device_type::cpu) return {32, true};
  return {whole_steps ? 8 : 4, false};
}

bool reduction_rows_blocked(const runtime::device_info& device, bool rowwise, index_t outputs) {
  // Fewer rows than a few of the smallest blocks: one work-item per row.
  return device.type == runtime::device_type::cpu && rowwise &&
         outputs >= static_cast<index_t>(4 * least_blocked_rows);
}

namespace {

reduction_plan plan_in_groups(const runtime::device_info& device, bool rowwise, index_t outputs, index_t length,
                              std::size_t work_group) {
  const bool gpu = device.type != runtime::device_type::cpu;
  const auto n_out = static_cast<std::size_t>(std::max<index_t>(outputs, 0));
  const auto n_terms = static_cast<std::size_t>(std::max<index_t>(length, 0));
  work_group = std::max<std::size_t>(std::bit_floor(std::max<std::size_t>(work_group, 1)), 1);

  // Rows per work-item: a CPU's block of rows (reduction_rows_blocked), else 1.
  const std::size_t block = reduction_rows_blocked(device, rowwise, outputs) ? blocked_rows_per_item(outputs) : 1;
  // lanes: work-items sharing one result; per_group: results per work-group.
  std::size_t lanes = 1, per_group = 1;
  if (gpu && rowwise) {
    // The results run along the contiguous rows: 32 of them make a 128-byte read per column;
    // the rest of the group shares their terms. Few terms leave room for more results.
    per_group = std::min({work_group, pow2_at_least(n_out), std::size_t{32}});
    lanes = std::min(work_group / per_group, pow2_at_least(n_terms));
    per_group = std::min(work_group / lanes, pow2_at_least(n_out));
  } else if (gpu) {
    // The terms run along the contiguous column: lanes read it coalesced, about 16 terms each
    // (at least a warp's 32 lanes when the column is that long).
    lanes = std::min({work_group, pow2_at_least(n_terms),
                      std::max<std::size_t>(32, pow2_at_least(ceil_div(n_terms, 16)))});
    per_group = std::min(work_group / lanes, pow2_at_least(n_out));
  } else if (block > 1) {
    // A CPU, many rows: blocks of rows per work-item, enough groups for the cores.
    const std::size_t blocks = ceil_div(n_out, block);
    per_group = std::min({work_group, std::size_t{256},
                          std::bit_floor(std::max<std::size_t>(blocks / target_groups(device, false, work_group), 1))});
  } else {
    // A CPU: one work-item per result walks its terms (PoCL vectorizes no loop over work-items
    // that holds a loop), many results per group (PoCL pays for each group), parts spread few
    // results over the cores.
    per_group = std::min({work_group, pow2_at_least(n_out), std::size_t{256}});
  }

  reduction_plan plan;
  plan.local0 = rowwise ? per_group : lanes;
  plan.local1 = rowwise ? lanes : per_group;
  plan.results_per_item = block;
  const std::size_t result_groups =
      std::max<std::size_t>(ceil_div(n_out, per_group * plan.results_per_item), 1);

  // Parts: when the result groups cannot fill the device, split each result's terms, keeping
  // enough terms per lane that the finishing pass stays small.
  const std::size_t target = target_groups(device, gpu, per_group * lanes);
  // (A CPU's blocks of rows: a part of 2^20 elements or more, 1024 columns of a 1024-row block,
  // 256 of a 4096-row one, is a long walk.)
  const std::size_t least_terms =
      gpu ? lanes * 16 : block > 1 ? std::max<std::size_t>((std::size_t{1} << 20) / block, 16) : 4096;
  // Rounded down: a second, mostly empty wave of groups would take as long as the first.
  std::size_t parts = 1;
  if (2 * result_groups <= target && n_terms > least_terms)
    parts = std::min({target / result_groups, ceil_div(n_terms, least_terms), max_groups});
  const std::size_t part_length = std::max<std::size_t>(ceil_div(n_terms, parts), 1);
  parts = std::max<std::size_t>(ceil_div(n_terms, part_length), 1);  // no empty part
  plan.parts = static_cast<index_t>(parts);
  plan.part_length = static_cast<index_t>(part_length);
  // The lanes' terms as the pass's walk reads them (pass_walk): interleaved, or a run each.
  if (!pass_walk(device).consecutive) {
    plan.lane_chunk = 1;
    plan.lane_span = plan.part_length;
    plan.lane_step = static_cast<index_t>(lanes);
  } else {
    plan.lane_chunk = static_cast<index_t>(std::max<std::size_t>(ceil_div(part_length, lanes), 1));
    plan.lane_span = plan.lane_chunk;
    plan.lane_step = 1;
  }

  // The finishing pass: many parts (few results) are shared by lanes, about four parts each, in
  // groups of at most 256 (a plan in larger groups has one part: plan_reduction).
  const std::size_t finish_group = std::min<std::size_t>(work_group, 256);
  plan.finish_lanes = std::min(finish_group, pow2_at_least(ceil_div(parts, 4)));
  plan.finish_results = std::min(finish_group / plan.finish_lanes, pow2_at_least(n_out));

  if (rowwise) {
    plan.groups0 = result_groups;
    plan.groups1 = parts;
    plan.groups2 = 1;
  } else {
    plan.groups0 = parts;
    // Result groups over the second and third dimensions, balanced so that few are empty.
    plan.groups2 = ceil_div(result_groups, max_groups);
    plan.groups1 = ceil_div(result_groups, plan.groups2);
  }
  return plan;
}

}  // namespace

reduction_plan plan_reduction(const runtime::device_info& device, bool rowwise, index_t outputs, index_t length,
                              std::size_t work_group, std::size_t large_group) {
  const reduction_plan plan = plan_in_groups(device, rowwise, outputs, length, work_group);
  // Rows enough for a wave of large groups (32 rows and 32 lanes each) but too few for the
  // groups of work_group: the large ones finish in one pass, without the finishing kernel.
  if (device.type != runtime::device_type::cpu && rowwise && plan.parts > 1 && large_group > work_group) {
    const reduction_plan large = plan_in_groups(device, rowwise, outputs, length, large_group);
    if (large.parts == 1) return large;
  }
  return plan;
}

}  // namespace tessera::kernel_generator

namespace tessera::kernel_generator {

fused_levels_plan plan_fused_levels(bool rowwise, index_t rows, index_t cols, std::size_t work_group) {
  const auto r = static_cast<std::size_t>(std::max<index_t>(rows, 1));
  const auto c = static_cast<std::size_t>(std::max<index_t>(cols, 1));
  work_group = std::bit_floor(std::max<std::size_t>(work_group, 1));
  fused_levels_plan plan;
  if (rowwise) {
    // 32 rows make a 128-byte read per column; lanes share each row, at least 4 terms each;
    // short rows leave room for more rows.
    std::size_t per_group = std::min({work_group, pow2_at_least(r), std::size_t{32}});
    const std::size_t lanes = std::min(work_group / per_group, pow2_at_least(ceil_div(c, 4)));
    per_group = std::min(work_group / lanes, pow2_at_least(r));
    plan.local0 = per_group;
    plan.local1 = lanes;
    plan.groups0 = ceil_div(r, per_group);
  } else {
    // A warp's 32 lanes down the column (coalesced) where it is that long.
    const std::size_t lanes =
        std::min({work_group, pow2_at_least(r), std::max<std::size_t>(32, pow2_at_least(ceil_div(r, 4)))});
    const std::size_t per_group = std::min(work_group / lanes, pow2_at_least(c));
    plan.local0 = lanes;
    plan.local1 = per_group;
    const std::size_t result_groups = ceil_div(c, per_group);
    plan.groups2 = ceil_div(result_groups, max_groups);
    plan.groups1 = ceil_div(result_groups, plan.groups2);
  }
  return plan;
}

fused_levels_plan plan_held_levels(bool rowwise, index_t rows, index_t cols) {
  const auto r = static_cast<std::size_t>(std::max<index_t>(rows, 1));
  const auto c = static_cast<std::size_t>(std::max<index_t>(cols, 1));
  fused_levels_plan plan;
  if (rowwise) {
    // Lanes share a row, about eight elements each; 16 rows (a 64-byte read per column) where the
    // lanes are many, 32 where they are few.
    const std::size_t lanes = std::min<std::size_t>(32, pow2_at_least(ceil_div(c, 8)));
    plan.local0 = std::min({pow2_at_least(r), std::size_t{32}, std::max<std::size_t>(16, 256 / lanes)});
    plan.local1 = lanes;
    plan.groups0 = ceil_div(r, plan.local0);
    plan.items = ceil_div(c, lanes);
    if (plan.items > max_held_row_items) return {};
  } else {
    // Lanes down the column (coalesced), about eight elements each, up to 512; groups of at least
    // 256 where the columns are short.
    const std::size_t lanes =
        std::min<std::size_t>(512, std::max(std::min<std::size_t>(32, pow2_at_least(r)), pow2_at_least(ceil_div(r, 8))));
    plan.local0 = lanes;
    plan.local1 = std::min(std::max<std::size_t>(256 / lanes, 1), pow2_at_least(c));
    const std::size_t result_groups = ceil_div(c, plan.local1);
    plan.groups2 = ceil_div(result_groups, max_groups);
    plan.groups1 = ceil_div(result_groups, plan.groups2);
    plan.items = ceil_div(r, lanes);
    if (plan.items > max_held_column_items) return {};
  }
  return plan;
}

}  // namespace tessera::kernel_generator
