#pragma once
// Math in kernels: one name for host scalars and symbolic values (OpenCL C). For symbolic
// values argument-dependent lookup finds these; on the host, kernel code calls them
// unqualified with `using namespace tessera::unified;` in scope (or qualified as
// tessera::unified::sqrt), so that both backends run the same function.
//
// Result types follow the host: sqrt of an int is a double, max(float, double) is a double.
// The functions are codegen's table (adding one is a line there); min, max, select and the
// rest below are unified kernels' own.
#include <cmath>
#include <cstdlib>
#include <type_traits>
#include <utility>

#include <tessera/codegen/math_functions.hpp>
#include <tessera/codegen/substitute.hpp>

#include <tessera/unified/symbolic.hpp>

namespace tessera::unified {

namespace detail {
/// The type a math function computes in for arguments of these types, by C++'s rule (the
/// <cmath> overloads): integers compute in double, float stays float.
template <typename A>
using math_result_t = decltype(std::fabs(std::declval<A>()));
template <typename A, typename B>
using math_result2_t = decltype(std::fmin(std::declval<A>(), std::declval<B>()));

/// Records codegen's pattern F::opencl on the argument(s) converted to R, as a constant of type R.
template <typename F, kernel_value R, typename A>
traced<R> table_call(A&& a) {
  auto trace = common_trace(a);
  std::string text = converted_text<R>(*trace, std::forward<A>(a));
  return make_constant<R>(trace, codegen::substitute(F::opencl, text));
}
template <typename F, kernel_value R, typename A, typename B>
traced<R> table_call(A&& a, B&& b) {
  auto trace = common_trace(a, b);
  std::string left = converted_text<R>(*trace, std::forward<A>(a));
  std::string right = converted_text<R>(*trace, std::forward<B>(b));
  return make_constant<R>(trace, codegen::substitute(F::opencl, left, right));
}
}  // namespace detail

// Every function of codegen's table (codegen/math_functions.hpp), on host scalars and on
// symbolic values alike.
#define TESSERA_UNIFIED_UNARY_FUNCTION(name_, ...)                                                   \
  template <host_operand A>                                                                          \
  auto name_(A a) {                                                                                  \
    using result = detail::math_result_t<A>;                                                        \
    return codegen::math::name_::host(static_cast<result>(a));                                       \
  }                                                                                                  \
  template <symbolic_operand A>                                                                      \
  auto name_(A&& a) {                                                                                \
    return detail::table_call<codegen::math::name_, detail::math_result_t<operand_value_t<A>>>(std::forward<A>(a)); \
  }
TESSERA_UNARY_MATH_FUNCTIONS(TESSERA_UNIFIED_UNARY_FUNCTION)
#undef TESSERA_UNIFIED_UNARY_FUNCTION

#define TESSERA_UNIFIED_BINARY_FUNCTION(name_, ...)                                                  \
  template <host_operand A, host_operand B>                                                          \
  auto name_(A a, B b) {                                                                             \
    using result = detail::math_result2_t<A, B>;                                                      \
    return codegen::math::name_::host(static_cast<result>(a), static_cast<result>(b));               \
  }                                                                                                  \
  template <typename A, typename B>                                                                  \
    requires symbolic_pair<A, B>                                                                     \
  auto name_(A&& a, B&& b) {                                                                         \
    using result = detail::math_result2_t<operand_value_t<A>, operand_value_t<B>>;                    \
    return detail::table_call<codegen::math::name_, result>(std::forward<A>(a), std::forward<B>(b)); \
  }
TESSERA_BINARY_MATH_FUNCTIONS(TESSERA_UNIFIED_BINARY_FUNCTION)
#undef TESSERA_UNIFIED_BINARY_FUNCTION

/// |a| of an integer keeps its type, as std::abs does (the table's abs computes in floating
/// point; these overloads are the more constrained, so integers take them).
template <host_operand A>
  requires std::integral<A>
auto abs(A a) {
  if constexpr (std::is_unsigned_v<A>) return a;
  else return std::abs(a);
}
template <symbolic_operand A>
  requires std::integral<operand_value_t<A>> && (!std::is_same_v<operand_value_t<A>, bool>)
auto abs(A&& a) {
  using value = operand_value_t<A>;
  auto trace = detail::common_trace(a);
  if constexpr (std::is_unsigned_v<value>) {
    return detail::make_constant<value>(trace, detail::text_of(*trace, std::forward<A>(a)));
  } else {
    // OpenCL C's abs of a signed integer is unsigned: converted back, as std::abs keeps the type.
    using result = decltype(std::abs(std::declval<value>()));
    std::string text = detail::converted_text<result>(*trace, std::forward<A>(a));
    return detail::make_constant<result>(
        trace, "((" + std::string(trace->template type_name<result>()) + ")abs(" + text + "))");
  }
}

/// The larger of a and b in their common type, with std::max's rule: a unless a < b.
template <host_operand A, host_operand B>
auto max(A a, B b) {
  using common = std::common_type_t<A, B>;
  return static_cast<common>(a) < static_cast<common>(b) ? static_cast<common>(b) : static_cast<common>(a);
}
/// The smaller of a and b in their common type, with std::min's rule: a unless b < a.
template <host_operand A, host_operand B>
auto min(A a, B b) {
  using common = std::common_type_t<A, B>;
  return static_cast<common>(b) < static_cast<common>(a) ? static_cast<common>(b) : static_cast<common>(a);
}
template <typename A, typename B>
  requires symbolic_pair<A, B>
auto max(A&& a, B&& b) {
  using common = std::common_type_t<operand_value_t<A>, operand_value_t<B>>;
  auto trace = detail::common_trace(a, b);
  std::string left = detail::converted_text<common>(*trace, std::forward<A>(a));
  std::string right = detail::converted_text<common>(*trace, std::forward<B>(b));
  return detail::make_constant<common>(trace, "((" + left + " < " + right + ") ? " + right + " : " + left + ")");
}
template <typename A, typename B>
  requires symbolic_pair<A, B>
auto min(A&& a, B&& b) {
  using common = std::common_type_t<operand_value_t<A>, operand_value_t<B>>;
  auto trace = detail::common_trace(a, b);
  std::string left = detail::converted_text<common>(*trace, std::forward<A>(a));
  std::string right = detail::converted_text<common>(*trace, std::forward<B>(b));
  return detail::make_constant<common>(trace, "((" + right + " < " + left + ") ? " + right + " : " + left + ")");
}

/// cond ? a : b in the common type of a and b. All three are evaluated on both backends
/// (they are arguments), so a guarded read belongs in if_, not here.
template <host_operand C, host_operand A, host_operand B>
auto select(C cond, A a, B b) {
  using common = std::common_type_t<A, B>;
  return cond ? static_cast<common>(a) : static_cast<common>(b);
}
template <operand C, operand A, operand B>
  requires(symbolic_operand<C> || symbolic_operand<A> || symbolic_operand<B>)
auto select(C&& cond, A&& a, B&& b) {
  using common = std::common_type_t<operand_value_t<A>, operand_value_t<B>>;
  auto trace = detail::common_trace(cond, a, b);
  std::string c = detail::text_of(*trace, std::forward<C>(cond));
  std::string left = detail::converted_text<common>(*trace, std::forward<A>(a));
  std::string right = detail::converted_text<common>(*trace, std::forward<B>(b));
  return detail::make_constant<common>(trace, "(" + c + " ? " + left + " : " + right + ")");
}

/// a / b, or zero where b is zero (CG's rho / beta when a right-hand side has converged).
template <host_operand A, host_operand B>
auto safe_divide(A a, B b) {
  using result = decltype(a / b);
  return b == B(0) ? result(0) : static_cast<result>(a / b);
}
template <typename A, typename B>
  requires symbolic_pair<A, B> && requires(operand_value_t<A> a, operand_value_t<B> b) { a / b; }
auto safe_divide(A&& a, B&& b) {
  using result = decltype(std::declval<operand_value_t<A>>() / std::declval<operand_value_t<B>>());
  auto trace = detail::common_trace(a, b);
  std::string left = detail::converted_text<result>(*trace, std::forward<A>(a));
  std::string right = detail::converted_text<result>(*trace, std::forward<B>(b));
  // The conditional operator evaluates only the chosen side: no division by zero happens.
  return detail::make_constant<result>(trace, "((" + right + " == " + detail::literal<result>(result(0)) + ") ? " +
                                                  detail::literal<result>(result(0)) + " : (" + left + " / " +
                                                  right + "))");
}

/// Whether a is not zero.
template <host_operand A>
bool is_nonzero(A a) {
  return a != A(0);
}
template <symbolic_operand A>
traced<bool> is_nonzero(A&& a) {
  using value = operand_value_t<A>;
  return std::forward<A>(a) != value(0);
}
/// Whether a is zero.
template <host_operand A>
bool is_zero(A a) {
  return a == A(0);
}
template <symbolic_operand A>
traced<bool> is_zero(A&& a) {
  using value = operand_value_t<A>;
  return std::forward<A>(a) == value(0);
}

/// a converted to T, as static_cast<T> does on the host.
template <kernel_value T, host_operand A>
T cast(A a) {
  return static_cast<T>(a);
}
template <kernel_value T, symbolic_operand A>
traced<T> cast(A&& a) {
  auto trace = detail::common_trace(a);
  std::string text = detail::converted_text<T>(*trace, std::forward<A>(a));
  return detail::make_constant<T>(trace, text);
}

/// Zero and one of an operand's type (see accessors.hpp for zero(x) of an argument).
template <host_operand A>
auto zero(A) {
  return A(0);
}
template <host_operand A>
auto one(A) {
  return A(1);
}
template <symbolic_operand A>
auto zero(const A& a) {
  return detail::make_literal(a.trace(), operand_value_t<A>(0));
}
template <symbolic_operand A>
auto one(const A& a) {
  return detail::make_literal(a.trace(), operand_value_t<A>(1));
}

}  // namespace tessera::unified
