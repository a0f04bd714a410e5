#pragma once
// The one table of elementwise math functions. The kernel generator (`exp(a)` on matrices),
// the unified kernels (`exp(x[i])` in a lambda) and Tile (`O = exp(A);`) all take their
// functions from it, so each offers every function below.
//
// Adding a function is one line in one of the two lists: its name (the C++ and Tile name), its
// OpenCL C (one call or one parenthesized whole, so that it reads as a single operand wherever
// it lands; $1 and $2 stand for the arguments, filled by codegen::substitute), its host form on
// x (and y) of a floating type T (the tests' oracle, Tile's interpreter, unified kernels on the
// host), whether f(0) == 0 (f(0, 0) == 0: a kernel-generator result then keeps its arguments'
// triangular view), the interval random test data is drawn from for each argument, and notes
// on the domain. tests/codegen/math_functions_test.cpp walks the table and checks each line in
// every front door, so the new line is tested with nothing else to write.
#include <cmath>
#include <cstddef>
#include <span>
#include <string_view>

// name      OpenCL C                  host                              f(0)=0  x domain       notes
#define TESSERA_UNARY_MATH_FUNCTIONS(X)                                                                        \
  X(exp,      "exp($1)",                std::exp(x),                      false,  -5,    5,      "")            \
  X(exp2,     "exp2($1)",               std::exp2(x),                     false,  -5,    5,      "")            \
  X(expm1,    "expm1($1)",              std::expm1(x),                    true,   -3,    3,      "")            \
  X(log,      "log($1)",                std::log(x),                      false,  0.01,  10,     "x > 0")       \
  X(log2,     "log2($1)",               std::log2(x),                     false,  0.01,  10,     "x > 0")       \
  X(log10,    "log10($1)",              std::log10(x),                    false,  0.01,  10,     "x > 0")       \
  X(log1p,    "log1p($1)",              std::log1p(x),                    true,   -0.5,  5,      "x > -1")      \
  X(sqrt,     "sqrt($1)",               std::sqrt(x),                     true,   0,     10,     "x >= 0")      \
  X(cbrt,     "cbrt($1)",               std::cbrt(x),                     true,   -10,   10,     "")            \
  X(abs,      "fabs($1)",               std::abs(x),                      true,   -10,   10,     "")            \
  X(sin,      "sin($1)",                std::sin(x),                      true,   -3,    3,      "")            \
  X(cos,      "cos($1)",                std::cos(x),                      false,  -3,    3,      "")            \
  X(tan,      "tan($1)",                std::tan(x),                      true,   -1.5,  1.5,    "poles at odd multiples of pi/2") \
  X(asin,     "asin($1)",               std::asin(x),                     true,   -1,    1,      "-1 <= x <= 1") \
  X(acos,     "acos($1)",               std::acos(x),                     false,  -1,    1,      "-1 <= x <= 1") \
  X(atan,     "atan($1)",               std::atan(x),                     true,   -10,   10,     "")            \
  X(sinh,     "sinh($1)",               std::sinh(x),                     true,   -5,    5,      "")            \
  X(cosh,     "cosh($1)",               std::cosh(x),                     false,  -5,    5,      "")            \
  X(tanh,     "tanh($1)",               std::tanh(x),                     true,   -5,    5,      "")            \
  X(sigmoid,  "(1 / (1 + exp(-$1)))",   T(1) / (T(1) + std::exp(-x)),     false,  -20,   20,     "the logistic function") \
  X(relu,     "($1 > 0 ? $1 : 0)",      x > T(0) ? x : T(0),              true,   -2,    2,      "max(x, 0)")   \
  X(floor,    "floor($1)",              std::floor(x),                    true,   -10,   10,     "")            \
  X(ceil,     "ceil($1)",               std::ceil(x),                     true,   -10,   10,     "")            \
  X(round,    "round($1)",              std::round(x),                    true,   -10,   10,     "halfway cases away from zero") \
  X(trunc,    "trunc($1)",              std::trunc(x),                    true,   -10,   10,     "")            \
  X(erf,      "erf($1)",                std::erf(x),                      true,   -3,    3,      "")            \
  X(erfc,     "erfc($1)",               std::erfc(x),                     false,  -3,    3,      "")            \
  X(lgamma,   "lgamma($1)",             std::lgamma(x),                   false,  0.1,   10,     "poles at 0, -1, -2, ...")

