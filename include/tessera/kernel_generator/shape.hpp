#pragma once
// Shapes of expressions. A dimension may be any_size: scalars and broadcasts adapt to
// whatever their partner has, so `a + 2` and `a + rowwise_broadcast(v)` take a's shape.
#include <optional>
#include <string>
#include <string_view>

#include <tessera/runtime/matrix.hpp>

namespace tessera::kernel_generator {

using runtime::index_t;

inline constexpr index_t any_size = -1;

/// "3x4"; a dimension that adapts prints as "any" ("anyx4").
std::string shape_string(index_t rows, index_t cols);

/// The dimension two operands share (any_size adapts to the other); nullopt when they differ.
constexpr std::optional<index_t> common_dimension(index_t a, index_t b) {
  if (a == any_size) return b;
  if (b == any_size || a == b) return a;
  return std::nullopt;
}

/// The shape both operands of `operation` share; throws argument_error naming the
/// operation and both shapes when they differ.
struct shape {
  index_t rows = any_size;
  index_t cols = any_size;
};
shape common_shape(std::string_view operation, shape a, shape b);

/// Throws argument_error unless index fits the int the kernels compute with.
int to_kernel_int(index_t value, std::string_view what);

}  // namespace tessera::kernel_generator
