#pragma once
// select(condition, a, b): a where condition holds, else b, elementwise.
#include <string>
#include <utility>

#include <tessera/kernel_generator/as_operation.hpp>

namespace tessera::kernel_generator {

template <typename C, typename A, typename B>
class select_ : public operation<select_<C, A, B>, promoted_t<value_type_t<A>, value_type_t<B>>, C, A, B> {
  using base = operation<select_<C, A, B>, promoted_t<value_type_t<A>, value_type_t<B>>, C, A, B>;

 public:
  using typename base::value_type;

  template <typename X, typename Y, typename Z>
  select_(X&& condition, Y&& a, Z&& b) : base(std::forward<X>(condition), std::forward<Y>(a), std::forward<Z>(b)) {
    const auto& c = this->template argument<0>();
    const auto& x = this->template argument<1>();
    const auto& y = this->template argument<2>();
    shape_ = common_shape("select", common_shape("select", {c.rows(), c.cols()}, {x.rows(), x.cols()}),
                          {y.rows(), y.cols()});
  }

  index_t rows() const noexcept { return shape_.rows; }
  index_t cols() const noexcept { return shape_.cols; }

  std::string emit(kernel_context& kc, const std::string& i, const std::string& j) const {
    const std::string c = this->template argument<0>().generate(kc, i, j);
    const std::string a = this->template argument<1>().generate(kc, i, j);
    const std::string b = this->template argument<2>().generate(kc, i, j);
    return kc.builder().declare_fresh(codegen::opencl_type_name<value_type>(), c + " ? " + a + " : " + b);
  }

  value_type host_value(index_t i, index_t j) const {
    return this->template argument<0>().host_value(i, j)
               ? static_cast<value_type>(this->template argument<1>().host_value(i, j))
               : static_cast<value_type>(this->template argument<2>().host_value(i, j));
  }

 private:
  shape shape_;
};

/// a where condition is true (non-zero), else b. Host numbers take the other branch's type.
template <typename C, typename A, typename B>
  requires(operand<C> || host_scalar<C>) && (operand<A> || host_scalar<A>) && (operand<B> || host_scalar<B>) &&
          (operand<C> || operand<A> || operand<B>)
auto select(C&& condition, A&& a, B&& b) {
  using condition_operation = decltype(as_standalone_operation(std::declval<C>()));
  using a_operation = decltype(as_operation_beside<operand_value_t<B>>(std::declval<A>()));
  using b_operation = decltype(as_operation_beside<operand_value_t<A>>(std::declval<B>()));
  return select_<condition_operation, a_operation, b_operation>(
      as_standalone_operation(std::forward<C>(condition)), as_operation_beside<operand_value_t<B>>(std::forward<A>(a)),
      as_operation_beside<operand_value_t<A>>(std::forward<B>(b)));
}

}  // namespace tessera::kernel_generator
