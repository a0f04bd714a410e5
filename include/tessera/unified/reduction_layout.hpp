#pragma once
// How an OpenCL reduction is split into work-groups. Chosen from the sizes and the device
// alone, so a reduction adds its terms in the same order every time on a given device: the
// results are deterministic for a device and a size.
#include <cstddef>

#include <tessera/runtime/device.hpp>

namespace tessera::unified {

struct reduction_layout {
  std::size_t local = 1;        // work-items per group, a power of two
  std::size_t groups = 1;       // work-groups along dimension 0
  std::size_t parts = 1;        // partial results per output (work-groups along dimension 1)
  std::size_t lanes = 1;        // row reduction: work-items per row; column: columns per group
  std::size_t part_length = 0;  // row reduction: columns per part; column: rows per part
  // Which terms a work-item takes within its group's range: from base + index * chunk, below
  // first + span, every step-th. A GPU interleaves its items (chunk 1, step = items), so that
  // neighbours read neighbouring memory; a CPU device gives each item a contiguous block
  // (step 1), since it runs a group's items one after another and interleaving would make
  // each of them read every cache line.
  std::size_t chunk = 1;
  std::size_t span = 0;
  std::size_t step = 1;
};

/// 1-D and 2-D reductions of n terms: `groups` partial results, each a group's grid-stride sum.
reduction_layout full_reduction_layout(const runtime::device_info& device, std::size_t local, std::size_t n);
/// One result per row, reducing over columns.
reduction_layout row_reduction_layout(const runtime::device_info& device, std::size_t local, std::size_t rows,
                                      std::size_t cols);
/// One result per column, reducing over rows.
reduction_layout col_reduction_layout(const runtime::device_info& device, std::size_t local, std::size_t rows,
                                      std::size_t cols);

}  // namespace tessera::unified
