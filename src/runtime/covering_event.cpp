#include <tessera/runtime/context.hpp>
#include <tessera/runtime/covering_event.hpp>
#include <tessera/runtime/error.hpp>

#include <mutex>
#include <unordered_map>

namespace tessera::runtime {

namespace {

// The first command of every covering marker a caller may still hold. An entry holds a
// reference to its marker, so the marker's handle cannot be reused by another event while the
// entry lives; entries are dropped once that reference is the marker's last (the caller let go).
class covering_markers {
 public:
  void add(const cl::Event& marker, const cl::Event& first) {
    std::lock_guard lock(mutex_);
    forget_released();
    entries_.emplace(marker(), entry{marker, first});
  }
  cl::Event first_of(const cl::Event& event) {
    std::lock_guard lock(mutex_);
    const auto it = entries_.find(event());
    return it == entries_.end() ? event : it->second.first;
  }

 private:
  struct entry {
    cl::Event marker;
    cl::Event first;
  };
  void forget_released() {
    for (auto it = entries_.begin(); it != entries_.end();) {
      cl_uint references = 0;
      const bool only_ours = it->second.marker.getInfo(CL_EVENT_REFERENCE_COUNT, &references) == CL_SUCCESS &&
                             references <= 1;
      it = only_ours ? entries_.erase(it) : std::next(it);
    }
  }

  std::mutex mutex_;
  std::unordered_map<cl_event, entry> entries_;
};

covering_markers& markers() {
  static covering_markers* const instance = new covering_markers;  // used until exit
  return *instance;
}

cl::Event enqueue_marker(const context& ctx) {
  cl::Event marker;
  check_cl(ctx.queue().enqueueMarkerWithWaitList(nullptr, &marker), "clEnqueueMarkerWithWaitList");
  return marker;
}

std::uint64_t profiling_time(const cl::Event& event, cl_profiling_info what) {
  cl_ulong value = 0;
  check_cl(event.getProfilingInfo(what, &value), "clGetEventProfilingInfo");
  return value;
}

}  // namespace

cl::Event covering_event(const context& ctx, const cl::Event& first) {
  // The queue is in order: a marker without a wait list completes after everything before it.
  cl::Event marker = enqueue_marker(ctx);
  markers().add(marker, first_command(first));
  return marker;
}

cl::Event start_marker(const context& ctx) { return enqueue_marker(ctx); }

cl::Event first_command(const cl::Event& event) { return markers().first_of(event); }

device_interval profiled_interval(const cl::Event& event) {
  // Both waited for: a driver may report a marker complete a moment before it has recorded the
  // end of the command the marker waited on (PoCL does: CL_PROFILING_INFO_NOT_AVAILABLE).
  const cl::Event first = first_command(event);
  check_cl(event.wait(), "clWaitForEvents");
  check_cl(first.wait(), "clWaitForEvents");
  return {profiling_time(first, CL_PROFILING_COMMAND_START), profiling_time(event, CL_PROFILING_COMMAND_END)};
}

}  // namespace tessera::runtime
