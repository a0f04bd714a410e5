// The OpenCL reductions' split of terms over work-items, for a GPU (interleaved items) and a
// CPU device (a block per item): every term is taken exactly once, whatever the sizes.
#include <gtest/gtest.h>

#include <vector>

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

TEST(reduction_layout, row_and_column_parts_take_every_term_once) {
  for (const auto& d : devices)
    for (std::size_t local : {64u, 256u})
      for (auto [rows, cols] : std::vector<std::pair<std::size_t, std::size_t>>{
               {1, 1}, {3, 100003}, {1000, 7}, {100003, 1}, {5, 0}, {0, 5}, {17, 300}}) {
        const auto row = row_reduction_layout(d, local, rows, cols);
        ASSERT_GE(row.parts, 1u);
        ASSERT_GE(row.part_length * row.parts, cols);
        for (std::size_t part = 0; part < row.parts; ++part) {
          const std::size_t begin = std::min(cols, part * row.part_length);
          const std::size_t length = std::min(cols, begin + row.part_length) - begin;
          EXPECT_EQ(coverage(row, row.lanes, length), std::vector<int>(length, 1)) << rows << " x " << cols;
        }
        const auto col = col_reduction_layout(d, local, rows, cols);
        ASSERT_GE(col.parts, 1u);
        ASSERT_GE(col.part_length * col.parts, rows);
        for (std::size_t part = 0; part < col.parts; ++part) {
          const std::size_t begin = std::min(rows, part * col.part_length);
          const std::size_t length = std::min(rows, begin + col.part_length) - begin;
          EXPECT_EQ(coverage(col, local / col.lanes, length), std::vector<int>(length, 1)) << rows << " x " << cols;
        }
      }
}

}  // namespace
