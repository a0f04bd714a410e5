#include <tessera/blas/gemm_config.hpp>

#include <algorithm>
#include <cmath>

namespace tessera::blas {

std::vector<gemm_rule_violation> check_gemm_rules(const gemm_params& params, int element_size,
                                                  const gemm_limits& limits) {
  std::vector<gemm_rule_violation> broken;
  if (element_size <= 0) {  // the one divisor of the table; keep the run-time check defined
    broken.push_back({"element_size", "elements are float (4 bytes) or double (8 bytes)"});
    return broken;
  }
  const gemm_rule_values v(make_rule_inputs(params, element_size, limits));
#define TESSERA_GEMM_CHECK(name, condition, message) \
  if (!(condition)) broken.push_back({#name, message});
#include <tessera/blas/detail/gemm_checks.inc>
#undef TESSERA_GEMM_CHECK
  return broken;
}

namespace {

// The share of the slots of whole waves (one work-group per compute unit) that the work-groups fill.
double wave_fill(double groups, double units) { return groups / (std::ceil(groups / units) * units); }

// A block's outputs (C's elements a work-group computes).
std::int64_t block_outputs(const gemm_rule_values& derived) {
  return std::max<std::int64_t>(derived.block_rows, 1) * std::max<std::int64_t>(derived.block_cols, 1);
}

// The outputs a work-group of the split model holds: its block's, once per k-group (each sums its
// own share of K in registers: a 64 x 64 block in two k-groups keeps 8192).
std::int64_t outputs_held(const gemm_rule_values& derived) {
  return block_outputs(derived) * std::max<std::int64_t>(derived.k_groups, 1);
}

std::int64_t work_items(const gemm_rule_values& derived) { return std::max<std::int64_t>(derived.work_group_size, 1); }

// ceil(a / b) for a count a (negative counts as 0) and a positive b.
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (std::max<std::int64_t>(a, 0) + b - 1) / b; }

}  // namespace

std::int64_t split_k_groups_per_unit(const gemm_rule_values& derived) {
  return std::max<std::int64_t>(
      std::min(split_k_unit_outputs / outputs_held(derived), split_k_busy_work_items / work_items(derived)), 1);
}

std::int64_t split_k_groups_held(const gemm_rule_values& derived) {
  const std::int64_t local_memory = derived.local_memory_bytes + split_k_local_memory_reserve_bytes;
  const std::int64_t fit = std::min({split_k_unit_held_outputs / outputs_held(derived),
                                     split_k_unit_work_items / work_items(derived),
                                     split_k_unit_local_memory_bytes / local_memory});
  return std::max(fit, split_k_groups_per_unit(derived));
}

double split_k_second_launch_time(const gemm_rule_values& derived) {
  // A unit's groups_per_unit work-groups hold groups_per_unit x block outputs (split_k_unit_outputs
  // where that bounds them) and take one model unit a K tile.
  const double outputs = double(split_k_groups_per_unit(derived)) * double(block_outputs(derived));
  return double(split_k_second_launch_k) * double(split_k_unit_outputs) /
         (outputs * double(std::max<std::int64_t>(derived.k_tile, 1)));
}

double split_k_slice_overhead_time(const gemm_rule_values& derived) {
  return double(split_k_slice_overhead_k) / double(std::max<std::int64_t>(derived.k_tile, 1));
}

double split_k_model_time(std::int64_t tiles, std::int64_t k_tiles, std::int64_t split, std::int64_t groups_per_unit,
                          std::int64_t groups_held, double slice_overhead, std::int64_t compute_units) {
  const double slices = double(std::max<std::int64_t>(split, 1));
  const double busy = double(std::max<std::int64_t>(groups_per_unit, 1));
  // The busiest unit's work-groups, in batches of what it holds at once; a last batch of fewer
  // than split_k_unit_busy_from x G (at most a whole batch) takes as long as that many.
  const double per_unit = std::ceil(double(std::max<std::int64_t>(tiles, 1)) * slices /
                                    double(std::max<std::int64_t>(compute_units, 1)));
  const double held = std::max(double(groups_held), busy), fewest = std::min(split_k_unit_busy_from * busy, held);
  const double full_batches = std::floor(per_unit / held), rest = per_unit - full_batches * held;
  const double batches = (full_batches * held + (rest > 0.0 ? std::max(rest, fewest) : 0.0)) / busy;
  return batches * (std::ceil(double(std::max<std::int64_t>(k_tiles, 0)) / slices) + std::max(slice_overhead, 0.0));
}

int chosen_split_k(const gemm_params& params, int element_bytes, std::int64_t m, std::int64_t n, std::int64_t k,
                   std::int64_t batch, std::int64_t compute_units) {
  if (params.split_k != 0) return params.split_k;
  if (params.family != gemm_family::local) return 1;
  const gemm_rule_values d = derive(params, element_bytes);
  const std::int64_t units = std::max<std::int64_t>(compute_units, 1);
  const std::int64_t groups_per_unit = split_k_groups_per_unit(d), groups_held = split_k_groups_held(d);
  const double overhead = split_k_slice_overhead_time(d);
  // From this many tiles on no split gains chosen_split_gain in the model: a split's time is at
  // least tiles / (units x groups_per_unit) x (k_tiles + overhead), the whole call's at most
  // (1 + split_k_unit_busy_from x groups_per_unit) / groups_per_unit x (k_tiles + overhead) more.
  const auto no_gain_tiles = static_cast<std::int64_t>(std::ceil(
      (1.0 + split_k_unit_busy_from * double(groups_per_unit)) * double(units) / (chosen_split_gain - 1.0)));
  // The tiles, a factor at a time, stopping there (so no product overflows).
  std::int64_t tiles = 1;
  for (const std::int64_t count : {ceil_div(m, std::max<std::int64_t>(d.block_rows, 1)),
                                   ceil_div(n, std::max<std::int64_t>(d.block_cols, 1)), batch}) {
    const std::int64_t factor = std::max<std::int64_t>(count, 1);
    if (factor >= no_gain_tiles || tiles > (no_gain_tiles - 1) / factor) return 1;
    tiles *= factor;
  }
  const std::int64_t k_tiles = ceil_div(k, std::max<std::int64_t>(d.k_tile, 1));
  const std::int64_t most = std::min<std::int64_t>(max_chosen_split_k, k_tiles / min_split_k_slice_k_tiles);
  const double whole = split_k_model_time(tiles, k_tiles, 1, groups_per_unit, groups_held, overhead, units);
  std::int64_t best = 1;
  double best_time = whole;
  for (std::int64_t s = 2; s <= most; ++s)
    if (const double t = split_k_model_time(tiles, k_tiles, s, groups_per_unit, groups_held, overhead, units); t < best_time)
      best = s, best_time = t;
  return best > 1 && whole >= chosen_split_gain * (best_time + split_k_second_launch_time(d)) ? int(best) : 1;
}

std::optional<tail_split> chosen_tail_split(const gemm_params& params, int split, int element_bytes, std::int64_t m,
                                            std::int64_t n, std::int64_t k, std::int64_t batch,
                                            std::int64_t compute_units) {
  if (params.family != gemm_family::local || split <= 1 || m <= 0 || n <= 0 || batch <= 0) return std::nullopt;
  const gemm_rule_values d = derive(params, element_bytes);
  const std::int64_t rows = std::max<std::int64_t>(d.block_rows, 1), cols = std::max<std::int64_t>(d.block_cols, 1);
  const std::int64_t units = std::max<std::int64_t>(compute_units, 1);
  const std::int64_t groups_per_unit = split_k_groups_per_unit(d), groups_held = split_k_groups_held(d);
  const std::int64_t row_blocks = ceil_div(m, rows), col_blocks = ceil_div(n, cols);
  // Past this many tiles chosen_split_k never splits, so the products below stay small.
  if (row_blocks > (std::int64_t(1) << 40) / col_blocks / batch) return std::nullopt;
  const std::int64_t tiles = row_blocks * col_blocks * batch, batch_slots = units * groups_held;
  if (tiles < batch_slots) return std::nullopt;
  const std::int64_t whole_tiles = tiles / batch_slots * batch_slots;
  const std::int64_t whole_rows = whole_tiles / (col_blocks * batch), whole_cols = whole_tiles / (row_blocks * batch);
  tail_split plan;
  plan.along_rows = whole_rows * col_blocks >= whole_cols * row_blocks;
  plan.whole_blocks = plan.along_rows ? whole_rows : whole_cols;
  if (plan.whole_blocks < 1 || plan.whole_blocks >= (plan.along_rows ? row_blocks : col_blocks)) return std::nullopt;
  const std::int64_t head_tiles = plan.whole_blocks * (plan.along_rows ? col_blocks : row_blocks) * batch;
  gemm_params chosen = params;
  chosen.split_k = 0;
  plan.split = plan.along_rows ? chosen_split_k(chosen, element_bytes, m - plan.whole_blocks * rows, n, k, batch, units)
                               : chosen_split_k(chosen, element_bytes, m, n - plan.whole_blocks * cols, k, batch, units);
  const std::int64_t k_tiles = ceil_div(k, std::max<std::int64_t>(d.k_tile, 1));
  const double overhead = split_k_slice_overhead_time(d), launch = split_k_second_launch_time(d);
  const auto time = [&](std::int64_t t, std::int64_t s) {
    return split_k_model_time(t, k_tiles, s, groups_per_unit, groups_held, overhead, units);
  };
  const double split_time = time(tiles, split) + launch;
  const double tail_time = time(head_tiles, 1) + time(tiles - head_tiles, plan.split) + launch + (plan.split > 1 ? launch : 0.0);
  if (tail_time >= split_time) return std::nullopt;
  return plan;
}

std::optional<tail_split> tail_split_for_call(const gemm_params& params, int element_bytes,
                                              const gemm_problem_shape& call, std::int64_t compute_units,
                                              std::uint64_t max_allocation_bytes) {
  if ((!call.trans_a && !call.trans_b) ||
      pretransposed(params, element_bytes, call.m, call.n, call.k, call.trans_a, call.trans_b, max_allocation_bytes).any())
    return std::nullopt;
  const int split = chosen_split_k(params, element_bytes, call.m, call.n, call.k, call.batch, compute_units);
  return chosen_tail_split(params, split, element_bytes, call.m, call.n, call.k, call.batch, compute_units);
}

pretransposed_operands pretransposed(const gemm_params& params, int element_bytes, std::int64_t m, std::int64_t n,
                                     std::int64_t k, bool trans_a, bool trans_b, std::uint64_t max_allocation_bytes) {
  if (params.family != gemm_family::local || params.pretranspose == 0 || k <= 0) return {};
  const std::int64_t limit = pretranspose_limit_bytes(max_allocation_bytes);
  const auto fits = [&](std::int64_t rows) { return pretransposed_leading_dimension(rows) <= limit / element_bytes / k; };
  pretransposed_operands copies{trans_a, !trans_b};
  if ((copies.a && !fits(m)) || (copies.b && !fits(n))) return {};
  return copies;
}

double device_fill(const gemm_params& params, int element_bytes, const gemm_problem_shape& shape,
                   std::int64_t compute_units) {
  const gemm_rule_values d = derive(params, element_bytes);
  const double units = double(std::max<std::int64_t>(compute_units, 1));
  const double m = double(std::max<std::int64_t>(shape.m, 1)), n = double(std::max<std::int64_t>(shape.n, 1));
  const double rows = double(std::max<std::int64_t>(d.block_rows, 1)), cols = double(std::max<std::int64_t>(d.block_cols, 1));
  const double row_tiles = std::ceil(m / rows), col_tiles = std::ceil(n / cols);
  const double edge = (m * n) / (row_tiles * rows * col_tiles * cols);
  const int split = chosen_split_k(params, element_bytes, shape.m, shape.n, shape.k, shape.batch, compute_units);
  // In doubles: the work-groups of a large batched call pass 2^63 no sooner than the sizes do.
  const double groups = row_tiles * col_tiles * double(std::max<std::int64_t>(shape.batch, 1)) * std::max(split, 1);
  return edge * wave_fill(groups, units);
}

}  // namespace tessera::blas
