#include <tessera/kernel_generator/shape.hpp>

#include <climits>

#include <fmt/format.h>

namespace tessera::kernel_generator {

namespace {
std::string dimension_string(index_t n) { return n == any_size ? "any" : std::to_string(n); }
}  // namespace

std::string shape_string(index_t rows, index_t cols) {
  return dimension_string(rows) + "x" + dimension_string(cols);
}

shape common_shape(std::string_view operation, shape a, shape b) {
  const auto rows = common_dimension(a.rows, b.rows);
  const auto cols = common_dimension(a.cols, b.cols);
  if (!rows || !cols)
    throw argument_error(fmt::format("{}: the operands' shapes {} and {} differ", operation,
                                     shape_string(a.rows, a.cols), shape_string(b.rows, b.cols)));
  return {*rows, *cols};
}

int to_kernel_int(index_t value, std::string_view what) {
  if (value < INT_MIN || value > INT_MAX)
    throw argument_error(fmt::format("kernel generator: {} = {} does not fit the int kernels index with", what, value));
  return static_cast<int>(value);
}

}  // namespace tessera::kernel_generator
