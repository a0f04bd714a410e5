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

void kernel::check_argument(cl_int status, cl_uint index) const {
  if (status != CL_SUCCESS)
    throw opencl_error("clSetKernelArg", status, fmt::format("kernel '{}', argument {}", name_, index));
}

cl::Event kernel::enqueue(const context& ctx, const launch_range& range) const {
  cl::Event event;
  cl_int status;
  if (range.empty()) {
    status = ctx.queue().enqueueMarkerWithWaitList(nullptr, &event);
    if (status != CL_SUCCESS) throw opencl_error("clEnqueueMarkerWithWaitList", status, name_);
    return event;
  }
  const bool has_local = range.local[0] != 0;
  const std::size_t* local = has_local ? range.local.data() : nullptr;
  cl_event raw = nullptr;
  status = ::clEnqueueNDRangeKernel(ctx.queue()(), handle_(), range.dimensions, nullptr,
                                    range.global.data(), local, 0, nullptr, &raw);
  if (status != CL_SUCCESS) {
    std::string detail = fmt::format("kernel '{}', global {}", name_,
                                     fmt::join(range.global.begin(), range.global.begin() + range.dimensions, "x"));
    if (has_local)
      detail += fmt::format(", local {}", fmt::join(range.local.begin(), range.local.begin() + range.dimensions, "x"));
    throw opencl_error("clEnqueueNDRangeKernel", status, detail);
  }
  ++enqueued;
  return cl::Event(raw);  // takes ownership
}

double elapsed_seconds(const cl::Event& event) {
  const device_interval interval = profiled_interval(event);  // all of a covering event's work
  return static_cast<double>(interval.end_ns - interval.start_ns) * 1e-9;
}

}  // namespace tessera::runtime
