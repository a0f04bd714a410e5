#pragma once
// Executors: where unified kernels run and where their arrays live. The OpenMP executor runs
// a kernel lambda natively on host memory; the OpenCL executor traces it into OpenCL C and
// runs it on a runtime::context's device.
#include <cstddef>
#include <memory>
#include <string>

#include <tessera/runtime/buffer.hpp>
#include <tessera/runtime/context.hpp>
#include <tessera/runtime/workspace.hpp>

namespace tessera::unified {

class executor {
 public:
  virtual ~executor() = default;
  /// "omp (2 threads)", "opencl (0:0 pthread-skylake)": what messages print.
  virtual std::string description() const = 0;
  /// The OpenCL context whose memory this executor uses; null for host memory.
  virtual const runtime::context* device_context() const noexcept = 0;
  /// Whether kernels of this executor can use arrays of `other` directly.
  bool shares_memory_with(const executor& other) const noexcept {
    return device_context() == other.device_context();
  }
};

/// Runs kernels on the host: rows in parallel with OpenMP, columns in unrolled blocks.
class omp_executor final : public executor {
 public:
  /// num_threads 0: OpenMP's default (OMP_NUM_THREADS, else one per core).
  static std::shared_ptr<const omp_executor> create(int num_threads = 0);
  int num_threads() const noexcept { return num_threads_; }
  std::string description() const override;
  const runtime::context* device_context() const noexcept override { return nullptr; }

 private:
  explicit omp_executor(int num_threads);
  int num_threads_;
};

/// Runs kernels on an OpenCL device: each kernel lambda is traced once per argument types.
class opencl_executor final : public executor {
 public:
  /// An executor on ctx (default: the device TESSERA_DEVICE selects); ctx must outlive it.
  static std::shared_ptr<const opencl_executor> create(const runtime::context& ctx = runtime::context::get());
  const runtime::context& ctx() const noexcept { return *context_; }
  std::string description() const override;
  const runtime::context* device_context() const noexcept override { return context_; }
  /// Blocks until every kernel and copy enqueued on this executor has finished.
  void synchronize() const;

  /// Device scratch memory (reductions' partial results), reused from call to call. Keep the
  /// lease until the kernels that use it are enqueued: the in-order queue then runs them
  /// before any later user of the same memory.
  struct workspace_lease {
    runtime::workspace_lease lease;  // the context's (runtime/workspace.hpp)
    const runtime::device_buffer* buffer;
  };
  workspace_lease workspace(std::size_t bytes) const;

 private:
  explicit opencl_executor(const runtime::context& ctx) : context_(&ctx) {}
  const runtime::context* context_;
};

}  // namespace tessera::unified
