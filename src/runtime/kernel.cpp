#include <tessera/runtime/context.hpp>
#include <tessera/runtime/covering_event.hpp>
#include <tessera/runtime/kernel.hpp>

#include <atomic>

#include <fmt/format.h>

namespace tessera::runtime {

namespace {
std::atomic<std::size_t> enqueued{0};
}  // namespace

std::size_t kernels_enqueued() { return enqueued.load(); }

cl::Event kernel::launch(const context& ctx, const launch_range& range, std::span<const kernel_argument> arguments,
                         launch_event wanted) const {
  if (!mutex_) throw error("runtime::kernel: launch of a kernel that was never built");
  std::lock_guard lock(*mutex_);
  for (std::size_t index = 0; index < arguments.size(); ++index) {
    const cl_int status = ::clSetKernelArg(handle_(), static_cast<cl_uint>(index), arguments[index].size(),
                                           arguments[index].value());
    if (status != CL_SUCCESS)
      throw opencl_error("clSetKernelArg", status, fmt::format("kernel '{}', argument {}", name_, index));
  }
  cl::Event event;
  const bool returned = wanted == launch_event::returned;
  if (range.empty()) {
    if (!returned) return event;
    const cl_int status = ctx.queue().enqueueMarkerWithWaitList(nullptr, &event);
    if (status != CL_SUCCESS) throw opencl_error("clEnqueueMarkerWithWaitList", status, name_);
    return event;
  }
  const bool has_local = range.local[0] != 0;
  const std::size_t* local = has_local ? range.local.data() : nullptr;
  cl_event raw = nullptr;
  const cl_int status = ::clEnqueueNDRangeKernel(ctx.queue()(), handle_(), range.dimensions, nullptr,
                                                 range.global.data(), local, 0, nullptr, returned ? &raw : nullptr);
  if (status != CL_SUCCESS) {
    std::string detail = fmt::format("kernel '{}', global {}", name_,
                                     fmt::join(range.global.begin(), range.global.begin() + range.dimensions, "x"));
    if (has_local)
      detail += fmt::format(", local {}", fmt::join(range.local.begin(), range.local.begin() + range.dimensions, "x"));
    throw opencl_error("clEnqueueNDRangeKernel", status, detail);
  }
  ++enqueued;
  return cl::Event(raw);  // takes ownership (null without an event: an empty one)
}

double elapsed_seconds(const cl::Event& event) {
  const device_interval interval = profiled_interval(event);  // all of a covering event's work
  return static_cast<double>(interval.end_ns - interval.start_ns) * 1e-9;
}

}  // namespace tessera::runtime
