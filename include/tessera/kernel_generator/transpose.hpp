#pragma once
// transpose(a): element (i, j) is a's (j, i). No code of its own: the argument is
// generated at swapped indices.
#include <string>
#include <utility>

#include <tessera/kernel_generator/as_operation.hpp>

namespace tessera::kernel_generator {

template <typename A>
class transpose_ : public operation<transpose_<A>, value_type_t<A>, A> {
  using base = operation<transpose_<A>, value_type_t<A>, A>;

 public:
  using typename base::value_type;

  template <typename X>
  explicit transpose_(X&& a) : base(std::forward<X>(a)) {}

  index_t rows() const noexcept { return this->template argument<0>().cols(); }
  index_t cols() const noexcept { return this->template argument<0>().rows(); }
  matrix_view view() const { return runtime::view_transpose(this->template argument<0>().view()); }
  access_map argument_map(const access_map& map) const { return map.transpose(); }

  std::string emit(kernel_context& kc, const std::string& i, const std::string& j) const {
    return this->template argument<0>().generate(kc, j, i);
  }
  value_type host_value(index_t i, index_t j) const { return this->template argument<0>().host_value(j, i); }
};

template <operand A>
auto transpose(A&& a) {
  return transpose_<as_operation_t<A>>(as_operation(std::forward<A>(a)));
}

}  // namespace tessera::kernel_generator
