#pragma once
// Math in kernels: one name for host scalars (std:: functions) and symbolic values (OpenCL C
// built-ins). For symbolic values argument-dependent lookup finds these; on the host, kernel
// code calls them unqualified with `using namespace tessera::unified;` in scope (or qualified
// as tessera::unified::sqrt), so that both backends run the same function.
//
// Result types follow the host: sqrt of an int is a double, max(float, double) is a double.
// Adding a function is one line in a list below.
#include <cmath>
#include <cstdlib>
#include <type_traits>

#include <tessera/unified/symbolic.hpp>

namespace tessera::unified {

namespace detail {
/// Records `name((R)a)` as a constant of type R.
template <kernel_value R, typename A>
traced<R> call(const char* name, A&& a) {
  auto trace = common_trace(a);
  std::string text = converted_text<R>(*trace, std::forward<A>(a));
  return make_constant<R>(trace, std::string(name) + "(" + text + ")");
}
/// Records `name((R)a, (R)b)` as a constant of type R.
template <kernel_value R, typename A, typename B>
traced<R> call(const char* name, A&& a, B&& b) {
  auto trace = common_trace(a, b);
  std::string left = converted_text<R>(*trace, std::forward<A>(a));
  std::string right = converted_text<R>(*trace, std::forward<B>(b));
  return make_constant<R>(trace, std::string(name) + "(" + left + ", " + right + ")");
}
}  // namespace detail

// Functions whose OpenCL C built-in has the name and meaning of the std:: one.
#define TESSERA_UNIFIED_UNARY_MATH(X)                                                                            \
  X(sqrt) X(cbrt) X(exp) X(exp2) X(expm1) X(log) X(log2) X(log10) X(log1p) X(sin) X(cos) X(tan) X(asin) X(acos) \
  X(atan) X(sinh) X(cosh) X(tanh) X(erf) X(erfc) X(floor) X(ceil) X(round) X(trunc)
#define TESSERA_UNIFIED_BINARY_MATH(X) X(pow) X(atan2) X(fmod) X(hypot) X(fmin) X(fmax) X(copysign)

#define TESSERA_UNIFIED_DEFINE_UNARY_MATH(NAME)                                            \
  template <host_operand A>                                                                \
  auto NAME(A a) {                                                                         \
    return std::NAME(a);                                                                   \
  }                                                                                        \
  template <symbolic_operand A>                                                            \
    requires requires(operand_value_t<A> v) { std::NAME(v); }                              \
  auto NAME(A&& a) {                                                                       \
    using result = decltype(std::NAME(std::declval<operand_value_t<A>>()));                \
    return detail::call<result>(#NAME, std::forward<A>(a));                                \
  }
TESSERA_UNIFIED_UNARY_MATH(TESSERA_UNIFIED_DEFINE_UNARY_MATH)
#undef TESSERA_UNIFIED_DEFINE_UNARY_MATH

#define TESSERA_UNIFIED_DEFINE_BINARY_MATH(NAME)                                                            \
  template <host_operand A, host_operand B>                                                                 \
  auto NAME(A a, B b) {                                                                                     \
    return std::NAME(a, b);                                                                                 \
  }                                                                                                         \
  template <typename A, typename B>                                                                         \
    requires symbolic_pair<A, B> && requires(operand_value_t<A> a, operand_value_t<B> b) { std::NAME(a, b); } \
  auto NAME(A&& a, B&& b) {                                                                                 \
    using result = decltype(std::NAME(std::declval<operand_value_t<A>>(), std::declval<operand_value_t<B>>())); \
    return detail::call<result>(#NAME, std::forward<A>(a), std::forward<B>(b));                             \
  }
TESSERA_UNIFIED_BINARY_MATH(TESSERA_UNIFIED_DEFINE_BINARY_MATH)
#undef TESSERA_UNIFIED_DEFINE_BINARY_MATH

/// |a|: std::abs on the host, fabs or abs in OpenCL C (whose integer abs is unsigned).
template <host_operand A>
auto abs(A a) {
  if constexpr (std::is_unsigned_v<A>) return a;
  else return std::abs(a);
}
template <symbolic_operand A>
  requires(!std::is_same_v<operand_value_t<A>, bool>)
auto abs(A&& a) {
  using value = operand_value_t<A>;
  if constexpr (std::is_floating_point_v<value>) {
    return detail::call<value>("fabs", std::forward<A>(a));
  } else if constexpr (std::is_unsigned_v<value>) {
    auto trace = detail::common_trace(a);
    return detail::make_constant<value>(trace, detail::text_of(*trace, std::forward<A>(a)));
  } else {
    using result = decltype(std::abs(std::declval<value>()));
    auto trace = detail::common_trace(a);
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
