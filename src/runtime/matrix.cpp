#include <tessera/runtime/matrix.hpp>

#include <fmt/format.h>

namespace tessera::runtime {

std::string_view to_string(matrix_view v) {
  switch (v) {
    case matrix_view::diagonal: return "diagonal";
    case matrix_view::lower: return "lower";
    case matrix_view::upper: return "upper";
    default: return "entire";
  }
}

std::string shape_string(index_t rows, index_t cols) { return fmt::format("{}x{}", rows, cols); }

void check_shape(index_t rows, index_t cols, const char* what) {
  if (rows < 0 || cols < 0)
    throw argument_error(fmt::format("{}: negative shape {}", what, shape_string(rows, cols)));
}

namespace {
template <typename T>
device_buffer allocate(const context& ctx, index_t rows, index_t cols) {
  if constexpr (std::is_same_v<T, double>) require_fp64(ctx.device());
  check_shape(rows, cols, "matrix");
  const auto count = checked_bytes(static_cast<std::size_t>(rows), static_cast<std::size_t>(cols), "matrix");
  return device_buffer(ctx, checked_bytes(count, sizeof(T), "matrix"));
}
}  // namespace

template <device_scalar T>
matrix<T>::matrix(index_t rows, index_t cols, matrix_view view, const context& ctx)
    : context_(&ctx), rows_(rows), cols_(cols), view_(view), buffer_(allocate<T>(ctx, rows, cols)) {}

template <device_scalar T>
matrix<T>::matrix(const T* host, index_t rows, index_t cols, matrix_view view, const context& ctx)
    : matrix(rows, cols, view, ctx) {
  if (size() > 0 && host == nullptr) throw argument_error("matrix: null host pointer for a non-empty matrix");
  buffer_.write(0, buffer_.bytes(), host);
}

template <device_scalar T>
matrix<T>::matrix(const std::vector<T>& host, index_t rows, index_t cols, matrix_view view, const context& ctx)
    : matrix(rows, cols, view, ctx) {
  if (static_cast<index_t>(host.size()) != size())
    throw argument_error(fmt::format("matrix: host vector holds {} elements, a {} matrix needs {}", host.size(),
                                     shape_string(rows, cols), size()));
  buffer_.write(0, buffer_.bytes(), host.data());
}

template <device_scalar T>
std::vector<T> matrix<T>::to_host_raw() const {
  std::vector<T> host(static_cast<std::size_t>(size()));
  buffer_.read(0, host.size() * sizeof(T), host.data());
  return host;
}

template <device_scalar T>
std::vector<T> matrix<T>::to_host() const {
  std::vector<T> host = to_host_raw();
  if (view_ != matrix_view::entire)
    for (index_t j = 0; j < cols_; ++j)
      for (index_t i = 0; i < rows_; ++i)
        if (!view_contains(view_, i, j)) host[static_cast<std::size_t>(i + j * rows_)] = T(0);
  return host;
}

template <device_scalar T>
void matrix<T>::write(std::span<const T> host) {
  if (static_cast<index_t>(host.size()) != size())
    throw argument_error(fmt::format("matrix::write: {} elements given, the {} matrix holds {}", host.size(),
                                     shape_string(rows_, cols_), size()));
  buffer_.write(0, host.size() * sizeof(T), host.data());
}

template <device_scalar T>
matrix<T> matrix<T>::copy() const {
  matrix result(rows_, cols_, view_, *context_);
  buffer_.copy_to(result.buffer_, 0, 0, static_cast<std::size_t>(size()) * sizeof(T));
  return result;
}

template <device_scalar T>
void matrix<T>::resize(index_t rows, index_t cols) {
  check_shape(rows, cols, "matrix::resize");
  const std::size_t needed = checked_bytes(
      checked_bytes(static_cast<std::size_t>(rows), static_cast<std::size_t>(cols), "matrix::resize"), sizeof(T),
      "matrix::resize");
  if (needed > buffer_.bytes()) buffer_ = allocate<T>(*context_, rows, cols);
  rows_ = rows;
  cols_ = cols;
}

template class matrix<float>;
template class matrix<double>;

}  // namespace tessera::runtime
