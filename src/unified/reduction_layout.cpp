#include <tessera/unified/reduction_layout.hpp>

#include <tessera/runtime/error.hpp>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstdlib>
#include <string>

namespace tessera::unified {

namespace {

thread_local const runtime::device_info* overriding_device = nullptr;
thread_local bool stepping_forced = false;

std::size_t ceil_div(std::size_t a, std::size_t b) { return a / b + (a % b != 0); }

bool is_cpu(const runtime::device_info& device) { return device.type == runtime::device_type::cpu; }

// A CPU device gives each item of a column reduction a block of up to cpu_block_columns columns
// from this many columns on; narrower matrices give each item a contiguous block of rows of its
// column.
constexpr std::size_t min_block_columns = 64;

// `items` work-items share `length` terms.
void share_terms(reduction_layout& out, const runtime::device_info& device, std::size_t items, std::size_t length) {
  if (is_cpu(device)) {
    out.chunk = std::max<std::size_t>(ceil_div(length, items), 1);
    out.span = out.chunk;
    out.step = 1;
  } else {
    out.chunk = 1;
    out.span = length;
    out.step = items;
  }
}

// A column reduction's parts interleave on a GPU when a group reads at least this many rows
// of each column at a time (a warp's worth: 128 bytes of floats); see reduction_layout::part_extent.
constexpr std::size_t interleaved_row_lanes = 32;

// Parts per output when `groups` groups cover the outputs and each output has `length` terms
// that `per_part` items read: enough to fill the device. A GPU rounds down, so that the groups
// fit in one wave of resident groups (a second, mostly empty wave would cost as much as the
// first); a CPU device rounds up.
std::size_t parts_for(const runtime::device_info& device, std::size_t groups, std::size_t length,
                      std::size_t per_part, std::size_t groups_per_unit) {
  const std::size_t target = target_groups(device, groups_per_unit);
  if (groups == 0 || groups >= target || length <= per_part) return 1;
  const std::size_t wanted = is_cpu(device) ? ceil_div(target, groups) : target / groups;
  return std::clamp<std::size_t>(wanted, 1, ceil_div(length, per_part));
}

// Work-items per output in the finishing pass: about four parts each.
std::size_t final_lanes_for(std::size_t parts, std::size_t local) {
  return std::clamp<std::size_t>(std::bit_floor(std::max<std::size_t>(parts / 4, 1)), 1, local);
}

}  // namespace

const runtime::device_info& layout_device(const runtime::device_info& actual) {
  return overriding_device != nullptr ? *overriding_device : actual;
}

layout_device_override::layout_device_override(const runtime::device_info& device)
    : device_(device), previous_(overriding_device) {
  overriding_device = &device_;
}

layout_device_override::~layout_device_override() { overriding_device = previous_; }

bool stepping_indices_forced() { return stepping_forced; }

stepping_indices_override::stepping_indices_override() : previous_(stepping_forced) { stepping_forced = true; }

stepping_indices_override::~stepping_indices_override() { stepping_forced = previous_; }

std::size_t target_groups(const runtime::device_info& device) { return target_groups(device, 8); }

std::size_t target_groups(const runtime::device_info& device, std::size_t groups_per_unit) {
  const std::size_t units = std::max<std::size_t>(device.compute_units, 1);
  return device.type == runtime::device_type::gpu ? std::max<std::size_t>(groups_per_unit, 1) * units : 4 * units;
}

reduction_tuning parse_reduction_tuning(std::string_view text) {
  reduction_tuning out;
  const auto fail = [&](std::string_view item, const char* why) {
    throw argument_error("reduction tuning '" + std::string(text) + "': '" + std::string(item) + "' " + why +
                         " (keys: row_groups, col_groups, row_unroll, col_unroll, row_min_terms, col_width)");
  };
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    if (item.empty()) continue;
    const std::size_t equals = item.find('=');
    if (equals == std::string_view::npos) fail(item, "is not key=value");
    const std::string_view key = item.substr(0, equals), number = item.substr(equals + 1);
    std::size_t value = 0;
    const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (error != std::errc() || end != number.data() + number.size() || value == 0 || value > 4096)
      fail(item, "needs a whole number from 1 to 4096");
    if (key == "row_groups") out.row_groups = value;
    else if (key == "col_groups") out.col_groups = value;
    else if (key == "row_unroll" || key == "col_unroll") {
      if (value > 16) fail(item, "is more than 16 accumulators");
      (key == "row_unroll" ? out.row_unroll : out.col_unroll) = value;
    } else if (key == "row_min_terms") out.row_min_terms = value;
    else if (key == "col_width") {
      if (!std::has_single_bit(value)) fail(item, "is not a power of two");
      out.col_width = value;
    } else fail(item, "has an unknown key");
  }
  return out;
}

