#pragma once
// What a kernel lambda receives for its array arguments: on the OpenMP executor a plain
// pointer (x[i]) or a dense_accessor (x(row, col)); when traced, a traced_pointer or
// traced_dense whose elements are traced_ref temporaries.
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include <tessera/unified/symbolic.hpp>

namespace tessera::unified {

/// How arrays of T are stored in OpenCL C and what their traced elements are. Defined for the
/// kernel_value types (bool excepted) and for stopping_status; a struct type is added by
/// specializing it (see stopping_status.hpp) with a storage_type and a traced_reference.
template <typename T>
struct element_traits;

template <kernel_value T>
  requires(!std::is_same_v<T, bool>)
struct element_traits<T> {
  using storage_type = T;
  template <bool Const>
  using traced_reference = traced_ref<T, Const>;
};

/// Types an array<T> may hold.
template <typename T>
concept kernel_element = requires { typename element_traits<T>::storage_type; };

/// x(row, col) of a row-major matrix with a stride, on the host.
template <typename T>
struct dense_accessor {
  T* data;
  std::int64_t stride;
  T& operator()(std::int64_t row, std::int64_t col) const { return data[row * stride + col]; }
};

namespace detail {
/// The text of an integer index operand, as an OpenCL C long.
template <typename I>
std::string index_text(kernel_trace& trace, I&& index) {
  static_assert(std::is_integral_v<operand_value_t<I>> && !std::is_same_v<operand_value_t<I>, bool>,
                "tessera::unified: an index must be an integer");
  return converted_text<std::int64_t>(trace, std::forward<I>(index));
}
}  // namespace detail

/// A traced `global [const] T*` parameter.
template <kernel_element T, bool Const>
class traced_pointer : public symbol {
 public:
  using element_type = T;
  using symbol::symbol;

  template <operand I>
  auto operator[](I&& index) const {
    detail::common_trace(*this, index);
    std::string i = detail::text_of(*trace(), std::forward<I>(index));
    static_assert(std::is_integral_v<operand_value_t<I>> && !std::is_same_v<operand_value_t<I>, bool>,
                  "tessera::unified: an index must be an integer");
    using reference = typename element_traits<T>::template traced_reference<Const>;
    return reference(trace(), checked_text() + "[" + i + "]", trace()->scope());
  }
};

/// A traced row-major matrix: a pointer and the name of its stride.
template <kernel_element T, bool Const>
class traced_dense : public symbol {
 public:
  using element_type = T;
  traced_dense(std::shared_ptr<kernel_trace> trace, std::string pointer, std::string stride)
      : symbol(std::move(trace), std::move(pointer), 0), stride_(std::move(stride)) {}
  const std::string& stride() const noexcept { return stride_; }

  template <operand R, operand C>
  auto operator()(R&& row, C&& col) const {
    detail::common_trace(*this, row, col);
    std::string r = detail::index_text(*trace(), std::forward<R>(row));
    std::string c = detail::index_text(*trace(), std::forward<C>(col));
    using reference = typename element_traits<T>::template traced_reference<Const>;
    return reference(trace(), checked_text() + "[" + r + " * " + stride_ + " + " + c + "]", trace()->scope());
  }

 private:
  std::string stride_;
};

/// Zero and one of an argument's element type: `auto sum = var(zero(values));`.
template <kernel_value T>
T zero(const T*) {
  return T(0);
}
template <typename T>
std::remove_const_t<T> zero(const dense_accessor<T>&) {
  return std::remove_const_t<T>(0);
}
template <kernel_value T>
T one(const T*) {
  return T(1);
}
template <typename T>
std::remove_const_t<T> one(const dense_accessor<T>&) {
  return std::remove_const_t<T>(1);
}
template <kernel_value T, bool Const>
traced<T> zero(const traced_pointer<T, Const>& x) {
  return detail::make_literal(x.trace(), T(0));
}
template <kernel_value T, bool Const>
traced<T> zero(const traced_dense<T, Const>& x) {
  return detail::make_literal(x.trace(), T(0));
}
template <kernel_value T, bool Const>
traced<T> one(const traced_pointer<T, Const>& x) {
  return detail::make_literal(x.trace(), T(1));
}
template <kernel_value T, bool Const>
traced<T> one(const traced_dense<T, Const>& x) {
  return detail::make_literal(x.trace(), T(1));
}

}  // namespace tessera::unified
