#pragma once
// unary_operation_: the elementwise operation of one argument shared by the unary operators
// (-a, !a) and the math function table. An Op gives its name, OpenCL C ("$1" is the
// argument), host form, result type and whether f(0) == 0 (then the view is kept).
#include <string>
#include <utility>

#include <tessera/kernel_generator/binary_operation.hpp>

namespace tessera::kernel_generator {

template <typename Op, typename A>
class unary_operation_
    : public operation<unary_operation_<Op, A>, typename Op::template result<value_type_t<A>, value_type_t<A>>, A> {
  using base =
      operation<unary_operation_<Op, A>, typename Op::template result<value_type_t<A>, value_type_t<A>>, A>;

 public:
  using typename base::value_type;

  template <typename X>
  explicit unary_operation_(X&& a) : base(std::forward<X>(a)) {}

  index_t rows() const noexcept { return this->template argument<0>().rows(); }
  index_t cols() const noexcept { return this->template argument<0>().cols(); }
  matrix_view view() const {
    return Op::keeps_zero ? this->template argument<0>().view() : matrix_view::entire;
  }

  std::string emit(kernel_context& kc, const std::string& i, const std::string& j) const {
    const std::string a = this->template argument<0>().generate(kc, i, j);
    return kc.builder().declare_fresh(codegen::opencl_type_name<value_type>(),
                                      codegen::substitute(Op::opencl, Op::template argument<value_type_t<A>>(a)));
  }

  value_type host_value(index_t i, index_t j) const {
    return static_cast<value_type>(Op::host(static_cast<value_type>(this->template argument<0>().host_value(i, j))));
  }
};

template <typename Op, typename A>
auto make_unary(A&& a) {
  return unary_operation_<Op, as_operation_t<A>>(as_operation(std::forward<A>(a)));
}

struct negation_op : arithmetic_result {
  static constexpr std::string_view name = "operator-";
  static constexpr std::string_view opencl = "-$1";
  static constexpr bool keeps_zero = true;
  template <typename X>
  static X host(X x) {
    return -x;
  }
};
struct logical_not_op : boolean_result {
  static constexpr std::string_view name = "operator!";
  static constexpr std::string_view opencl = "!$1";
  static constexpr bool keeps_zero = false;
  static bool host(bool x) { return !x; }
};

template <operand A>
auto operator-(A&& a) {
  return make_unary<negation_op>(std::forward<A>(a));
}
template <operand A>
auto operator!(A&& a) {
  return make_unary<logical_not_op>(std::forward<A>(a));
}

}  // namespace tessera::kernel_generator

namespace tessera::runtime {
using kernel_generator::operator-;
using kernel_generator::operator!;
}  // namespace tessera::runtime
