#pragma once
// scalar_: a value passed as a kernel parameter, the same at every element. Host numbers in
// expressions become scalars of any shape (`2 * a`); constant(value, rows, cols) has a shape
// of its own. The value is an argument, not a literal, so one kernel serves every value.
#include <string>

#include <tessera/kernel_generator/operation.hpp>

namespace tessera::kernel_generator {

template <typename T>
class scalar_ : public operation<scalar_<T>, T> {
  static_assert(!std::same_as<T, bool>, "OpenCL kernels take no bool parameters: pass an int");

 public:
  explicit scalar_(T value, index_t rows = any_size, index_t cols = any_size)
      : value_(value), rows_(rows), cols_(cols) {
    if (rows < any_size || cols < any_size)
      throw argument_error("constant: negative shape " + shape_string(rows, cols));
  }

  T value() const noexcept { return value_; }
  index_t rows() const noexcept { return rows_; }
  index_t cols() const noexcept { return cols_; }

  template <typename Visitor>
  void own_parameters(Visitor& visitor) const {
    visitor.scalar(this, value_);
  }
  std::string emit(kernel_context& kc, const std::string&, const std::string&) const {
    return kc.scalar_parameter_of(this);
  }
  T host_value(index_t, index_t) const noexcept { return value_; }

 private:
  T value_;
  index_t rows_, cols_;
};

/// A rows x cols matrix whose every element is value: `a = constant(0.0f, 3, 4);`.
template <typename T>
  requires kernel_value<T> && (!std::same_as<T, bool>)
scalar_<T> constant(T value, index_t rows, index_t cols) {
  if (rows < 0 || cols < 0) throw argument_error("constant: negative shape " + shape_string(rows, cols));
  return scalar_<T>(value, rows, cols);
}

}  // namespace tessera::kernel_generator
