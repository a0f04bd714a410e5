#pragma once
// Broadcasts: an expression with one row (or one column, or 1x1) repeated to whatever shape
// its partner has. rowwise_broadcast(v) repeats the row vector v for every row,
// colwise_broadcast(v) the column vector v for every column, broadcast(s) a 1x1 everywhere.
// (Host numbers in expressions are broadcast already: `a + 2`.)
#include <string>
#include <utility>

#include <tessera/kernel_generator/as_operation.hpp>

namespace tessera::kernel_generator {

template <typename A, bool Rows, bool Cols>
class broadcast_ : public operation<broadcast_<A, Rows, Cols>, value_type_t<A>, A> {
  using base = operation<broadcast_<A, Rows, Cols>, value_type_t<A>, A>;

 public:
  using typename base::value_type;

  template <typename X>
  explicit broadcast_(X&& a) : base(std::forward<X>(a)) {
    const auto& arg = this->template argument<0>();
    if ((Rows && arg.rows() != 1 && arg.rows() != any_size) || (Cols && arg.cols() != 1 && arg.cols() != any_size))
      throw argument_error(std::string(name()) + ": the argument must have " +
                           (Rows && Cols ? "one row and one column" : Rows ? "one row" : "one column") + ", it is " +
                           shape_string(arg.rows(), arg.cols()));
  }

  static constexpr std::string_view name() {
    return Rows && Cols ? "broadcast" : Rows ? "rowwise_broadcast" : "colwise_broadcast";
  }
  index_t rows() const noexcept { return Rows ? any_size : this->template argument<0>().rows(); }
  index_t cols() const noexcept { return Cols ? any_size : this->template argument<0>().cols(); }
  access_map argument_map(const access_map&) const { return access_map::unknown(); }

  std::string emit(kernel_context& kc, const std::string& i, const std::string& j) const {
    return this->template argument<0>().generate(kc, Rows ? "0" : i, Cols ? "0" : j);
  }
  value_type host_value(index_t i, index_t j) const {
    return this->template argument<0>().host_value(Rows ? 0 : i, Cols ? 0 : j);
  }
};

/// The row vector a (1 x N) repeated for every row: any x N.
template <operand A>
auto rowwise_broadcast(A&& a) {
  return broadcast_<as_operation_t<A>, true, false>(as_operation(std::forward<A>(a)));
}
/// The column vector a (M x 1) repeated for every column: M x any.
template <operand A>
auto colwise_broadcast(A&& a) {
  return broadcast_<as_operation_t<A>, false, true>(as_operation(std::forward<A>(a)));
}
/// The 1 x 1 a repeated everywhere.
template <operand A>
auto broadcast(A&& a) {
  return broadcast_<as_operation_t<A>, true, true>(as_operation(std::forward<A>(a)));
}

}  // namespace tessera::kernel_generator
