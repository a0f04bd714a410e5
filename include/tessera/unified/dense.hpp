#pragma once
// dense<T>: a row-major matrix with a stride (>= cols), owned by an executor. Row-major, as in
// Ginkgo, because unified 2-D kernels run rows in parallel and columns inside a row; a stride
// larger than the column count leaves padding that kernels never touch. (runtime::matrix is
// the column-major matrix of the expression front door; this one is the unified kernels'.)
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <tessera/runtime/checked_size.hpp>
#include <tessera/runtime/error.hpp>
#include <tessera/unified/array.hpp>
#include <tessera/unified/dim.hpp>

namespace tessera::unified {

template <kernel_element T>
class dense {
 public:
  using value_type = T;

  /// rows x cols on exec with the given stride (0: cols); contents unspecified.
  dense(std::shared_ptr<const executor> exec, dim<2> size, std::size_t stride = 0)
      : size_(size), stride_(checked_stride(size, stride)), values_(std::move(exec), storage_size(size, stride_)) {}
  /// From rows * cols row-major host values (no padding); padding elements are zero.
  dense(std::shared_ptr<const executor> exec, dim<2> size, std::span<const T> row_major, std::size_t stride = 0)
      : dense(std::move(exec), size, stride) {
    if (row_major.size() != size[0] * size[1])
      throw runtime::argument_error("dense: " + std::to_string(row_major.size()) + " values for " +
                                    std::to_string(size[0]) + " x " + std::to_string(size[1]));
    std::vector<T> padded(values_.size(), T{});
    for (std::size_t r = 0; r < size[0]; ++r)
      for (std::size_t c = 0; c < size[1]; ++c) padded[r * stride_ + c] = row_major[r * size[1] + c];
    values_.write(padded);
  }
  /// A copy of other, stride and padding included, on exec.
  dense(std::shared_ptr<const executor> exec, const dense& other)
      : size_(other.size_), stride_(other.stride_), values_(std::move(exec), other.values_) {}
  dense(dense&&) noexcept = default;
  dense& operator=(dense&&) noexcept = default;

  dim<2> size() const noexcept { return size_; }
  std::size_t rows() const noexcept { return size_[0]; }
  std::size_t cols() const noexcept { return size_[1]; }
  std::size_t stride() const noexcept { return stride_; }
  const std::shared_ptr<const executor>& exec() const noexcept { return values_.exec(); }
  /// The rows * stride stored elements, padding included.
  array<T>& values() noexcept { return values_; }
  const array<T>& values() const noexcept { return values_; }

  /// rows * cols row-major values, padding left out.
  std::vector<T> to_host() const {
    const std::vector<T> stored = values_.to_host();
    std::vector<T> out(rows() * cols());
    for (std::size_t r = 0; r < rows(); ++r)
      for (std::size_t c = 0; c < cols(); ++c) out[r * cols() + c] = stored[r * stride_ + c];
    return out;
  }
  void fill(const T& value) { values_.fill(value); }

 private:
  static std::size_t checked_stride(dim<2> size, std::size_t stride) {
    if (stride == 0) return size[1];
    if (stride < size[1])
      throw runtime::argument_error("dense: stride " + std::to_string(stride) + " is smaller than the " +
                                    std::to_string(size[1]) + " columns");
    return stride;
  }
  static std::size_t storage_size(dim<2> size, std::size_t stride) {
    return static_cast<std::size_t>(runtime::checked_product(runtime::checked_size(size[0], "rows", "dense"),
                                                             runtime::checked_size(stride, "stride", "dense"),
                                                             "rows x stride", "dense"));
  }

  dim<2> size_;
  std::size_t stride_;
  array<T> values_;
};

}  // namespace tessera::unified
