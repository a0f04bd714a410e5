#include <tessera/runtime/error.hpp>
#include <tessera/unified/launch_checks.hpp>

#include <limits>

#include <fmt/format.h>

namespace tessera::unified::detail {

std::int64_t checked_extent(const char* operation, std::size_t extent) {
  if (extent > static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max()))
    throw argument_error(fmt::format("{}: size {} is negative or too large (a size_t that wrapped?)", operation,
                                     extent));
  return static_cast<std::int64_t>(extent);
}

std::int64_t checked_elements(const char* operation, dim<2> size) {
  const std::int64_t rows = checked_extent(operation, size[0]);
  const std::int64_t cols = checked_extent(operation, size[1]);
  if (rows != 0 && cols > std::numeric_limits<std::int64_t>::max() / rows)
    throw argument_error(fmt::format("{}: {} x {} elements overflow a 64-bit index", operation, rows, cols));
  return rows * cols;
}

void check_result(const char* operation, std::size_t available, std::size_t needed) {
  if (available < needed)
    throw argument_error(fmt::format("{}: the result array has {} elements, the reduction writes {}", operation,
                                     available, needed));
}

}  // namespace tessera::unified::detail
