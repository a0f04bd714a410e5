#pragma once
// diagonal(a): the column vector of a's diagonal, min(rows, cols) x 1.
#include <algorithm>
#include <string>
#include <utility>

#include <tessera/kernel_generator/as_operation.hpp>

namespace tessera::kernel_generator {

template <typename A>
class diagonal_ : public operation<diagonal_<A>, value_type_t<A>, A> {
  using base = operation<diagonal_<A>, value_type_t<A>, A>;

 public:
  using typename base::value_type;

  template <typename X>
  explicit diagonal_(X&& a) : base(std::forward<X>(a)) {
    const index_t r = this->template argument<0>().rows(), c = this->template argument<0>().cols();
    rows_ = r == any_size ? c : c == any_size ? r : std::min(r, c);
  }

  index_t rows() const noexcept { return rows_; }
  index_t cols() const noexcept { return 1; }
  access_map argument_map(const access_map&) const { return access_map::unknown(); }

  std::string emit(kernel_context& kc, const std::string& i, const std::string&) const {
    return this->template argument<0>().generate(kc, i, i);
  }
  value_type host_value(index_t i, index_t) const { return this->template argument<0>().host_value(i, i); }

 private:
  index_t rows_;
};

template <operand A>
auto diagonal(A&& a) {
  return diagonal_<as_operation_t<A>>(as_operation(std::forward<A>(a)));
}

}  // namespace tessera::kernel_generator
