#pragma once
// The device time of unified calls, for benchmarks: while a launch_recorder lives, every kernel
// the OpenCL executor enqueues on this thread keeps its event, and device_seconds() measures
// from the first kernel's start to the last one's end (OpenCL profiling: the runtime's queues
// profile), the way the kernel generator's benchmarks time a call's kernels. Host time spent
// enqueueing before the first kernel and waiting after the last is not counted.
#include <cstddef>
#include <cstdint>
#include <vector>

#include <tessera/runtime/error.hpp>
#include <tessera/runtime/opencl.hpp>

namespace tessera::unified {

class launch_recorder;

namespace detail {
inline thread_local launch_recorder* active_recorder = nullptr;
inline void record_launch(const cl::Event& event);
}  // namespace detail

class launch_recorder {
 public:
  launch_recorder() : previous_(detail::active_recorder) { detail::active_recorder = this; }
  ~launch_recorder() { detail::active_recorder = previous_; }
  launch_recorder(const launch_recorder&) = delete;
  launch_recorder& operator=(const launch_recorder&) = delete;

  /// Adds a command enqueued outside the unified kernels (a copy, a hand-written kernel), so
  /// that it is timed the same way.
  void record(const cl::Event& event) { events_.push_back(event); }
  /// Commands recorded since construction or the last clear().
  std::size_t launches() const { return events_.size(); }
  void clear() { events_.clear(); }

  /// Waits for the recorded kernels; seconds from the first one's start to the last one's end
  /// (0 when none was recorded).
  double device_seconds() const {
    if (events_.empty()) return 0;
    runtime::check_cl(events_.back().wait(), "clWaitForEvents");
    cl_ulong start = 0, end = 0;
    runtime::check_cl(events_.front().getProfilingInfo(CL_PROFILING_COMMAND_START, &start),
                      "clGetEventProfilingInfo");
    runtime::check_cl(events_.back().getProfilingInfo(CL_PROFILING_COMMAND_END, &end), "clGetEventProfilingInfo");
    return end > start ? static_cast<double>(end - start) * 1e-9 : 0.0;
  }

 private:
  std::vector<cl::Event> events_;
  launch_recorder* previous_;
};

namespace detail {
/// Called by every OpenCL launch of the unified kernels.
inline void record_launch(const cl::Event& event) {
  if (active_recorder != nullptr) active_recorder->record(event);
}
}  // namespace detail

}  // namespace tessera::unified
