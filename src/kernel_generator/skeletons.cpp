#include <tessera/kernel_generator/skeletons.hpp>

#include <algorithm>
#include <bit>

namespace tessera::kernel_generator {

runtime::launch_range elementwise_range(const runtime::kernel& kernel, index_t rows, index_t cols) {
  // A short matrix (a row vector) gets its work-items along the columns instead of the rows,
  // so none idle.
  const std::size_t limit = kernel.power_of_two_work_group(256);
  const auto r = static_cast<std::size_t>(rows), c = static_cast<std::size_t>(cols);
  const std::size_t local0 = std::min(limit, std::bit_ceil(r));
  const std::size_t local1 = std::min(limit / local0, std::bit_ceil(c));
  // At most 65535 work-groups in each of the second and third dimensions (NVIDIA's driver);
  // the kernel combines them into j. Balanced, so that few groups fall past the last column
  // (65536 columns as 65535 x 2 groups would launch twice the work).
  constexpr std::size_t max_groups = 65535;
  const std::size_t groups = (c + local1 - 1) / local1;
  const std::size_t groups2 = (groups + max_groups - 1) / max_groups;
  const std::size_t groups1 = (groups + groups2 - 1) / groups2;
  return {{runtime::round_up(r, local0), groups1 * local1, groups2}, {local0, local1, 1}, 3};
}

}  // namespace tessera::kernel_generator
