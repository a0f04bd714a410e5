#pragma once
// binary_operation_: the elementwise operation of two arguments shared by the operator
// table (binary_operators.hpp) and codegen's function table (math_functions.hpp). An Op says
// what the operation is called, its OpenCL C, its host form, its result type and its view.
#include <string>
#include <utility>

#include <tessera/codegen/substitute.hpp>
#include <tessera/kernel_generator/as_operation.hpp>

namespace tessera::kernel_generator {

template <typename Op, typename A, typename B>
class binary_operation_
    : public operation<binary_operation_<Op, A, B>,
                       typename Op::template result<value_type_t<A>, value_type_t<B>>, A, B> {
  using base = operation<binary_operation_<Op, A, B>,
                         typename Op::template result<value_type_t<A>, value_type_t<B>>, A, B>;

 public:
  using typename base::value_type;

  template <typename X, typename Y>
  binary_operation_(X&& a, Y&& b) : base(std::forward<X>(a), std::forward<Y>(b)) {
    shape_ = common_shape(Op::name, {this->template argument<0>().rows(), this->template argument<0>().cols()},
                          {this->template argument<1>().rows(), this->template argument<1>().cols()});
  }

  index_t rows() const noexcept { return shape_.rows; }
  index_t cols() const noexcept { return shape_.cols; }
  matrix_view view() const {
    return Op::view(this->template argument<0>().view(), this->template argument<1>().view());
  }

  std::string emit(kernel_context& kc, const std::string& i, const std::string& j) const {
    const std::string a = this->template argument<0>().generate(kc, i, j);
    const std::string b = this->template argument<1>().generate(kc, i, j);
    return kc.builder().declare_fresh(codegen::opencl_type_name<value_type>(),
                                      codegen::substitute(Op::opencl, Op::template argument<value_type_t<A>>(a),
                                                          Op::template argument<value_type_t<B>>(b)));
  }

  value_type host_value(index_t i, index_t j) const {
    return static_cast<value_type>(
        Op::host(this->template argument<0>().host_value(i, j), this->template argument<1>().host_value(i, j)));
  }

 private:
  shape shape_;
};

/// The operation Op on a and b, host numbers taking the type of the operand beside them.
template <typename Op, typename A, typename B>
auto make_binary(A&& a, B&& b) {
  using operation_a = decltype(as_operation_beside<operand_value_t<B>>(std::declval<A>()));
  using operation_b = decltype(as_operation_beside<operand_value_t<A>>(std::declval<B>()));
  return binary_operation_<Op, operation_a, operation_b>(as_operation_beside<operand_value_t<B>>(std::forward<A>(a)),
                                                         as_operation_beside<operand_value_t<A>>(std::forward<B>(b)));
}

/// Arguments of a binary operation: at least one operand; the other may be a host number.
template <typename A, typename B>
concept binary_arguments = (operand<A> && (operand<B> || host_scalar<B>)) || (host_scalar<A> && operand<B>);

// Result types and views shared by the tables.
struct arithmetic_result {
  template <typename A, typename B>
  using result = promoted_t<A, B>;
  template <typename T>
  static std::string argument(const std::string& code) {
    return code;
  }
};
struct boolean_result {
  template <typename A, typename B>
  using result = bool;
  template <typename T>
  static std::string argument(const std::string& code) {
    return code;
  }
};
/// Math functions compute in floating point: int and bool arguments are converted to float.
struct floating_result {
  template <typename A, typename B>
  using result = floating_t<promoted_t<A, B>>;
  template <typename T>
  static std::string argument(const std::string& code) {
    return std::is_floating_point_v<T> ? code : "(float)" + code;
  }
};

}  // namespace tessera::kernel_generator
