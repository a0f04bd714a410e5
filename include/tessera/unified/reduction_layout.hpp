#pragma once
// How an OpenCL reduction is split into work-groups. Chosen from the sizes and the device
// alone, so a reduction adds its terms in the same order every time on a given device: the
// results are deterministic for a device and a size.
//
// The split follows the access pattern. Unified dense matrices are row-major, so a row
// reduction reads along contiguous memory and a column reduction reads across it:
// - on a GPU, consecutive work-items read consecutive addresses (a row's lanes stride along
//   its columns; a column reduction's lanes are consecutive columns, its row lanes and parts
//   split the rows), outputs that are few get several work-groups each ("parts", combined by a
//   finishing pass) so that every compute unit holds several groups, split outputs fit one
//   wave of resident groups, and an item with several short outputs (rows a grid apart,
//   columns a grid apart) reads them together so that its loads are in flight at once;
// - on a CPU device (PoCL runs a group's items one after another on one core, and pays for
//   every group) each item reads one contiguous block: a row reduction gives each item whole
//   rows (or one part of a long row); a wide column reduction gives each item up to 4096
//   neighbouring columns, which it walks down the rows of its part (each row's block one
//   contiguous run, its accumulators an array).
// When every output has one part, stage 1 writes the finished results itself, and one term
// per output (N x 1 rows, 1 x N columns) is a map: such reductions cost what a copy costs.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <tessera/runtime/device.hpp>

