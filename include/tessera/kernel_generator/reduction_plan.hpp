#pragma once
// How the reduction skeleton (reduction_skeleton.hpp) spreads a reduction over a device: which
// work-items share one result, how many results a work-group computes, and into how many parts
// (work-groups of their own, finished by a second pass) the terms of each result are split.
// It depends only on the device and the sizes, so a reduction adds its terms in the same order,
// and gives the same bits, on every run there.
#include <cstddef>

#include <tessera/kernel_generator/shape.hpp>
#include <tessera/runtime/device.hpp>

namespace tessera::kernel_generator {

/// The launch of a reduction of `outputs` results of `length` terms each, over a column-major
/// argument: rowwise (one result per row, terms along the row) or colwise (one per column).
/// The work-group is local0 x local1 work-items, local0 along the argument's contiguous rows:
///  - rowwise: local0 results per group, local1 lanes sharing each result's terms;
///  - colwise: local0 lanes sharing each result's terms, local1 results per group.
/// On a GPU consecutive work-items read consecutive elements (coalesced) and each lane takes
/// every lane_step-th term of its part; on a CPU a lane takes a contiguous run of terms.
struct reduction_plan {
  std::size_t local0 = 1, local1 = 1;
  /// Work-groups along the three launch dimensions: rowwise (result groups, parts, 1);
  /// colwise (parts, result groups spread over the second and third dimensions).
  std::size_t groups0 = 1, groups1 = 1, groups2 = 1;
  /// Parts per result: 1 finishes in the first kernel, more write partial results that a
  /// second kernel combines in part order.
  index_t parts = 1;
  index_t part_length = 0;
  /// Lane l of a part starts at term part_begin + l * lane_chunk and takes every
  /// lane_step-th term of the next lane_span.
  index_t lane_chunk = 1;
  index_t lane_span = 0;
  index_t lane_step = 1;
  /// The finishing pass (parts > 1): finish_lanes work-items share each result's parts (every
  /// finish_lanes-th), finish_results results per work-group.
  std::size_t finish_lanes = 1, finish_results = 1;

  /// Results per work-item: 1, or blocked_rows_per_item consecutive rows (reduction_rows_blocked).
  std::size_t results_per_item = 1;

