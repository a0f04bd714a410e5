#include <tessera/runtime/context.hpp>
#include <tessera/runtime/error.hpp>

namespace tessera::runtime {

context::context(device_info device) : context(device, disk_cache_directory_from_environment()) {}

context::context(device_info device, std::optional<std::filesystem::path> disk_cache_directory)
    : device_(std::move(device)) {
  if (!device_.handle()) throw argument_error("context: the device description has no OpenCL device");
  cl_int status = CL_SUCCESS;
  context_ = cl::Context(device_.handle, nullptr, nullptr, nullptr, &status);
  check_cl(status, "clCreateContext");
  queue_ = cl::CommandQueue(context_, device_.handle, CL_QUEUE_PROFILING_ENABLE, &status);
  check_cl(status, "clCreateCommandQueue");
  programs_ = std::make_unique<program_cache>(*this, std::move(disk_cache_directory));
}

context& context::get() {
  // Never destroyed: OpenCL drivers may already be unloaded when static destructors run.
  static context* const instance = new context(select_device_from_environment());
  return *instance;
}

void context::finish() const { check_cl(queue_.finish(), "clFinish"); }

}  // namespace tessera::runtime
