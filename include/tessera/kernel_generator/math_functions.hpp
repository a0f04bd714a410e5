#pragma once
// Elementwise math functions on expressions: every function of codegen's table
// (codegen/math_functions.hpp), each a C++ function here (`exp(a)`, `pow(a, 2)`). They compute
// in floating point: int and bool arguments (indices, comparisons) are converted to float.
// Adding a function is a line in codegen's table, not here.
#include <utility>

#include <tessera/codegen/math_functions.hpp>
#include <tessera/kernel_generator/unary_operation.hpp>

namespace tessera::kernel_generator {

/// A function of the table as an operation's Op: its OpenCL C, host form and view rule.
template <typename F>
struct math_function_op : floating_result {
  static constexpr std::string_view name = F::name;
  static constexpr std::string_view opencl = F::opencl;
  static constexpr bool keeps_zero = F::keeps_zero;
  template <typename T>
  static T host(T x) {
    return F::host(x);
  }
  static matrix_view view(matrix_view a, matrix_view b) {
    return keeps_zero ? runtime::view_union(a, b) : matrix_view::entire;
  }
  template <typename X, typename Y>
  static auto host(X x, Y y) {
    using T = floating_t<promoted_t<X, Y>>;
    return F::host(static_cast<T>(x), static_cast<T>(y));
  }
};

#define TESSERA_KERNEL_GENERATOR_UNARY_FUNCTION(name_, ...)                                  \
  template <operand A>                                                                         \
  auto name_(A&& a) {                                                                          \
    return make_unary<math_function_op<codegen::math::name_>>(std::forward<A>(a));             \
  }
TESSERA_UNARY_MATH_FUNCTIONS(TESSERA_KERNEL_GENERATOR_UNARY_FUNCTION)
#undef TESSERA_KERNEL_GENERATOR_UNARY_FUNCTION

#define TESSERA_KERNEL_GENERATOR_BINARY_FUNCTION(name_, ...)                                  \
  template <typename A, typename B>                                                           \
    requires binary_arguments<A, B>                                                           \
  auto name_(A&& a, B&& b) {                                                                  \
    return make_binary<math_function_op<codegen::math::name_>>(std::forward<A>(a), std::forward<B>(b)); \
  }
TESSERA_BINARY_MATH_FUNCTIONS(TESSERA_KERNEL_GENERATOR_BINARY_FUNCTION)
#undef TESSERA_KERNEL_GENERATOR_BINARY_FUNCTION

/// The logistic function under the name Stan uses.
template <operand A>
auto inv_logit(A&& a) {
  return sigmoid(std::forward<A>(a));
}

}  // namespace tessera::kernel_generator
