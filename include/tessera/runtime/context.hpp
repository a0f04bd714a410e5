#pragma once
// A device with its context, one in-order profiling queue and its program cache.
// OpenCL's API is thread-safe for these objects, so a context is shared by threads.
// Every queue is finished before the process exits (also when main returns with work still
// queued), so that no driver thread runs while the driver is being unloaded.
#include <memory>

#include <tessera/runtime/device.hpp>
#include <tessera/runtime/opencl.hpp>
#include <tessera/runtime/program_cache.hpp>

namespace tessera::runtime {

class context {
 public:
  /// A context on the given device; the disk cache follows the environment.
  explicit context(device_info device);
  context(device_info device, std::optional<std::filesystem::path> disk_cache_directory);
  context(const context&) = delete;
  context& operator=(const context&) = delete;
  /// Waits for the queue's work: nothing tessera enqueued outlives its context.
  ~context();

  /// The process-wide context on the device TESSERA_DEVICE selects (made on first use).
  static context& get();

  const device_info& device() const noexcept { return device_; }
  const cl::Context& cl_context() const noexcept { return context_; }
  const cl::CommandQueue& queue() const noexcept { return queue_; }
  program_cache& programs() const noexcept { return *programs_; }

  /// Blocks until everything enqueued so far has finished.
  void finish() const;

 private:
  device_info device_;
  cl::Context context_;
  cl::CommandQueue queue_;
  std::unique_ptr<program_cache> programs_;
};

}  // namespace tessera::runtime
