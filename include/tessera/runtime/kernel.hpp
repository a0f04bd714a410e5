#pragma once
// A built kernel and the one launch path of tessera: every front door (kernel generator,
// unified kernels, Tile, GEMM) sets arguments and enqueues through kernel::launch, so the
// launch counter sees every launch and only this file and kernel.cpp call OpenCL to do it.
// Argument setting and enqueueing happen under one lock per kernel object, since
// clSetKernelArg is not thread-safe per kernel.
#include <array>
#include <bit>
#include <cstddef>
#include <cstring>
#include <memory>
#include <mutex>
#include <ranges>
#include <span>
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

/// Whether a launch returns an event. Making one is not free: on an H200's OpenCL driver (580)
/// clEnqueueNDRangeKernel took 11.4 us of host time with an event and 4.1 us without, so a caller
/// that waits with a later command or clFinish asks for none (CLBlast's event pointer may be null
/// for the same reason).
enum class launch_event { returned, none };

/// n rounded up to a multiple of step (step > 0).
constexpr std::size_t round_up(std::size_t n, std::size_t step) { return (n + step - 1) / step * step; }

/// A `local` pointer parameter: work-group memory of this many bytes, allocated per launch.
struct local_memory {
  std::size_t bytes;
};

/// One argument of a launch, as clSetKernelArg takes it: a scalar's bytes, a buffer (a
/// cl::Buffer, or anything with buffer(): a matrix), or work-group memory. It copies the
/// value, so a list of them can be gathered first and set later (a front door's argument
/// list, a GEMM's epilogue arguments after the GEMM's own).
class kernel_argument {
 public:
  /// The largest scalar an argument holds (a float4 fits; tessera passes 8 bytes at most).
  static constexpr std::size_t max_scalar_bytes = 16;

  kernel_argument(local_memory memory) noexcept : size_(memory.bytes), local_(true) {}
  kernel_argument(const cl::Buffer& buffer) noexcept : kernel_argument(buffer()) {}
  template <typename T>
    requires requires(const T& value) { value.buffer(); }
  kernel_argument(const T& value) noexcept : kernel_argument(value.buffer()) {}
  template <typename T>
    requires(!requires(const T& value) { value.buffer(); })
  kernel_argument(const T& value) noexcept : size_(sizeof(T)) {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= max_scalar_bytes,
                  "kernel arguments are scalars, buffers, matrices or local_memory");
    std::memcpy(bytes_, &value, sizeof(T));
  }

  std::size_t size() const noexcept { return size_; }
  /// What clSetKernelArg reads: null for local memory.
  const void* value() const noexcept { return local_ ? nullptr : bytes_; }

 private:
  std::size_t size_;
  bool local_ = false;
  alignas(16) unsigned char bytes_[max_scalar_bytes] = {};
};

class kernel {
 public:
  kernel() = default;
  /// max_work_group_size: the largest work-group this kernel runs on its device (registers and
  /// local memory count); preferred_multiple: the work-group size multiple the device prefers
  /// (a warp, a SIMD width). program::make_kernel queries both.
  kernel(cl::Kernel handle, std::string name, std::size_t max_work_group_size, std::size_t preferred_multiple)
      : handle_(std::move(handle)),
        name_(std::move(name)),
        max_work_group_size_(max_work_group_size),
        preferred_multiple_(preferred_multiple),
        mutex_(std::make_shared<std::mutex>()) {}

  const std::string& name() const noexcept { return name_; }
  const cl::Kernel& handle() const noexcept { return handle_; }
  std::size_t max_work_group_size() const noexcept { return max_work_group_size_; }
  std::size_t preferred_work_group_multiple() const noexcept { return preferred_multiple_; }
  /// The largest power of two not above cap nor this kernel's limit: the work-group size of
  /// front doors that size work-groups in powers of two (reduction trees, 2-D tilings).
  std::size_t power_of_two_work_group(std::size_t cap) const noexcept {
    return std::bit_floor(std::max<std::size_t>(std::min(cap, max_work_group_size_), 1));
  }

  /// Sets arguments 0, 1, ... and enqueues on ctx's queue. An empty range enqueues a marker
  /// instead (OpenCL rejects zero-sized launches), so the event is always valid; with
  /// launch_event::none no event is made (an empty one is returned, and an empty range enqueues
  /// nothing).
  cl::Event launch(const context& ctx, const launch_range& range, std::span<const kernel_argument> arguments,
                   launch_event event = launch_event::returned) const;
  /// The same with the arguments written out (a range of them goes to the overload above).
  template <typename... Args>
    requires(!(std::ranges::range<Args> || ...))
  cl::Event launch(const context& ctx, const launch_range& range, const Args&... args) const {
    const std::array<kernel_argument, sizeof...(Args)> arguments{kernel_argument(args)...};
    return launch(ctx, range, std::span<const kernel_argument>(arguments));
  }

 private:
  cl::Kernel handle_;
  std::string name_;
  std::size_t max_work_group_size_ = 0;
  std::size_t preferred_multiple_ = 1;
  std::shared_ptr<std::mutex> mutex_;
};

/// Kernels enqueued through runtime::kernel so far, by every front door (tests count launches).
std::size_t kernels_enqueued();

/// Seconds between an event's start and end (queues have profiling enabled); for an event a
/// call returned, from its first command's start to its last one's end (covering_event.hpp).
double elapsed_seconds(const cl::Event& event);

}  // namespace tessera::runtime
