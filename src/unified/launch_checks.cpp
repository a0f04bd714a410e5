#include <tessera/runtime/checked_size.hpp>
#include <tessera/runtime/error.hpp>
#include <tessera/unified/launch_checks.hpp>

#include <fmt/format.h>

namespace tessera::unified::detail {

std::int64_t checked_extent(const char* operation, std::size_t extent) {
  return runtime::checked_size(extent, "size", operation);
}

std::int64_t checked_elements(const char* operation, dim<2> size) {
  const std::int64_t rows = runtime::checked_size(size[0], "rows", operation);
  const std::int64_t cols = runtime::checked_size(size[1], "columns", operation);
  return runtime::checked_product(rows, cols, "rows x columns", operation);
}

void check_result(const char* operation, std::size_t available, std::size_t needed) {
  if (available < needed)
    throw argument_error(fmt::format("{}: the result array has {} elements, the reduction writes {}", operation,
                                     available, needed));
}

}  // namespace tessera::unified::detail