// name      OpenCL C                  host                              f(0,0)=0 x domain    y domain   notes
#define TESSERA_BINARY_MATH_FUNCTIONS(X)                                                                       \
  X(pow,      "pow($1, $2)",            std::pow(x, y),                   false,  0.1, 3,    -3, 3,     "x > 0 (a negative x needs an integral y)") \
  X(fmin,     "fmin($1, $2)",           std::fmin(x, y),                  true,   -1,  1,    -1, 1,     "")     \
  X(fmax,     "fmax($1, $2)",           std::fmax(x, y),                  true,   -1,  1,    -1, 1,     "")     \
  X(atan2,    "atan2($1, $2)",          std::atan2(x, y),                 true,   -1,  1,    -1, 1,     "")     \
  X(fmod,     "fmod($1, $2)",           std::fmod(x, y),                  false,  -10, 10,   0.5, 3,    "y != 0") \
  X(hypot,    "hypot($1, $2)",          std::hypot(x, y),                 true,   -10, 10,   -10, 10,   "")     \
  X(copysign, "copysign($1, $2)",       std::copysign(x, y),              true,   -10, 10,   -10, 10,   "")

namespace tessera::codegen {

/// The interval [low, high) test data for an argument is drawn from.
struct math_domain {
  double low = 0, high = 0;
};

/// One line of the table, for front doors that look functions up by name (Tile).
struct math_function {
  std::string_view name;
  std::size_t arity;
  std::string_view opencl;  // $1, $2: the arguments
  bool keeps_zero;          // f(0) == 0, or f(0, 0) == 0
  double (*host)(double x, double y);  // y is ignored by functions of one argument
  math_domain x, y;                     // y: empty for functions of one argument
  std::string_view notes;
};

/// Every function, unary ones first, in the order of the lists.
std::span<const math_function> math_functions();

/// The function named name, or nullptr.
const math_function* find_math_function(std::string_view name);

/// The same facts as types, one per function, for front doors that offer the functions as C++
/// functions (the kernel generator, unified kernels): math::exp::opencl, math::exp::host(x).
namespace math {
#define TESSERA_CODEGEN_UNARY_MATH_FUNCTION(name_, opencl_, host_, keeps_zero_, low_, high_, notes_) \
  struct name_ {                                                                                        \
    static constexpr std::string_view name = #name_;                                                    \
    static constexpr std::size_t arity = 1;                                                             \
    static constexpr std::string_view opencl = opencl_;                                                 \
    static constexpr bool keeps_zero = keeps_zero_;                                                     \
    static constexpr math_domain x_domain{low_, high_};                                                 \
    template <typename T>                                                                               \
    static T host(T x) {                                                                                \
      return host_;                                                                                     \
    }                                                                                                   \
  };
TESSERA_UNARY_MATH_FUNCTIONS(TESSERA_CODEGEN_UNARY_MATH_FUNCTION)
#undef TESSERA_CODEGEN_UNARY_MATH_FUNCTION

#define TESSERA_CODEGEN_BINARY_MATH_FUNCTION(name_, opencl_, host_, keeps_zero_, x_low_, x_high_, y_low_, y_high_, \
                                             notes_)                                                                \
  struct name_ {                                                                                                    \
    static constexpr std::string_view name = #name_;                                                                \
    static constexpr std::size_t arity = 2;                                                                         \
    static constexpr std::string_view opencl = opencl_;                                                             \
    static constexpr bool keeps_zero = keeps_zero_;                                                                 \
    static constexpr math_domain x_domain{x_low_, x_high_}, y_domain{y_low_, y_high_};                              \
    template <typename T>                                                                                           \
    static T host(T x, T y) {                                                                                       \
      return host_;                                                                                                 \
    }                                                                                                               \
  };
TESSERA_BINARY_MATH_FUNCTIONS(TESSERA_CODEGEN_BINARY_MATH_FUNCTION)
#undef TESSERA_CODEGEN_BINARY_MATH_FUNCTION
}  // namespace math

}  // namespace tessera::codegen
