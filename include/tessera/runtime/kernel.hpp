#pragma once
// A kernel object that may be launched from several threads: argument setting and
// enqueueing happen under one lock, since clSetKernelArg is not thread-safe per kernel.
#include <array>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>

#include <tessera/runtime/error.hpp>
#include <tessera/runtime/opencl.hpp>

namespace tessera::runtime {

class context;

/// Global and (optional) local work sizes of a launch, up to three dimensions.
struct launch_range {
  std::array<std::size_t, 3> global{1, 1, 1};
  std::array<std::size_t, 3> local{0, 0, 0};  // all zero: the driver chooses
  unsigned dimensions = 1;

  static launch_range one_d(std::size_t global, std::size_t local = 0) {
    return {{global, 1, 1}, {local, 0, 0}, 1};
  }
  static launch_range two_d(std::size_t global0, std::size_t global1, std::size_t local0 = 0,
                            std::size_t local1 = 0) {
    return {{global0, global1, 1}, {local0, local1, 0}, 2};
  }
  bool empty() const noexcept {
    for (unsigned d = 0; d < dimensions; ++d)
      if (global[d] == 0) return true;
    return false;
  }
};

/// n rounded up to a multiple of step (step > 0).
constexpr std::size_t round_up(std::size_t n, std::size_t step) { return (n + step - 1) / step * step; }

/// A `local` pointer parameter: work-group memory of this many bytes, allocated per launch.
struct local_memory {
  std::size_t bytes;
};

class kernel {
 public:
  kernel() = default;
  kernel(cl::Kernel handle, std::string name)
      : handle_(std::move(handle)), name_(std::move(name)), mutex_(std::make_shared<std::mutex>()) {}

  const std::string& name() const noexcept { return name_; }
  const cl::Kernel& handle() const noexcept { return handle_; }

  /// Sets the arguments in order and enqueues on ctx's queue. An empty range enqueues
  /// a marker instead (OpenCL rejects zero-sized launches), so the event is always valid.
  template <typename... Args>
  cl::Event launch(const context& ctx, const launch_range& range, const Args&... args) const {
    std::lock_guard lock(*mutex_);
    cl_uint index = 0;
    (set_argument(index++, args), ...);
    return enqueue(ctx, range);
  }
  /// launch, after which more(handle, n) sets arguments n, n + 1, ... under the same lock:
  /// for kernels with a variable tail of parameters (a GEMM with an epilogue's inputs).
  template <typename More, typename... Args>
  cl::Event launch_extended(const context& ctx, const launch_range& range, const More& more,
                            const Args&... args) const {
    std::lock_guard lock(*mutex_);
    cl_uint index = 0;
    (set_argument(index++, args), ...);
    more(handle_, index);
    return enqueue(ctx, range);
  }

 private:
  template <typename T>
  void set_argument(cl_uint index, const T& value) const {
    if constexpr (std::is_same_v<T, local_memory>) {
      check_argument(::clSetKernelArg(handle_(), index, value.bytes, nullptr), index);
    } else if constexpr (std::is_same_v<T, cl::Buffer>) {
      cl_mem mem = value();
      check_argument(::clSetKernelArg(handle_(), index, sizeof(cl_mem), &mem), index);
    } else if constexpr (requires { value.buffer(); }) {
      set_argument(index, value.buffer());
    } else {
      static_assert(std::is_trivially_copyable_v<T>, "kernel arguments are scalars, buffers or matrices");
      check_argument(::clSetKernelArg(handle_(), index, sizeof(T), &value), index);
    }
  }
  void check_argument(cl_int status, cl_uint index) const;
  cl::Event enqueue(const context& ctx, const launch_range& range) const;

  cl::Kernel handle_;
  std::string name_;
  std::shared_ptr<std::mutex> mutex_;
};

/// Kernels enqueued through runtime::kernel so far, by every front door (tests count launches).
std::size_t kernels_enqueued();

/// Seconds between an event's start and end (queues have profiling enabled); for an event a
/// call returned, from its first command's start to its last one's end (covering_event.hpp).
double elapsed_seconds(const cl::Event& event);

}  // namespace tessera::runtime
