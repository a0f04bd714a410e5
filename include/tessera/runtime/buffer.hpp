#pragma once
// Device memory. A zero-byte buffer owns no OpenCL object (OpenCL forbids empty buffers).
#include <cstddef>

#include <tessera/runtime/checked_size.hpp>
#include <tessera/runtime/context.hpp>
#include <tessera/runtime/opencl.hpp>

namespace tessera::runtime {

class device_buffer {
 public:
  device_buffer() = default;
  /// Allocates bytes on ctx's device; throws out_of_memory_error, before calling OpenCL,
  /// when bytes exceed the device's largest allocation or its global memory.
  device_buffer(const context& ctx, std::size_t bytes);

  std::size_t bytes() const noexcept { return bytes_; }
  const cl::Buffer& handle() const noexcept { return handle_; }
  const context* owner() const noexcept { return context_; }

  /// Blocking transfers of bytes at offset; bounds are checked.
  void write(std::size_t offset, std::size_t bytes, const void* host) const;
  void read(std::size_t offset, std::size_t bytes, void* host) const;
  /// Enqueues a device-side copy into dst (same context).
  void copy_to(const device_buffer& dst, std::size_t src_offset, std::size_t dst_offset,
               std::size_t bytes) const;

 private:
  void check_range(const char* what, std::size_t offset, std::size_t bytes) const;
  const context* context_ = nullptr;
  cl::Buffer handle_;
  std::size_t bytes_ = 0;
};

}  // namespace tessera::runtime
