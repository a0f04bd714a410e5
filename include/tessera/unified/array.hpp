#pragma once
// array<T>: a 1-D array owned by an executor (host memory for OpenMP, a device buffer for
// OpenCL). Kernels index it as x[i]; copies between executors are explicit.
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <tessera/runtime/buffer.hpp>
#include <tessera/runtime/error.hpp>
#include <tessera/unified/accessors.hpp>
#include <tessera/unified/array_storage.hpp>
#include <tessera/unified/executor.hpp>

namespace tessera::unified {

template <kernel_element T>
class array {
 public:
  using value_type = T;

  /// size elements on exec, contents unspecified until written.
  array(std::shared_ptr<const executor> exec, std::size_t size)
      : storage_(std::move(exec), runtime::checked_bytes(size, sizeof(T), "array"), "array"), size_(size) {}
  /// A copy of host values on exec.
  array(std::shared_ptr<const executor> exec, std::span<const T> values) : array(std::move(exec), values.size()) {
    write(values);
  }
  array(std::shared_ptr<const executor> exec, std::initializer_list<T> values)
      : array(std::move(exec), std::span<const T>(values.begin(), values.size())) {}
  /// A copy of other on exec (from any executor to any executor).
  array(std::shared_ptr<const executor> exec, const array& other) : array(std::move(exec), other.size()) {
    storage_.copy_from(other.storage_);
  }
  array(array&&) noexcept = default;
  array& operator=(array&&) noexcept = default;
  // Copies name their executor (array(exec, other)), so that no transfer happens unseen.
  array(const array&) = delete;
  array& operator=(const array&) = delete;

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  const std::shared_ptr<const executor>& exec() const noexcept { return storage_.exec(); }

  std::vector<T> to_host() const {
    std::vector<T> out(size_);
    storage_.read(out.data());
    return out;
  }
  /// Overwrites all elements; values.size() must equal size().
  void write(std::span<const T> values) {
    if (values.size() != size_)
      throw runtime::argument_error("array::write: " + std::to_string(values.size()) + " values for an array of " +
                                    std::to_string(size_));
    storage_.write(values.data());
  }
  void fill(const T& value) { storage_.fill(&value, sizeof(T)); }

  /// The elements in host memory (arrays of an omp_executor); throws argument_error otherwise.
  T* host_data() { return reinterpret_cast<T*>(checked_host()); }
  const T* host_data() const { return reinterpret_cast<const T*>(checked_host()); }
  /// The device buffer (arrays of an opencl_executor; null when empty); throws argument_error otherwise.
  const runtime::device_buffer& device_buffer() const {
    if (!storage_.on_device())
      throw runtime::argument_error("array: the device buffer of an array on " + exec()->description() +
                                    " was asked for");
    return storage_.device();
  }

 private:
  std::byte* checked_host() const {
    if (storage_.on_device())
      throw runtime::argument_error("array: host memory of an array on " + exec()->description() +
                                    " was asked for; copy it to an omp_executor or call to_host()");
    return storage_.host();
  }
  array_storage storage_;
  std::size_t size_;
};

}  // namespace tessera::unified
