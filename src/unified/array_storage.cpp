#include <tessera/runtime/error.hpp>
#include <tessera/unified/array_storage.hpp>

#include <cstring>
#include <new>

#include <fmt/format.h>

namespace tessera::unified {

namespace {
// Cache-line alignment: OpenMP threads then never share a line at chunk borders by accident
// of the allocator, and vector loads of the first element are aligned.
constexpr std::size_t host_alignment = 64;
}  // namespace

void array_storage::aligned_delete::operator()(std::byte* p) const noexcept {
  ::operator delete[](p, std::align_val_t(host_alignment));
}

array_storage::array_storage(std::shared_ptr<const executor> exec, std::size_t bytes, const char* what)
    : exec_(std::move(exec)), bytes_(bytes) {
  if (!exec_) throw argument_error(fmt::format("{}: the executor is null", what));
  if (const runtime::context* ctx = exec_->device_context()) {
    device_ = runtime::device_buffer(*ctx, bytes);
  } else if (bytes != 0) {
    host_.reset(static_cast<std::byte*>(::operator new[](bytes, std::align_val_t(host_alignment))));
  }
}

void array_storage::write(const void* source) {
  if (bytes_ == 0) return;
  if (on_device()) device_.write(0, bytes_, source);
  else std::memcpy(host_.get(), source, bytes_);
}

void array_storage::read(void* destination) const {
  if (bytes_ == 0) return;
  if (on_device()) device_.read(0, bytes_, destination);
  else std::memcpy(destination, host_.get(), bytes_);
}

void array_storage::copy_from(const array_storage& other) {
  if (other.bytes_ != bytes_)
    throw argument_error(fmt::format("array copy: {} bytes into {} bytes", other.bytes_, bytes_));
  if (bytes_ == 0) return;
  if (!other.on_device()) {
    write(other.host_.get());
  } else if (!on_device()) {
    other.read(host_.get());
  } else if (exec_->device_context() == other.exec_->device_context()) {
    other.device_.copy_to(device_, 0, 0, bytes_);
  } else {
    // Two contexts share no memory: through the host.
    std::unique_ptr<std::byte[]> staging(new std::byte[bytes_]);
    other.read(staging.get());
    write(staging.get());
  }
}

void array_storage::fill(const void* pattern, std::size_t pattern_size) {
  if (bytes_ == 0) return;
  if (on_device()) {
    const runtime::context& ctx = *exec_->device_context();
    runtime::check_cl(::clEnqueueFillBuffer(ctx.queue()(), device_.handle()(), pattern, pattern_size, 0, bytes_, 0,
                                            nullptr, nullptr),
                      "clEnqueueFillBuffer");
  } else {
    for (std::size_t offset = 0; offset < bytes_; offset += pattern_size)
      std::memcpy(host_.get() + offset, pattern, pattern_size);
  }
}

}  // namespace tessera::unified
