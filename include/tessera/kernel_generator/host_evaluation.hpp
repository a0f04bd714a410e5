#pragma once
// Evaluating an expression on the host, element by element, with the same operations in the
// same precision: the oracle the tests compare kernels with.
#include <vector>

#include <tessera/kernel_generator/as_operation.hpp>

namespace tessera::kernel_generator {

/// A column-major host matrix.
template <typename T>
struct host_matrix {
  index_t rows = 0;
  index_t cols = 0;
  std::vector<T> values;
  T operator()(index_t i, index_t j) const { return values[static_cast<std::size_t>(i + j * rows)]; }
};

/// The expression's value as a host matrix of T. rows and cols give the shape of an
/// expression that adapts to its partner (broadcasts, host numbers); otherwise ignored.
template <typename T, operand Expression>
host_matrix<T> host_evaluate(const Expression& expression, index_t rows = any_size, index_t cols = any_size) {
  const auto& e = as_operation(expression);
  host_matrix<T> result;
  result.rows = e.rows() == any_size ? rows : e.rows();
  result.cols = e.cols() == any_size ? cols : e.cols();
  if (result.rows < 0 || result.cols < 0)
    throw argument_error("host_evaluate: the expression has no shape of its own (" +
                         shape_string(result.rows, result.cols) + "); pass one");
  e.prepare_host();
  result.values.resize(static_cast<std::size_t>(result.rows * result.cols));
  for (index_t j = 0; j < result.cols; ++j)
    for (index_t i = 0; i < result.rows; ++i)
      result.values[static_cast<std::size_t>(i + j * result.rows)] = static_cast<T>(e.host_value(i, j));
  return result;
}

}  // namespace tessera::kernel_generator
