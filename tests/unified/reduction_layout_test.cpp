// The OpenCL reductions' split of terms over work-items, for a GPU (interleaved items) and a
// CPU device (a block per item): every term is taken exactly once, whatever the sizes.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <tessera/runtime/error.hpp>
#include <tessera/unified/reduction_layout.hpp>

namespace {

using namespace tessera::unified;
namespace rt = tessera::runtime;

rt::device_info device(rt::device_type type, std::uint32_t units) {
  rt::device_info d;
  d.type = type;
  d.compute_units = units;
  return d;
}

const std::vector<rt::device_info> devices = {device(rt::device_type::gpu, 132), device(rt::device_type::cpu, 2),
                                              device(rt::device_type::cpu, 64), device(rt::device_type::other, 1)};

/// How often each of `length` terms is taken by `items` items following the layout's loop.
std::vector<int> coverage(const reduction_layout& layout, std::size_t items, std::size_t length) {
  std::vector<int> taken(length, 0);
  for (std::size_t item = 0; item < items; ++item) {
    const std::size_t first = item * layout.chunk;
    const std::size_t last = std::min(length, first + layout.span);
    for (std::size_t term = first; term < last; term += layout.step) ++taken[term];
  }
  return taken;
}

TEST(reduction_layout, full_reductions_take_every_term_once) {
  for (const auto& d : devices)
    for (std::size_t local : {1u, 64u, 256u})
      for (std::size_t n : {0u, 1u, 7u, 255u, 256u, 257u, 100003u}) {
        const auto layout = full_reduction_layout(d, local, n);
        ASSERT_GE(layout.groups, 1u);
        EXPECT_EQ(coverage(layout, layout.groups * local, n), std::vector<int>(n, 1)) << "n " << n << ", local " << local;
      }
}

// The defaults (what the properties below are about, whatever TESSERA_REDUCTION_TUNING says
// for this process) and other tunings it may set.
const reduction_tuning defaults{};
const std::vector<reduction_tuning> tunings = {
    defaults,
    parse_reduction_tuning("row_groups=4,col_groups=4,row_unroll=8,col_unroll=8,row_min_terms=32,col_width=32"),
    parse_reduction_tuning("row_groups=16,col_groups=16,row_min_terms=16,col_width=64"),
    parse_reduction_tuning("row_groups=8,row_unroll=4,row_min_terms=8,col_width=256")};  // the H200's former defaults

TEST(reduction_layout, row_and_column_parts_take_every_term_once) {
  for (const auto& tuning : tunings)
  for (const auto& d : devices)
    for (std::size_t local : {64u, 256u})
      for (auto [rows, cols] : std::vector<std::pair<std::size_t, std::size_t>>{
               {1, 1}, {3, 100003}, {1000, 7}, {100003, 1}, {5, 0}, {0, 5}, {17, 300}, {300, 4099}}) {
        const auto row = row_reduction_layout(d, local, rows, cols, tuning);
        ASSERT_GE(row.parts, 1u);
        ASSERT_GE(row.part_length * row.parts, cols);
        for (std::size_t part = 0; part < row.parts; ++part) {
          const std::size_t begin = std::min(cols, part * row.part_length);
          const std::size_t length = std::min(cols, begin + row.part_length) - begin;
          EXPECT_EQ(coverage(row, row.lanes, length), std::vector<int>(length, 1)) << rows << " x " << cols;
        }
        const auto col = col_reduction_layout(d, local, rows, cols, tuning);
        ASSERT_GE(col.parts, 1u);
        // Every column in one block of `lanes` (columns_per_item per item in column blocks).
        const std::size_t per_block = col.columns_per_item > 1 ? col.local * col.columns_per_item : col.lanes;
        EXPECT_GE(col.col_blocks * per_block, cols) << rows << " x " << cols;
        // Every row of a column once over all parts, consecutive or interleaved (trace_col_partials'
        // loop: part p from p * part_length below p * part_length + part_extent).
        const std::size_t row_lanes = col.columns_per_item > 1 ? 1 : col.local / col.lanes;
        std::vector<int> taken(rows, 0);
        for (std::size_t part = 0; part < col.parts; ++part) {
          const std::size_t begin = part * col.part_length;
          const std::size_t end = std::min(rows, begin + col.part_extent);
          for (std::size_t lane = 0; lane < row_lanes; ++lane) {
            const std::size_t first = begin + lane * col.chunk;
            const std::size_t last = std::min(end, first + col.span);
            for (std::size_t row = first; row < last; row += col.step) ++taken[row];
          }
        }
        EXPECT_EQ(taken, std::vector<int>(rows, 1)) << rows << " x " << cols;
      }
}

// The benchmark's shapes (issue 14), 2^24 and 2^26 floats: few outputs with long reductions,
// many with short ones, 1 x N and N x 1.
const std::vector<std::pair<std::size_t, std::size_t>> bandwidth_shapes = {
    {4096, 4096}, {256, 65536}, {65536, 256}, {1, 1u << 24}, {1u << 24, 1},
    {8192, 8192}, {1024, 65536}, {65536, 1024}, {1, 1u << 26}, {1u << 26, 1}};

const rt::device_info h200 = device(rt::device_type::gpu, 132);
const rt::device_info pocl = device(rt::device_type::cpu, 2);

/// Work-groups of stage 1.
std::size_t stage_one_groups(const reduction_layout& layout) { return layout.groups * layout.parts; }

TEST(reduction_layout, a_tuning_parses_every_key_and_names_a_bad_one) {
  EXPECT_EQ(parse_reduction_tuning(""), reduction_tuning{});
  const auto t = parse_reduction_tuning("row_groups=4,col_groups=16,row_unroll=8,col_unroll=2,row_min_terms=32,col_width=32");
  EXPECT_EQ(t.row_groups, 4u);
  EXPECT_EQ(t.col_groups, 16u);
  EXPECT_EQ(t.row_unroll, 8u);
  EXPECT_EQ(t.col_unroll, 2u);
  EXPECT_EQ(t.row_min_terms, 32u);
  EXPECT_EQ(t.col_width, 32u);
  for (const char* bad : {"rows=4", "row_groups", "row_groups=0", "row_groups=x", "col_width=48", "row_unroll=32"}) {
    try {
      parse_reduction_tuning(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const tessera::runtime::argument_error& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
}

TEST(reduction_layout, a_tuning_sets_the_gpu_groups_and_columns_per_group) {
  const auto narrow = parse_reduction_tuning("col_width=32,col_groups=4,row_groups=4,row_min_terms=32");
  const auto col = col_reduction_layout(h200, 256, 8192, 8192, narrow);
  EXPECT_EQ(col.lanes, 32u);
  EXPECT_LE(stage_one_groups(col), 4u * 132);
  const auto row = row_reduction_layout(h200, 256, 65536, 1024, narrow);
  EXPECT_EQ(row.lanes, 32u);  // 1024 / 32 terms per lane
  const auto one_row = row_reduction_layout(h200, 256, 1, std::size_t{1} << 26, narrow);
  EXPECT_EQ(stage_one_groups(one_row), 4u * 132);
  // A CPU device ignores it.
  EXPECT_EQ(col_reduction_layout(pocl, 256, 8192, 8192, narrow).columns_per_item,
            col_reduction_layout(pocl, 256, 8192, 8192, defaults).columns_per_item);
}

TEST(reduction_layout, a_gpu_gets_the_groups_its_tuning_aims_for_at_every_shape) {
  for (const auto& tuning : tunings)
    for (auto [rows, cols] : bandwidth_shapes) {
      const auto row = row_reduction_layout(h200, 256, rows, cols, tuning);
      const auto col = col_reduction_layout(h200, 256, rows, cols, tuning);
      const std::size_t row_aim = target_groups(h200, tuning.row_groups);
      const std::size_t col_aim = target_groups(h200, tuning.col_groups);
      // At least two per compute unit, and half the aim: parts per output are rounded down
      // (256 x 65536 under 4 per unit: 256 rows of 2 parts, 512 of 528), which loses less than half.
      EXPECT_GE(stage_one_groups(row), std::max<std::size_t>(row_aim / 2, 2u * 132)) << "rows " << rows << " x " << cols;
      EXPECT_GE(stage_one_groups(col), std::max<std::size_t>(col_aim / 2, 2u * 132)) << "columns " << rows << " x " << cols;
      // Split outputs fit one wave of the aimed-for groups: a second wave would be mostly empty.
      if (row.parts > 1) {
        EXPECT_LE(stage_one_groups(row), row_aim) << rows << " x " << cols;
      }
      if (col.parts > 1) {
        EXPECT_LE(stage_one_groups(col), col_aim) << rows << " x " << cols;
      }
    }
  EXPECT_GE(full_reduction_layout(h200, 256, std::size_t{1} << 24).groups, 4u * 132);
}

TEST(reduction_layout, few_outputs_with_many_parts_get_a_wide_finishing_pass_on_a_gpu) {
  const auto one_row = row_reduction_layout(h200, 256, 1, std::size_t{1} << 26, defaults);
  EXPECT_GE(one_row.parts, 4u * 132);
  EXPECT_GE(one_row.final_lanes * 8, one_row.parts);  // at most about eight partials per item
  const auto one_col = col_reduction_layout(h200, 256, std::size_t{1} << 26, 1, defaults);
  EXPECT_GE(one_col.parts, 4u * 132);
  EXPECT_GE(one_col.final_lanes * 8, one_col.parts);
  const auto tall = col_reduction_layout(h200, 256, 65536, 256, defaults);
  EXPECT_GE(tall.final_lanes * 8, tall.parts);
}

TEST(reduction_layout, gpu_reads_are_coalesced) {
  for (auto [rows, cols] : bandwidth_shapes) {
    const auto row = row_reduction_layout(h200, 256, rows, cols, defaults);
    // A row's lanes read neighbouring columns: on rows of 256 or more, at least 16 of them (64
    // bytes, two whole 32-byte sectors; a warp's other lanes read the next row the same way).
    EXPECT_EQ(row.chunk, 1u);
    EXPECT_EQ(row.step, row.lanes);
    if (cols >= 256) {
      EXPECT_GE(row.lanes, 16u) << rows << " x " << cols;
    }
    // A column reduction's neighbouring items take neighbouring columns (all of them when
    // there are fewer than a warp, then neighbouring rows).
    const auto col = col_reduction_layout(h200, 256, rows, cols, defaults);
    if (col.columns_per_item == 1) {
      EXPECT_GE(col.lanes, std::min<std::size_t>(cols, 32)) << rows << " x " << cols;
      EXPECT_EQ(col.chunk, 1u);
      // Several parts of groups with a warp of row lanes or more interleave (reduction_layout::part_extent).
      const std::size_t row_lanes = 256 / col.lanes;
      EXPECT_EQ(col.step, col.parts > 1 && row_lanes >= 32 ? col.parts * row_lanes : row_lanes) << rows << " x " << cols;
    } else {  // many short columns: an item's columns a grid apart
      EXPECT_EQ(col.first_col_step, 1u);
      EXPECT_EQ(col.col_step, col.groups * col.local) << rows << " x " << cols;
    }
  }
}

TEST(reduction_layout, a_cpu_device_gets_contiguous_blocks_and_fills_its_cores) {
  for (auto [rows, cols] : bandwidth_shapes) {
    const auto row = row_reduction_layout(pocl, 256, rows, cols, defaults);
    EXPECT_EQ(row.lanes, 1u);
    EXPECT_EQ(row.step, 1u);
    EXPECT_GE(stage_one_groups(row), 4u * 2) << rows << " x " << cols;
    const auto col = col_reduction_layout(pocl, 256, rows, cols, defaults);
    EXPECT_EQ(col.step, 1u);
    EXPECT_EQ(col.columns_per_item > 1, cols >= 64) << rows << " x " << cols;
    EXPECT_GE(stage_one_groups(col), 4u * 2) << rows << " x " << cols;
    // Wide column blocks: one contiguous run of up to cpu_block_columns per row and item, in an
    // array of accumulators.
    if (cols >= 64) {
      EXPECT_TRUE(col.column_arrays) << rows << " x " << cols;
      EXPECT_EQ(col.columns_per_item, std::min<std::size_t>(cols, cpu_block_columns)) << rows << " x " << cols;
      EXPECT_EQ(col.first_col_step, col.columns_per_item);
    }
    EXPECT_FALSE(col_reduction_layout(h200, 256, rows, cols, defaults).column_arrays) << "a GPU's blocks are not";
  }
}

TEST(reduction_layout, outputs_with_one_part_need_no_finishing_pass) {
  // Many outputs fill the device alone: stage 1 writes the results (a copy's traffic).
  EXPECT_EQ(row_reduction_layout(h200, 256, std::size_t{1} << 24, 1, defaults).parts, 1u);
  EXPECT_EQ(col_reduction_layout(h200, 256, 1, std::size_t{1} << 24, defaults).parts, 1u);
  EXPECT_EQ(row_reduction_layout(pocl, 256, std::size_t{1} << 24, 1, defaults).parts, 1u);
  EXPECT_EQ(col_reduction_layout(pocl, 256, 1, std::size_t{1} << 24, defaults).parts, 1u);
}

TEST(reduction_layout, an_override_changes_the_layout_device_on_this_thread_only_while_alive) {
  const rt::device_info& actual = pocl;
  EXPECT_EQ(&layout_device(actual), &actual);
  {
    layout_device_override gpu(h200);
    EXPECT_EQ(layout_device(actual).type, rt::device_type::gpu);
    EXPECT_EQ(layout_device(actual).compute_units, 132u);
  }
  EXPECT_EQ(&layout_device(actual), &actual);
}

TEST(reduction_layout, column_blocks_take_every_column_once) {
  for (const auto& d : {h200, pocl})
    for (auto [rows, cols] : std::vector<std::pair<std::size_t, std::size_t>>{
             {3, 300007}, {1, std::size_t{1} << 24}, {4096, 4096}, {7, 100}}) {
      const auto layout = col_reduction_layout(d, 256, rows, cols, defaults);
      if (layout.columns_per_item == 1) continue;
      std::vector<int> taken(cols, 0);
      for (std::size_t item = 0; item < layout.groups * layout.local; ++item)
        for (std::size_t j = 0; j < layout.columns_per_item; ++j) {
          const std::size_t col = item * layout.first_col_step + j * layout.col_step;
          if (col < cols) ++taken[col];
        }
      EXPECT_EQ(taken, std::vector<int>(cols, 1)) << rows << " x " << cols;
    }
}

TEST(reduction_layout, single_terms_take_every_output_once_in_few_cpu_groups) {
  for (const auto& d : {h200, pocl})
    for (std::size_t outputs : {1u, 255u, 257u, 100003u, 1u << 24}) {
      const auto layout = single_term_layout(d, 256, outputs);
      std::vector<int> taken(outputs, 0);
      for (std::size_t item = 0; item < layout.groups * layout.local; ++item)
        for (std::size_t k = 0; k < layout.rows_per_item; ++k) {
          const std::size_t o = item * layout.first_row_step + k * layout.row_step;
          if (o < outputs) ++taken[o];
        }
      EXPECT_EQ(taken, std::vector<int>(outputs, 1)) << outputs;
      if (d.type == rt::device_type::cpu) {
        EXPECT_LE(layout.groups, 8u);
      }
    }
}

TEST(reduction_layout, an_index_divider_divides_every_32_bit_index_exactly) {
  // Divisors at every power of two and beside it, odd and random ones; indices at the ends of
  // the range, beside multiples of the divisor and random.
  std::mt19937_64 random(2026);
  std::vector<std::uint32_t> divisors = {1, 2, 3, 5, 7, 641, 1031, 22361, 65535, 65537, 0x7fffffffu, 0x80000000u,
                                         0x80000001u, 0xfffffffeu, 0xffffffffu};
  for (unsigned b = 1; b < 32; ++b)
    for (std::int64_t delta : {-1, 0, 1}) divisors.push_back(static_cast<std::uint32_t>((std::int64_t{1} << b) + delta));
  for (int k = 0; k < 200; ++k) divisors.push_back(static_cast<std::uint32_t>(random() % 0xffffffffu + 1));
  for (const std::uint32_t d : divisors) {
    const index_divider divider = make_index_divider(d);
    std::vector<std::uint32_t> xs = {0, 1, d - 1, d, 0xfffffffeu, 0xffffffffu};
    for (std::uint64_t m : {std::uint64_t{2}, std::uint64_t{3}, std::uint64_t{0xffffffffu} / d})
      for (std::int64_t delta : {-1, 0, 1}) {
        const std::int64_t x = static_cast<std::int64_t>(m * d) + delta;
        if (x >= 0 && x <= 0xffffffff) xs.push_back(static_cast<std::uint32_t>(x));
      }
    for (int k = 0; k < 2000; ++k) xs.push_back(static_cast<std::uint32_t>(random()));
    for (const std::uint32_t x : xs) ASSERT_EQ(divider.divide(x), x / d) << x << " / " << d;
  }
  EXPECT_THROW(make_index_divider(0), tessera::argument_error);
}

TEST(reduction_layout, stepping_indices_are_forced_on_this_thread_only_while_an_override_lives) {
  EXPECT_FALSE(stepping_indices_forced());
  {
    stepping_indices_override steps;
    EXPECT_TRUE(stepping_indices_forced());
    {
      stepping_indices_override again;
      EXPECT_TRUE(stepping_indices_forced());
    }
    EXPECT_TRUE(stepping_indices_forced());
  }
  EXPECT_FALSE(stepping_indices_forced());
}

}  // namespace
