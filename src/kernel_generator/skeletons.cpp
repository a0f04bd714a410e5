#include <tessera/kernel_generator/skeletons.hpp>

#include <algorithm>
#include <bit>

namespace tessera::kernel_generator {

namespace {
// At most 65535 work-groups in each of the second and third dimensions (NVIDIA's driver).
constexpr std::size_t max_groups = 65535;
// Results smaller than this take one element per work-item: they are launch-bound, and a
// split would leave compute units idle.
constexpr std::size_t least_split_elements = std::size_t{1} << 16;

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }
}  // namespace

elementwise_split choose_elementwise_split(const runtime::device_info& device, index_t rows, index_t cols) {
  const auto r = static_cast<std::size_t>(std::max<index_t>(rows, 0));
  const auto c = static_cast<std::size_t>(std::max<index_t>(cols, 0));
  if (r * c < least_split_elements) return elementwise_split::none;
  if (c >= static_cast<std::size_t>(elementwise_items)) return elementwise_split::columns;
  return device.type == runtime::device_type::cpu ? elementwise_split::none : elementwise_split::rows;
}

elementwise_launch plan_elementwise_launch(elementwise_split split, std::size_t work_group, index_t rows,
                                           index_t cols) {
  const auto items = static_cast<std::size_t>(elementwise_items);
  std::size_t r = static_cast<std::size_t>(rows), c = static_cast<std::size_t>(cols);
  if (split == elementwise_split::columns) c = ceil_div(c, items);
  if (split == elementwise_split::rows) r = ceil_div(r, items);
  // A short matrix (a row vector) gets its work-items along the columns instead of the rows,
  // so none idle.
  const std::size_t local0 = std::min(work_group, std::bit_ceil(r));
  const std::size_t local1 = std::min(work_group / local0, std::bit_ceil(c));
  // The columns' groups, balanced over the second and third dimensions so that few fall past
  // the last column (65536 columns as 65535 x 2 groups would launch twice the work).
  const std::size_t groups = ceil_div(c, local1);
  const std::size_t groups2 = ceil_div(groups, max_groups);
  const std::size_t groups1 = ceil_div(groups, groups2);
  elementwise_launch launch;
  launch.split = split;
  launch.range = {{runtime::round_up(r, local0), groups1 * local1, groups2}, {local0, local1, 1}, 3};
  // The launch's width along the split: the distance between one item's elements.
  if (split == elementwise_split::columns) launch.item_step = static_cast<int>(groups1 * local1 * groups2);
  if (split == elementwise_split::rows) launch.item_step = static_cast<int>(runtime::round_up(r, local0));
  return launch;
}

}  // namespace tessera::kernel_generator
