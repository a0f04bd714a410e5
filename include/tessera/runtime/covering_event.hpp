#pragma once
// One event for a call whose work is several commands (a GEMM batch split into launches, an
// assignment that runs a GEMM then an elementwise kernel): every cl::Event a tessera call
// returns covers all of its work, for waiting and for profiling (issue 15, item 3).
//
// A marker enqueued after the commands completes with the last of them, but its own profiling
// times only mark the moment the queue reached it (START = END). So the runtime remembers the
// first command of each covering marker, and elapsed_seconds() and profiled_interval() measure
// from that command's start to the marker's end. Callers that read clGetEventProfilingInfo on
// such an event themselves see the marker's own times: use these functions.
#include <cstdint>

#include <tessera/runtime/opencl.hpp>

namespace tessera::runtime {

class context;

/// A marker enqueued now on ctx's in-order queue, after the commands of a call whose first
/// command is `first` (a kernel's event, a covering event, or a start_marker): waiting on it
/// waits for all of them, and it is profiled from the start of `first` to its own end.
cl::Event covering_event(const context& ctx, const cl::Event& first);

/// A marker enqueued now, standing for the first command of a call whose commands are enqueued
/// by nested calls that keep their events: pass it to covering_event when the call is done.
cl::Event start_marker(const context& ctx);

/// The first command of the work `event` covers: `event` itself unless it came from
/// covering_event.
cl::Event first_command(const cl::Event& event);

/// Device times, in nanoseconds, of the start of the first command `event` covers and of the
/// end of `event`. Waits for `event`.
struct device_interval {
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
};
device_interval profiled_interval(const cl::Event& event);

}  // namespace tessera::runtime
