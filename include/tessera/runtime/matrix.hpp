#pragma once
// matrix<T>: a column-major matrix in device memory, for float and double.
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <tessera/runtime/buffer.hpp>
#include <tessera/runtime/context.hpp>
#include <tessera/runtime/error.hpp>
#include <tessera/runtime/matrix_view.hpp>

namespace tessera::runtime {

using index_t = std::int64_t;

template <typename T>
concept device_scalar = std::is_same_v<T, float> || std::is_same_v<T, double>;


/// "rows x cols" as errors print shapes.
std::string shape_string(index_t rows, index_t cols);

template <device_scalar T>
class matrix {
 public:
  using value_type = T;

  /// An empty 0x0 matrix on the default context.
  matrix() : matrix(0, 0) {}
  /// rows x cols, contents unspecified until written.
  matrix(index_t rows, index_t cols, matrix_view view = matrix_view::entire,
         const context& ctx = context::get());
  /// From column-major host data of rows * cols elements.
  matrix(const std::vector<T>& host, index_t rows, index_t cols,
         matrix_view view = matrix_view::entire, const context& ctx = context::get());
  matrix(const T* host, index_t rows, index_t cols, matrix_view view = matrix_view::entire,
         const context& ctx = context::get());

  matrix(matrix&&) noexcept = default;
  matrix& operator=(matrix&&) noexcept = default;
  // Copies are explicit (copy()), so that no device copy happens unseen.
  matrix(const matrix&) = delete;
  matrix& operator=(const matrix&) = delete;
  /// `m = expression;`: evaluates an expression of a front door (the kernel generator's
  /// expressions provide evaluate_into) into this matrix, resizing it.
  template <typename Expression>
    requires requires(const Expression& e, matrix& m) { e.evaluate_into(m); }
  matrix& operator=(const Expression& expression) {
    expression.evaluate_into(*this);
    return *this;
  }

  index_t rows() const noexcept { return rows_; }
  index_t cols() const noexcept { return cols_; }
  index_t size() const noexcept { return rows_ * cols_; }
  bool empty() const noexcept { return size() == 0; }
  matrix_view view() const noexcept { return view_; }
  /// Declares which part may be non-zero; elements outside read as zero.
  void set_view(matrix_view view) noexcept { view_ = view; }

  const context& ctx() const noexcept { return *context_; }
  const device_buffer& storage() const noexcept { return buffer_; }
  /// The OpenCL buffer (null for an empty matrix); kernels take it as an argument.
  const cl::Buffer& buffer() const noexcept { return buffer_.handle(); }

  /// Column-major host copy, with zeros outside the view.
  std::vector<T> to_host() const;
  /// Column-major host copy of the stored elements, view ignored.
  std::vector<T> to_host_raw() const;
  void write(std::span<const T> host);

  /// A device-side copy with the same shape and view.
  matrix copy() const;
  /// Changes the shape; storage is reallocated only when it must grow. Contents unspecified.
  void resize(index_t rows, index_t cols);

 private:
  const context* context_;
  index_t rows_ = 0;
  index_t cols_ = 0;
  matrix_view view_ = matrix_view::entire;
  device_buffer buffer_;
};

extern template class matrix<float>;
extern template class matrix<double>;

/// Throws argument_error naming what unless rows, cols >= 0.
void check_shape(index_t rows, index_t cols, const char* what);

}  // namespace tessera::runtime

namespace tessera {
using runtime::index_t;
using runtime::matrix;
using runtime::matrix_view;
}  // namespace tessera
