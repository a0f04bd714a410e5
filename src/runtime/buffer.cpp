#include <tessera/runtime/buffer.hpp>
#include <tessera/runtime/error.hpp>

#include <fmt/format.h>

namespace tessera::runtime {

device_buffer::device_buffer(const context& ctx, std::size_t bytes) : context_(&ctx), bytes_(bytes) {
  if (bytes == 0) return;
  const device_info& dev = ctx.device();
  if (bytes > dev.max_allocation_bytes || bytes > dev.global_memory_bytes)
    throw out_of_memory_error(
        "clCreateBuffer", CL_INVALID_BUFFER_SIZE, bytes,
        fmt::format("device '{}' allows at most {} bytes in one allocation and has {} bytes in all",
                    dev.name, dev.max_allocation_bytes, dev.global_memory_bytes));
  cl_int status = CL_SUCCESS;
  handle_ = cl::Buffer(ctx.cl_context(), CL_MEM_READ_WRITE, bytes, nullptr, &status);
  if (status == CL_MEM_OBJECT_ALLOCATION_FAILURE || status == CL_OUT_OF_RESOURCES ||
      status == CL_OUT_OF_HOST_MEMORY || status == CL_INVALID_BUFFER_SIZE)
    throw out_of_memory_error("clCreateBuffer", status, bytes, fmt::format("device '{}'", dev.name));
  check_cl(status, "clCreateBuffer");
}

void device_buffer::check_range(const char* what, std::size_t offset, std::size_t bytes) const {
  if (offset > bytes_ || bytes > bytes_ - offset)
    throw argument_error(fmt::format("{}: {} bytes at offset {} lie outside a buffer of {} bytes", what, bytes,
                                     offset, bytes_));
}

void device_buffer::write(std::size_t offset, std::size_t bytes, const void* host) const {
  check_range("device_buffer::write", offset, bytes);
  if (bytes == 0) return;
  check_cl(context_->queue().enqueueWriteBuffer(handle_, CL_TRUE, offset, bytes, host), "clEnqueueWriteBuffer");
}

void device_buffer::read(std::size_t offset, std::size_t bytes, void* host) const {
  check_range("device_buffer::read", offset, bytes);
  if (bytes == 0) return;
  check_cl(context_->queue().enqueueReadBuffer(handle_, CL_TRUE, offset, bytes, host), "clEnqueueReadBuffer");
}

void device_buffer::copy_to(const device_buffer& dst, std::size_t src_offset, std::size_t dst_offset,
                            std::size_t bytes) const {
  check_range("device_buffer::copy_to (source)", src_offset, bytes);
  dst.check_range("device_buffer::copy_to (destination)", dst_offset, bytes);
  if (bytes == 0) return;
  check_cl(context_->queue().enqueueCopyBuffer(handle_, dst.handle_, src_offset, dst_offset, bytes),
           "clEnqueueCopyBuffer");
}

}  // namespace tessera::runtime