  std::size_t lanes(bool rowwise) const noexcept { return rowwise ? local1 : local0; }
  std::size_t results_per_group(bool rowwise) const noexcept {
    return (rowwise ? local0 : local1) * results_per_item;
  }
};

/// On a CPU, a rowwise reduction of many rows gives each work-item a block of consecutive rows:
/// it walks the columns once, reading a contiguous run of the rows per column, which the CPU
/// vectorizes (a work-item of its own per row would read with the matrix's stride). The block is
/// as many rows as there are, up to 4096: long runs keep the prefetcher and the TLB on one
/// stretch of memory (PoCL, 2 cores, 2^24 floats, hand-written Kahan row sums: 16 rows per item
/// 0.24-0.40x the copy, 1024 0.65-1.19, the whole 4096-row column 1.13-1.17, with the columns
/// split into parts for the cores; benchmark/kernel_generator/row_block_probe; the generator's at
/// 4096 x 4096, alternate runs: 0.53-0.61 with 1024, 0.81-0.87 with 4096); more would make the
/// accumulator arrays large (4096 rows: 32 KiB of floats per root with its compensations).
std::size_t blocked_rows_per_item(index_t outputs);
/// The columns a blocked work-item of `block` rows adds to each row's accumulator per step of its
/// walk (generate_blocked_rows_pass): 4 for blocks of 4096 rows, whose accumulator arrays (32 KiB
/// with the compensations) do not stay in the L1 beside the columns' stream, so that they are
/// loaded and stored once per 4 columns; 1 for smaller blocks, which walk their columns as one
/// stream (PoCL, 2 cores, Kahan row sums of 2^24 floats, alternate runs of 1 and 4 columns a
/// step: 65536 x 256 (4096-row blocks) 0.55-0.60x / 0.70-1.14x the copy, 4096 x 4096
/// 0.77-0.79 / 0.97-1.01; 2048 x 8192 1.24-1.35 / 0.93-1.06, 1024 x 16384 1.41-1.76 /
/// 0.98-1.06, 256 x 65536 1.37-1.38 / 0.94-1.12).
int blocked_columns_per_step(std::size_t block);
/// Whether a reduction's pass takes blocks of rows per work-item (a kernel of its own).
bool reduction_rows_blocked(const runtime::device_info& device, bool rowwise, index_t outputs);

/// How each work-item of a reduction pass walks its terms (generate_reduction_source).
struct reduction_walk {
  /// The terms of one step, all loaded before any is accumulated: each root has as many
  /// independent accumulators (the loads and additions of one do not wait for the others'), a
  /// root that takes whole steps (reduction_site::accumulate_step: the online rule) one.
  int accumulators = 4;
  /// Whether a lane's terms are consecutive (lane_step 1): the kernel then reads them at k + u in
  /// a loop over the accumulators (arrays), which a CPU's compiler turns into vector loads and
  /// arithmetic across accumulators.
  bool consecutive = false;
};
/// A GPU hides the latency of additions with other work-items: 4 accumulators keep the registers
/// few, and its lanes interleave (lane_step). A CPU runs one work-item per core at a time, its
/// lanes take consecutive terms (plan_reduction), and a compensated sum's chain of four dependent
/// additions per term bounds it by the adder's latency (16 cycles a step on a Skylake core, so
/// 16 chains read one float a cycle, half what the copy moves): 32 chains, four 8-float vectors
/// (PoCL, 2 cores, Kahan column sums of 2^24 floats: 0.50-0.61x the copy with 4 chains a
/// lane_step apart, 0.68-0.70 with 16, 0.89-1.16 with 16 at constant offsets on an earlier
/// machine; on a later one, with the chains as arrays stepped in a loop, alternate runs of 16,
/// 32 and 64 chains: 2^24 x 1 0.62-0.69 / 1.21-1.34 / 1.42-1.56, 65536 x 256 0.58-0.60 /
/// 0.83-0.93 / 0.88-1.14, 4096 x 4096 0.65-0.68 / 1.46-1.53 / 1.47-1.49, the row sum of 1 x 2^24
/// 0.68-0.73 / 1.26-1.32 / 1.37-1.86, but 4096 x 4096's blocked row sums 0.78-0.81 / 0.89-0.92 /
/// 0.61-1.05: 64 fill the vector registers).
/// whole_steps: a root takes whole steps; a GPU's are then 8 terms, whose exponentials and
/// compensated additions overlap more loads (H200, log-sum-exp by rows: 8192 x 8192 0.76 ->
/// 0.81x the copy, 65536 x 1024 0.80 -> 0.88; row sums with 8 accumulators fall, 0.87 -> 0.81).
reduction_walk pass_walk(const runtime::device_info& device, bool whole_steps = false);

/// A reduction this short (or shorter) is computed by each work-item of the elementwise skeleton
/// on its own: nothing to share, and the skeleton's set-up would cost more than its terms.
inline constexpr index_t short_reduction = 8;

/// work_group: the largest power-of-two work-group the kernel runs (kernel::power_of_two_work_group).
/// large_group (0: none): a larger power-of-two group the device may run, taken by a GPU's row
/// reduction where it fills the device in one pass and work_group needs parts (rows enough for
/// more than a group of 32 rows per compute unit, up to four: 8192 rows of 8192 floats on an
/// H200, sums 0.86x the copy in groups of 256 and four parts with their finishing kernel, 0.94x
/// in groups of 1024 and one pass; softmax by rows 0.60 -> 0.62).
reduction_plan plan_reduction(const runtime::device_info& device, bool rowwise, index_t outputs, index_t length,
                              std::size_t work_group, std::size_t large_group = 0);

/// The launch of a fused-levels kernel (reduction_skeleton.hpp: an elementwise result whose
/// reductions all run along its rows, or all along its columns, computed by the work-group that
/// owns those rows): work-groups of local0 x local1 work-items, local0 along the contiguous rows.
/// Rowwise: 32 rows per group (a 128-byte read per column), the rest lanes sharing each row, at
/// least 4 terms each. Colwise: lanes down the column, at least 4 terms each, the rest more
/// columns. Large groups: fewer at a time keep the rows they read again in the cache.
struct fused_levels_plan {
  std::size_t local0 = 1, local1 = 1;
  /// Work-groups: rowwise (row groups, 1, 1); colwise (1, column groups over the second and
  /// third dimensions).
  std::size_t groups0 = 1, groups1 = 1, groups2 = 1;
  std::size_t groups() const noexcept { return groups0 * groups1 * groups2; }
  /// Elements of its row (column) each work-item holds in registers, loaded once for every level
  /// and the result (plan_held_levels); 0: the kernel reads its rows again per level.
  std::size_t items = 0;
};
fused_levels_plan plan_fused_levels(bool rowwise, index_t rows, index_t cols, std::size_t work_group);
/// The fused-levels kernel that holds its elements (items > 0), or items == 0 where they do not fit.
/// By rows, lanes share a row (up to 32 elements each) and 16 rows make a 64-byte read per
/// column (a group of 512); by columns, up to 512 lanes down the column (up to 16 elements each),
/// groups of at least 256. Hand-written variants on an H200 (2026-11-26, 2^26 floats,
/// benchmark/kernel_generator/softmax_probe): softmax of 65536 x 1024 by rows 0.64x the copy
/// with 8 rows x 32 lanes, 0.77x with 16 x 32, 0.71x with 32 x 32; 8192 x 8192 by columns 0.95x
/// with 256 or 512 lanes, 0.81x with 1024.
fused_levels_plan plan_held_levels(bool rowwise, index_t rows, index_t cols);

/// The device assignments plan their reductions and elementwise splits (skeletons.hpp) for:
/// `device` itself, unless a test asked for another's plan (plan_launches_as), so that a GPU's
/// layouts are checked on PoCL too.
const runtime::device_info& planning_device(const runtime::device_info& device);
/// For tests: plan every launch as for `device` (null: each context's own). Not thread-safe.
void plan_launches_as(const runtime::device_info* device);

}  // namespace tessera::kernel_generator
