#pragma once
// Elementwise operators: + - (operators), elt_multiply and elt_divide (named, so they are not
// mistaken for matrix products; `*` and `/` take a host number on one side), comparisons and
// && ||. One table line per operator.
#include <tessera/kernel_generator/binary_operation.hpp>

namespace tessera::kernel_generator {

// The view of the result from the arguments' views: where both arguments are zero, is the
// result zero? (A view promises zeros outside it.)
inline matrix_view union_view(matrix_view a, matrix_view b) { return runtime::view_union(a, b); }        // f(0,0) = 0
inline matrix_view intersection_view(matrix_view a, matrix_view b) { return runtime::view_intersection(a, b); }  // f(0,x) = f(x,0) = 0
inline matrix_view entire_view(matrix_view, matrix_view) { return matrix_view::entire; }                 // anything else

// name,               C++ operator, result,            view
#define TESSERA_KERNEL_GENERATOR_BINARY_OPERATORS(X)        \
  X(addition,          +,            arithmetic_result, union_view)        \
  X(subtraction,       -,            arithmetic_result, union_view)        \
  X(elt_multiplication, *,           arithmetic_result, intersection_view) \
  X(elt_division,      /,            arithmetic_result, entire_view)       \
  X(less,              <,            boolean_result,    union_view)        \
  X(less_equal,        <=,           boolean_result,    entire_view)       \
  X(greater,           >,            boolean_result,    union_view)        \
  X(greater_equal,     >=,           boolean_result,    entire_view)       \
  X(equal,             ==,           boolean_result,    entire_view)       \
  X(not_equal,         !=,           boolean_result,    union_view)        \
  X(logical_and,       &&,           boolean_result,    intersection_view) \
  X(logical_or,        ||,           boolean_result,    union_view)

#define TESSERA_KERNEL_GENERATOR_DEFINE_OPERATOR_OP(name_, op_, result_, view_)       \
  struct name_##_op : result_ {                                                        \
    static constexpr std::string_view name = "operator" #op_;                          \
    static constexpr std::string_view opencl = "$1 " #op_ " $2";                       \
    static matrix_view view(matrix_view a, matrix_view b) { return view_(a, b); }      \
    template <typename X, typename Y>                                                  \
    static auto host(X x, Y y) {                                                       \
      using P = promoted_t<X, Y>;                                                      \
      return static_cast<P>(x) op_ static_cast<P>(y);                                  \
    }                                                                                  \
  };
TESSERA_KERNEL_GENERATOR_BINARY_OPERATORS(TESSERA_KERNEL_GENERATOR_DEFINE_OPERATOR_OP)
#undef TESSERA_KERNEL_GENERATOR_DEFINE_OPERATOR_OP

// The named products get their own names in errors.
struct elt_multiply_op : elt_multiplication_op {
  static constexpr std::string_view name = "elt_multiply";
};
struct elt_divide_op : elt_division_op {
  static constexpr std::string_view name = "elt_divide";
};

template <typename A, typename B>
  requires binary_arguments<A, B>
auto operator+(A&& a, B&& b) {
  return make_binary<addition_op>(std::forward<A>(a), std::forward<B>(b));
}
template <typename A, typename B>
  requires binary_arguments<A, B>
auto operator-(A&& a, B&& b) {
  return make_binary<subtraction_op>(std::forward<A>(a), std::forward<B>(b));
}
/// Elementwise product of two operands of the same shape.
template <typename A, typename B>
  requires binary_arguments<A, B>
auto elt_multiply(A&& a, B&& b) {
  return make_binary<elt_multiply_op>(std::forward<A>(a), std::forward<B>(b));
}
/// Elementwise quotient of two operands of the same shape.
template <typename A, typename B>
  requires binary_arguments<A, B>
auto elt_divide(A&& a, B&& b) {
  return make_binary<elt_divide_op>(std::forward<A>(a), std::forward<B>(b));
}
/// Scaling by a host number: `2 * a`, `a * 2`. A product of two operands is elt_multiply.
template <typename A, typename B>
  requires(host_scalar<A> && operand<B>) || (operand<A> && host_scalar<B>)
auto operator*(A&& a, B&& b) {
  return make_binary<elt_multiplication_op>(std::forward<A>(a), std::forward<B>(b));
}
/// Division with a host number on one side: `a / 2`, `1 / a`. Of two operands: elt_divide.
template <typename A, typename B>
  requires(host_scalar<A> && operand<B>) || (operand<A> && host_scalar<B>)
auto operator/(A&& a, B&& b) {
  return make_binary<elt_division_op>(std::forward<A>(a), std::forward<B>(b));
}

#define TESSERA_KERNEL_GENERATOR_DEFINE_COMPARISON(name_, op_)            \
  template <typename A, typename B>                                       \
    requires binary_arguments<A, B>                                       \
  auto operator op_(A&& a, B&& b) {                                       \
    return make_binary<name_##_op>(std::forward<A>(a), std::forward<B>(b)); \
  }
TESSERA_KERNEL_GENERATOR_DEFINE_COMPARISON(less, <)
TESSERA_KERNEL_GENERATOR_DEFINE_COMPARISON(less_equal, <=)
TESSERA_KERNEL_GENERATOR_DEFINE_COMPARISON(greater, >)
TESSERA_KERNEL_GENERATOR_DEFINE_COMPARISON(greater_equal, >=)
TESSERA_KERNEL_GENERATOR_DEFINE_COMPARISON(equal, ==)
TESSERA_KERNEL_GENERATOR_DEFINE_COMPARISON(not_equal, !=)
TESSERA_KERNEL_GENERATOR_DEFINE_COMPARISON(logical_and, &&)
TESSERA_KERNEL_GENERATOR_DEFINE_COMPARISON(logical_or, ||)
#undef TESSERA_KERNEL_GENERATOR_DEFINE_COMPARISON

}  // namespace tessera::kernel_generator

// Operators on plain matrices (`a + b`) are found by argument-dependent lookup in the
// matrix's namespace.
namespace tessera::runtime {
using kernel_generator::operator+;
using kernel_generator::operator-;
using kernel_generator::operator*;
using kernel_generator::operator/;
using kernel_generator::operator<;
using kernel_generator::operator<=;
using kernel_generator::operator>;
using kernel_generator::operator>=;
using kernel_generator::operator==;
using kernel_generator::operator!=;
using kernel_generator::operator&&;
using kernel_generator::operator||;
}  // namespace tessera::runtime