const reduction_tuning& gpu_reduction_tuning() {
  static const reduction_tuning tuning = [] {
    const char* text = std::getenv("TESSERA_REDUCTION_TUNING");
    return text != nullptr ? parse_reduction_tuning(text) : reduction_tuning{};
  }();
  return tuning;
}

index_divider make_index_divider(std::uint32_t divisor) {
  if (divisor == 0) throw argument_error("make_index_divider: a divisor of 0");
  // l = ceil(log2 divisor); magic = floor(2^32 (2^l - divisor) / divisor) + 1 fits 32 bits.
  const unsigned l = static_cast<unsigned>(std::bit_width(divisor - 1));
  index_divider out;
  out.magic = static_cast<std::uint32_t>((((std::uint64_t{1} << l) - divisor) << 32) / divisor + 1);
  out.pre = std::min(l, 1u);
  out.post = l > 0 ? l - 1 : 0;
  return out;
}

reduction_layout full_reduction_layout(const runtime::device_info& device, std::size_t local, std::size_t n) {
  reduction_layout out;
  out.local = local;
  out.groups = std::clamp<std::size_t>(ceil_div(n, local), 1, target_groups(device));
  out.parts = out.groups;
  share_terms(out, device, out.groups * local, n);
  return out;
}

reduction_layout single_term_layout(const runtime::device_info& device, std::size_t local, std::size_t outputs) {
  reduction_layout out;
  out.local = local;
  if (is_cpu(device)) {
    out.rows_per_item = std::max<std::size_t>(ceil_div(outputs, local * target_groups(device)), 1);
    out.first_row_step = out.rows_per_item;
    out.groups = std::max<std::size_t>(ceil_div(outputs, local * out.rows_per_item), 1);
  } else {
    out.rows_per_item = single_term_batch;
    out.groups = std::max<std::size_t>(ceil_div(outputs, local * out.rows_per_item), 1);
    out.row_step = out.groups * local;
  }
  return out;
}

reduction_layout row_reduction_layout(const runtime::device_info& device, std::size_t local, std::size_t rows,
                                      std::size_t cols, const reduction_tuning& tuning) {
  reduction_layout out;
  out.local = local;
  if (is_cpu(device)) {
    // One item per row (or row part), whole rows in a row: contiguous reads and no tree.
    out.lanes = 1;
    out.rows_per_item = std::max<std::size_t>(rows / (local * target_groups(device)), 1);
    out.groups = ceil_div(rows, local * out.rows_per_item);
    out.first_row_step = out.rows_per_item;
    out.parts = parts_for(device, out.groups, cols, 1, tuning.row_groups);
  } else {
    // Lanes along the row, each with row_min_terms terms at least: fewer lanes, shorter trees.
    out.lanes =
        std::clamp<std::size_t>(std::bit_floor(std::max<std::size_t>(cols / tuning.row_min_terms, 1)), 1, local);
    out.groups = ceil_div(rows, local / out.lanes);
    out.parts = parts_for(device, out.groups, cols, out.lanes, tuning.row_groups);
    if (out.lanes == 1 && out.groups > target_groups(device, tuning.row_groups)) {
      // Short rows, many of them: each item takes a batch of rows a grid apart (neighbouring
      // items read neighbouring rows) and reads them together, its loads in flight at once.
      out.rows_per_item = row_batch;
      out.groups = ceil_div(rows, local * out.rows_per_item);
      out.row_step = out.groups * local;
    }
  }
  out.part_length = ceil_div(cols, out.parts);
  share_terms(out, device, out.lanes, out.part_length);
  if (out.parts > 1) out.final_lanes = final_lanes_for(out.parts, local);
  return out;
}

