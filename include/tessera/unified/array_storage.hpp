#pragma once
// The bytes behind array<T>: host memory for the OpenMP executor, a device buffer for the
// OpenCL executor. Not a user type: array<T> and dense<T> are.
#include <cstddef>
#include <memory>

#include <tessera/runtime/buffer.hpp>
#include <tessera/unified/executor.hpp>

namespace tessera::unified {

class array_storage {
 public:
  /// bytes on exec (null: throws argument_error naming what).
  array_storage(std::shared_ptr<const executor> exec, std::size_t bytes, const char* what);
  array_storage(array_storage&&) noexcept = default;
  array_storage& operator=(array_storage&&) noexcept = default;

  const std::shared_ptr<const executor>& exec() const noexcept { return exec_; }
  std::size_t bytes() const noexcept { return bytes_; }
  /// Host memory (null for device storage and when empty).
  std::byte* host() const noexcept { return host_.get(); }
  /// The device buffer (for host storage: an empty one).
  const runtime::device_buffer& device() const noexcept { return device_; }
  bool on_device() const noexcept { return exec_->device_context() != nullptr; }

  /// Blocking transfers of all bytes from or to host memory.
  void write(const void* source);
  void read(void* destination) const;
  /// Copies all bytes of other (same size, any executors).
  void copy_from(const array_storage& other);
  /// Repeats a pattern of pattern_size bytes (a power of two up to 128) over the storage.
  void fill(const void* pattern, std::size_t pattern_size);

 private:
  struct aligned_delete {
    void operator()(std::byte* p) const noexcept;
  };
  std::shared_ptr<const executor> exec_;
  std::size_t bytes_ = 0;
  std::unique_ptr<std::byte[], aligned_delete> host_;
  runtime::device_buffer device_;
};

}  // namespace tessera::unified
