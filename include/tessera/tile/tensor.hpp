#pragma once
// tensor<T>: an N-D array in device memory, the values Tile functions take and return.
// Element order is row-major (C order, NumPy's default): the last axis is contiguous, and
// element (i0, .., ik) of a fresh tensor is at ((i0 * d1 + i1) * d2 + ..) * dk + ik. A tensor
// may also be a strided view (tensor(matrix) views a column-major matrix without copying).
#include <cstdint>
#include <span>
#include <vector>

#include <tessera/runtime/buffer.hpp>
#include <tessera/runtime/context.hpp>
#include <tessera/runtime/matrix.hpp>
#include <tessera/tile/host_tensor.hpp>
#include <tessera/tile/matmul.hpp>

namespace tessera::tile {

template <runtime::device_scalar T>
class tensor {
 public:
  using value_type = T;

  /// An empty 1-D tensor of shape (0,); owns no memory.
  tensor();
  /// Uninitialized contents.
  explicit tensor(shape dims, const runtime::context& ctx = runtime::context::get());
  /// From row-major values; throws argument_error unless values has one per element.
  tensor(shape dims, std::span<const T> values, const runtime::context& ctx = runtime::context::get());
  tensor(shape dims, const std::vector<T>& values, const runtime::context& ctx = runtime::context::get())
      : tensor(std::move(dims), std::span<const T>(values), ctx) {}
  explicit tensor(const host_tensor<T>& host, const runtime::context& ctx = runtime::context::get())
      : tensor(host.dims, std::span<const T>(host.values), ctx) {}
  /// A view of m as the 2-D tensor of shape (rows, cols): element (i, j) is m(i, j). It shares
  /// m's memory (strides (1, rows)); the view keeps that memory alive.
  explicit tensor(const matrix<T>& m);
  /// A view of existing device memory with the given layout (in elements of T).
  tensor(runtime::device_buffer storage, tensor_layout layout, const runtime::context& ctx);

  const shape& dims() const noexcept { return layout_.dims; }
  std::size_t rank() const noexcept { return layout_.dims.size(); }
  std::int64_t size() const { return element_count(layout_.dims); }
  bool empty() const { return size() == 0; }
  const tensor_layout& layout() const noexcept { return layout_; }
  const runtime::device_buffer& storage() const noexcept { return storage_; }
  /// The OpenCL buffer (null when the tensor owns no memory).
  const cl::Buffer& buffer() const noexcept { return storage_.handle(); }
  const runtime::context& ctx() const { return context_ ? *context_ : runtime::context::get(); }

  /// The elements in row-major order.
  std::vector<T> to_host() const;
  host_tensor<T> to_host_tensor() const { return host_tensor<T>(dims(), to_host()); }

 private:
  const runtime::context* context_;
  tensor_layout layout_;
  runtime::device_buffer storage_;
};

extern template class tensor<float>;
extern template class tensor<double>;

/// A column-major matrix with t's values: rank 2 gives (d0 x d1), rank 1 a column, rank 0 1x1.
/// Copies through the host. Throws argument_error for higher ranks.
template <runtime::device_scalar T>
matrix<T> to_matrix(const tensor<T>& t);

}  // namespace tessera::tile
