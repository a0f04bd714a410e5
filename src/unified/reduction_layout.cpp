#include <tessera/unified/reduction_layout.hpp>

#include <algorithm>
#include <bit>

namespace tessera::unified {

namespace {

std::size_t ceil_div(std::size_t a, std::size_t b) { return a / b + (a % b != 0); }

// Enough work-groups to keep every compute unit busy: a GPU hides memory latency with
// several resident groups per unit; a CPU device runs one group per core at a time.
std::size_t target_groups(const runtime::device_info& device) {
  const std::size_t units = std::max<std::size_t>(device.compute_units, 1);
  return device.type == runtime::device_type::gpu ? 8 * units : 4 * units;
}

// `items` work-items share `length` terms.
void share_terms(reduction_layout& out, const runtime::device_info& device, std::size_t items, std::size_t length) {
  if (device.type == runtime::device_type::cpu) {
    out.chunk = std::max<std::size_t>(ceil_div(length, items), 1);
    out.span = out.chunk;
    out.step = 1;
  } else {
    out.chunk = 1;
    out.span = length;
    out.step = items;
  }
}

}  // namespace

reduction_layout full_reduction_layout(const runtime::device_info& device, std::size_t local, std::size_t n) {
  reduction_layout out;
  out.local = local;
  out.groups = std::clamp<std::size_t>(ceil_div(n, local), 1, target_groups(device));
  out.parts = out.groups;
  share_terms(out, device, out.groups * local, n);
  return out;
}

reduction_layout row_reduction_layout(const runtime::device_info& device, std::size_t local, std::size_t rows,
                                      std::size_t cols) {
  reduction_layout out;
  out.local = local;
  out.lanes = std::min(local, std::bit_ceil(std::max<std::size_t>(cols, 1)));
  out.groups = ceil_div(rows, local / out.lanes);
  const std::size_t target = target_groups(device);
  if (out.groups > 0 && out.groups < target && cols > out.lanes)
    out.parts = std::min(ceil_div(target, out.groups), ceil_div(cols, out.lanes));
  out.part_length = ceil_div(cols, out.parts);
  share_terms(out, device, out.lanes, out.part_length);
  return out;
}

reduction_layout col_reduction_layout(const runtime::device_info& device, std::size_t local, std::size_t rows,
                                      std::size_t cols) {
  reduction_layout out;
  out.local = local;
  out.lanes = std::min(local, std::bit_ceil(std::max<std::size_t>(cols, 1)));
  const std::size_t row_lanes = local / out.lanes;
  out.groups = ceil_div(cols, out.lanes);
  const std::size_t target = target_groups(device);
  if (out.groups > 0 && out.groups < target && rows > row_lanes)
    out.parts = std::min(ceil_div(target, out.groups), ceil_div(rows, row_lanes));
  out.part_length = ceil_div(rows, out.parts);
  share_terms(out, device, row_lanes, out.part_length);
  return out;
}

}  // namespace tessera::unified