reduction_layout col_reduction_layout(const runtime::device_info& device, std::size_t local, std::size_t rows,
                                      std::size_t cols, const reduction_tuning& tuning) {
  reduction_layout out;
  out.local = local;
  out.lanes = std::min(local, std::bit_ceil(std::max<std::size_t>(cols, 1)));
  out.groups = ceil_div(cols, out.lanes);
  out.col_blocks = out.groups;
  const bool cpu_blocks = is_cpu(device) && cols >= min_block_columns;
  // Many short columns on a GPU: a group per block of columns would pay its set-up and a
  // barrier for a few terms; items that add several columns each, a grid apart, keep their
  // loads in flight together instead.
  const bool gpu_blocks = !is_cpu(device) && out.lanes == local && out.groups > target_groups(device, tuning.col_groups);
  if (cpu_blocks || gpu_blocks) {
    // A CPU item's block: as many neighbouring columns as there are, up to cpu_block_columns, so
    // that each row's block is one long contiguous run; the rows in parts for the cores.
    out.columns_per_item = cpu_blocks ? std::min(cols, cpu_block_columns) : gpu_columns_per_item;
    out.column_arrays = cpu_blocks;
    out.lanes = 1;
    const std::size_t items = ceil_div(cols, out.columns_per_item);
    out.local = std::min(local, std::bit_ceil(items));
    out.groups = ceil_div(items, out.local);
    out.col_blocks = out.groups;
    // A CPU item's columns are neighbours (one line); a GPU item's are a grid apart, so that
    // neighbouring items read neighbouring columns.
    out.first_col_step = cpu_blocks ? out.columns_per_item : 1;
    out.col_step = cpu_blocks ? 1 : out.groups * out.local;
    out.parts = parts_for(device, out.groups, rows, 1, tuning.col_groups);
    out.part_length = ceil_div(rows, out.parts);
    out.part_extent = out.part_length;
    out.chunk = out.span = out.part_length;
    out.step = 1;
  } else {
    if (!is_cpu(device)) {
      // At most col_width columns per group; the group's other items share their rows.
      out.lanes = std::min(out.lanes, std::max<std::size_t>(tuning.col_width, 1));
      out.groups = ceil_div(cols, out.lanes);
      out.col_blocks = out.groups;
    }
    const std::size_t row_lanes = local / out.lanes;
    out.parts = parts_for(device, out.groups, rows, row_lanes, tuning.col_groups);
    if (!is_cpu(device) && out.parts > 1 && row_lanes >= interleaved_row_lanes) {
      // Interleaved parts: part p's row lane l takes rows p * row_lanes + l, then every
      // parts * row_lanes-th (H100: 2^26 x 1 column sum 0.78 -> 0.83x the copy; 8192 x 8192,
      // 8 row lanes of 32 columns, 0.83 with consecutive rows, 0.80 interleaved).
      out.part_length = row_lanes;
      out.part_extent = rows;
      out.chunk = 1;
      out.span = rows;
      out.step = out.parts * row_lanes;
    } else {
      out.part_length = ceil_div(rows, out.parts);
      out.part_extent = out.part_length;
      share_terms(out, device, row_lanes, out.part_length);
    }
    if (!is_cpu(device)) out.groups = std::min(out.groups, target_groups(device, tuning.col_groups));
  }
  if (out.parts > 1) out.final_lanes = final_lanes_for(out.parts, local);
  return out;
}

}  // namespace tessera::unified
