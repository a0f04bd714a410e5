#pragma once
// Elementwise math functions: one table line each. A line gives the name (also the C++
// function), the OpenCL C of the argument $1 (and $2), the host form on x (and y) of type T
// (the test oracle), and whether f(0) == 0, which keeps a triangular view. They compute in
// floating point: int and bool arguments (indices, comparisons) are converted to float.
#include <cmath>
#include <utility>

#include <tessera/kernel_generator/unary_operation.hpp>

namespace tessera::kernel_generator {

// name,    OpenCL C,                 host,                               f(0) == 0
#define TESSERA_KERNEL_GENERATOR_UNARY_FUNCTIONS(X)                                  \
  X(exp,     "exp($1)",               std::exp(x),                        false)     \
  X(log,     "log($1)",               std::log(x),                        false)     \
  X(log1p,   "log1p($1)",             std::log1p(x),                      true)      \
  X(expm1,   "expm1($1)",             std::expm1(x),                      true)      \
  X(sqrt,    "sqrt($1)",              std::sqrt(x),                       true)      \
  X(cbrt,    "cbrt($1)",              std::cbrt(x),                       true)      \
  X(abs,     "fabs($1)",              std::abs(x),                        true)      \
  X(sin,     "sin($1)",               std::sin(x),                        true)      \
  X(cos,     "cos($1)",               std::cos(x),                        false)     \
  X(tan,     "tan($1)",               std::tan(x),                        true)      \
  X(tanh,    "tanh($1)",              std::tanh(x),                       true)      \
  X(sigmoid, "(1 / (1 + exp(-$1)))",  T(1) / (T(1) + std::exp(-x)),       false)     \
  X(relu,    "($1 > 0 ? $1 : 0)",     x > T(0) ? x : T(0),                true)      \
  X(floor,   "floor($1)",             std::floor(x),                      true)      \
  X(ceil,    "ceil($1)",              std::ceil(x),                       true)      \
  X(round,   "round($1)",             std::round(x),                      true)      \
  X(erf,     "erf($1)",               std::erf(x),                        true)      \
  X(lgamma,  "lgamma($1)",            std::lgamma(x),                     false)

// name,    OpenCL C,                 host,                               f(0, 0) == 0
#define TESSERA_KERNEL_GENERATOR_BINARY_FUNCTIONS(X)                                 \
  X(pow,     "pow($1, $2)",           std::pow(x, y),                     false)     \
  X(fmin,    "fmin($1, $2)",          std::fmin(x, y),                    true)      \
  X(fmax,    "fmax($1, $2)",          std::fmax(x, y),                    true)

#define TESSERA_KERNEL_GENERATOR_DEFINE_UNARY_FUNCTION(name_, opencl_, host_, keeps_zero_) \
  struct name_##_function : floating_result {                                                \
    static constexpr std::string_view name = #name_;                                         \
    static constexpr std::string_view opencl = opencl_;                                      \
    static constexpr bool keeps_zero = keeps_zero_;                                          \
    template <typename T>                                                                    \
    static T host(T x) {                                                                     \
      return host_;                                                                          \
    }                                                                                        \
  };                                                                                         \
  template <operand A>                                                                       \
  auto name_(A&& a) {                                                                        \
    return make_unary<name_##_function>(std::forward<A>(a));                                 \
  }
TESSERA_KERNEL_GENERATOR_UNARY_FUNCTIONS(TESSERA_KERNEL_GENERATOR_DEFINE_UNARY_FUNCTION)
#undef TESSERA_KERNEL_GENERATOR_DEFINE_UNARY_FUNCTION

#define TESSERA_KERNEL_GENERATOR_DEFINE_BINARY_FUNCTION(name_, opencl_, host_, keeps_zero_)    \
  struct name_##_function : floating_result {                                                   \
    static constexpr std::string_view name = #name_;                                            \
    static constexpr std::string_view opencl = opencl_;                                         \
    static matrix_view view(matrix_view a, matrix_view b) {                                     \
      return keeps_zero_ ? runtime::view_union(a, b) : matrix_view::entire;                     \
    }                                                                                           \
    template <typename X, typename Y>                                                           \
    static auto host(X x_in, Y y_in) {                                                          \
      using T = floating_t<promoted_t<X, Y>>;                                                   \
      const T x = static_cast<T>(x_in), y = static_cast<T>(y_in);                               \
      return host_;                                                                             \
    }                                                                                           \
  };                                                                                            \
  template <typename A, typename B>                                                             \
    requires binary_arguments<A, B>                                                             \
  auto name_(A&& a, B&& b) {                                                                    \
    return make_binary<name_##_function>(std::forward<A>(a), std::forward<B>(b));               \
  }
TESSERA_KERNEL_GENERATOR_BINARY_FUNCTIONS(TESSERA_KERNEL_GENERATOR_DEFINE_BINARY_FUNCTION)
#undef TESSERA_KERNEL_GENERATOR_DEFINE_BINARY_FUNCTION

/// The logistic function under the name Stan uses.
template <operand A>
auto inv_logit(A&& a) {
  return sigmoid(std::forward<A>(a));
}

}  // namespace tessera::kernel_generator