namespace tessera::unified {

/// Columns per work-item of a GPU's column reduction of many short columns.
inline constexpr std::size_t gpu_columns_per_item = 8;
/// The most columns per work-item of a wide column reduction on a CPU device (column_arrays):
/// a block of a row is one contiguous run of up to 16 KiB of floats that the item's walk down
/// the rows reads whole, its accumulators an array as long (PoCL, 2 cores, column sums of 2^24
/// floats: 32 columns an item, 128-byte runs a row apart, 0.39-0.65x the copy at 4096 x 4096 and
/// 256 x 65536; blocks of up to 4096 columns, four rows a step: 0.85-1.63 and 0.71-0.98).
inline constexpr std::size_t cpu_block_columns = 4096;
/// Rows a CPU device's column block adds per step of its walk (trace_col_block_arrays), so that
/// its array of accumulators, 16 KiB for 4096 columns, is loaded and stored once per four rows
/// (PoCL, 2 cores, alternate runs, a row / four rows a step: column sums and maxima of
/// 256 x 65536 0.52-0.59 / 0.71-0.98x the copy, 4096 x 4096 0.79-1.24 / 0.85-1.63, 65536 x 256,
/// blocks of 256 columns, 1.17-1.32 / 1.17-1.33).
inline constexpr std::size_t cpu_block_rows_per_step = 4;
/// Rows a row reduction's work-item reads together when it has one item per row and several
/// rows (trace_row_blocks): their loads are in flight at once.
inline constexpr std::size_t row_batch = 8;
/// Outputs a GPU work-item of a one-term reduction (single_term_layout) reads together.
inline constexpr std::size_t single_term_batch = 4;

struct reduction_layout {
  std::size_t local = 1;        // work-items per group, a power of two
  std::size_t groups = 1;       // work-groups along dimension 0
  std::size_t parts = 1;        // partial results per output (work-groups along dimension 1)
  std::size_t lanes = 1;        // row reduction: work-items per row; column: columns per group
  std::size_t part_length = 0;  // row reduction: columns per part; column: rows per part
  // Column reduction (trace_col_partials): part p's items walk rows from p * part_length below
  // p * part_length + part_extent. On a GPU with several parts of groups with 32 row lanes or
  // more the parts interleave: part_length is a group's row lanes and part_extent all the rows,
  // so that the groups read one contiguous stretch of the column at a time, as a full
  // reduction's grid does (2^26 x 1 column sum on an H100: 0.78x the copy with parts of
  // consecutive rows, 0.83x interleaved). Elsewhere part_extent = part_length.
  std::size_t part_extent = 0;
  // Which terms a work-item takes within its group's range: from base + index * chunk, below
  // first + span, every step-th. A GPU interleaves its items (chunk 1, step = items), so that
  // neighbours read neighbouring memory; a CPU device gives each item a contiguous block
  // (step 1), since it runs a group's items one after another and interleaving would make
  // each of them read every cache line.
  std::size_t chunk = 1;
  std::size_t span = 0;
  std::size_t step = 1;
  // Row reduction with one item per row (lanes 1): each item reduces rows_per_item rows, item
  // i rows i * first_row_step + k * row_step: consecutive rows on a CPU device, rows a grid
  // apart on a GPU (so that neighbouring items read neighbouring rows).
  std::size_t rows_per_item = 1;
  std::size_t first_row_step = 1;
  std::size_t row_step = 1;
  // Column reduction: blocks of `lanes` columns; stage 1 launches `groups` of them along
  // dimension 0, each taking every groups-th block (fewer groups than blocks on a GPU with many
  // short columns: one wave of groups, each paying its set-up once).
  std::size_t col_blocks = 1;
  // Column reduction by column blocks (wide on a CPU device, many short columns on a GPU):
  // each item adds this many columns down the rows of its part (lanes is then 1), item i's
  // columns i * first_col_step + j * col_step; 1 elsewhere.
  std::size_t columns_per_item = 1;
  std::size_t first_col_step = 1;
  std::size_t col_step = 1;
  // A CPU device's column blocks: the item's columns_per_item neighbouring columns kept in an
  // array of accumulators and walked in a loop (trace_col_block_arrays), not one variable each.
  bool column_arrays = false;
  // Finishing pass (parts > 1): work-items per output, each combining every final_lanes-th
  // part, then a tree in the group. Few outputs with many parts get a whole group each.
  std::size_t final_lanes = 1;
};

/// How a GPU's row and column reductions (the kernels with a tree per group) are split and
/// unrolled. TESSERA_REDUCTION_TUNING="key=value,..." (the keys below) overrides the defaults for
/// a process, so that one benchmark run can compare splits on a device. A row reduction reads
/// only the row_* keys and a column reduction only the col_* keys, so each direction's defaults
/// are its best tuning on its own. A CPU device's layouts use none of them.
///
/// The defaults are the best per direction of BM_reduction at 2^26 floats on an NVIDIA H100
/// (2026-11-26, benchmark/unified/results/h100_reduction_tunings_2026-11-26/, six tunings;
/// benchmark/RESULTS.md, "Unified reductions against the copy"): rows row_groups=4,
/// row_unroll=8, row_min_terms=16 (t4: 0.83-1.00 of the copy, where 8/4/8 gave 0.66-0.98);
/// columns col_width=32 with 8 groups and 4 accumulators (t2: 0.82-0.86 at 8192 x 8192,
/// 1024 x 65536 and 65536 x 1024, where 256 columns per group gave 0.80-0.83 and 8 accumulators
/// 0.71-0.73 (t1); 2^26 x 1, one column, is the same split under both widths: 0.77-0.79).
struct reduction_tuning {
  std::size_t row_groups = 4;      // row reductions: work-groups per compute unit to aim for
  std::size_t col_groups = 8;      // column reductions: the same
  std::size_t row_unroll = 8;      // independent accumulators per work-item, row reductions
  std::size_t col_unroll = 4;      // the same, column reductions
  std::size_t row_min_terms = 16;  // row reductions: terms per lane at least (fewer lanes per short row)
  std::size_t col_width = 32;      // column reductions: columns per work-group at most (the rest of
                                   // the group shares their rows)
  bool operator==(const reduction_tuning&) const = default;
};

/// Parses "key=value,..." over the defaults; an unknown key or a bad value throws
/// argument_error naming it.
reduction_tuning parse_reduction_tuning(std::string_view text);

/// The tuning of this process: the defaults, or TESSERA_REDUCTION_TUNING's (read once).
const reduction_tuning& gpu_reduction_tuning();

/// x / divisor as a multiply, for every 32-bit x (Granlund and Montgomery's method, as libdivide
/// has it): q = (h + ((x - h) >> pre)) >> post with h = mul_hi(x, magic). A 2-D reduction on a GPU
/// finds each term's row and column from its index with it, so that its loads do not wait on a
/// chain of steps (H200, 2-D sums of 2^26 floats: 0.72x the copy stepping the row and column
/// along, 0.84 dividing each index; benchmark/unified/column_probe).
struct index_divider {
  std::uint32_t magic = 0, pre = 0, post = 0;
  std::uint32_t divide(std::uint32_t x) const noexcept {
    const auto h = static_cast<std::uint32_t>((std::uint64_t{x} * magic) >> 32);
    return (h + ((x - h) >> pre)) >> post;
  }
};
/// The divider of a divisor from 1 to 2^32 - 1.
index_divider make_index_divider(std::uint32_t divisor);

/// 1-D and 2-D reductions of n terms: `groups` partial results, each a group's grid-stride sum.
reduction_layout full_reduction_layout(const runtime::device_info& device, std::size_t local, std::size_t n);
/// One result per row, reducing over columns.
reduction_layout row_reduction_layout(const runtime::device_info& device, std::size_t local, std::size_t rows,
                                      std::size_t cols, const reduction_tuning& tuning = gpu_reduction_tuning());
/// One result per column, reducing over rows.
reduction_layout col_reduction_layout(const runtime::device_info& device, std::size_t local, std::size_t rows,
                                      std::size_t cols, const reduction_tuning& tuning = gpu_reduction_tuning());

/// A reduction whose outputs each have one term (N x 1 rows, 1 x N columns), a map: item i
/// takes outputs i * first_row_step + k * row_step for k < rows_per_item (one per item on a
/// GPU; a contiguous block per item and few groups on a CPU device).
reduction_layout single_term_layout(const runtime::device_info& device, std::size_t local, std::size_t outputs);

/// The work-groups a device needs to be busy: several per compute unit on a GPU (they hide
/// memory latency), a few per core on a CPU device (load balance).
std::size_t target_groups(const runtime::device_info& device);
/// The same, with groups_per_unit groups per compute unit on a GPU.
std::size_t target_groups(const runtime::device_info& device, std::size_t groups_per_unit);

/// The device a reduction on `actual` splits its work for: `actual`, unless this thread holds
/// a layout_device_override. Every layout gives correct results on any device (only speed
/// differs), so tests use one to run a GPU's split on the CPU device they have.
const runtime::device_info& layout_device(const runtime::device_info& actual);

/// Whether 2-D reductions started on this thread step their rows and columns along even where
/// a GPU would divide their indices (a stepping_indices_override is alive): the walk a GPU takes
/// when an index passes 32 bits, which a test cannot reach with matrices of its size.
bool stepping_indices_forced();

/// While alive, 2-D reductions started on this thread step their rows and columns along.
class stepping_indices_override {
 public:
  stepping_indices_override();
  ~stepping_indices_override();
  stepping_indices_override(const stepping_indices_override&) = delete;
  stepping_indices_override& operator=(const stepping_indices_override&) = delete;

 private:
  bool previous_;
};

/// While alive, reductions started on this thread split their work as for `device`.
class layout_device_override {
 public:
  explicit layout_device_override(const runtime::device_info& device);
  ~layout_device_override();
  layout_device_override(const layout_device_override&) = delete;
  layout_device_override& operator=(const layout_device_override&) = delete;

 private:
  runtime::device_info device_;
  const runtime::device_info* previous_;
};

}  // namespace tessera::unified
