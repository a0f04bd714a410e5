#include <tessera/runtime/error.hpp>
#include <tessera/unified/executor.hpp>

#include <algorithm>

#include <fmt/format.h>
#include <omp.h>

namespace tessera::unified {

std::shared_ptr<const omp_executor> omp_executor::create(int num_threads) {
  if (num_threads < 0) throw argument_error(fmt::format("omp_executor: {} threads", num_threads));
  return std::shared_ptr<const omp_executor>(new omp_executor(num_threads == 0 ? omp_get_max_threads() : num_threads));
}

omp_executor::omp_executor(int num_threads) : num_threads_(num_threads) {}

std::string omp_executor::description() const {
  return fmt::format("omp_executor ({} thread{})", num_threads_, num_threads_ == 1 ? "" : "s");
}

std::shared_ptr<const opencl_executor> opencl_executor::create(const runtime::context& ctx) {
  return std::shared_ptr<const opencl_executor>(new opencl_executor(ctx));
}

std::string opencl_executor::description() const {
  return fmt::format("opencl_executor ({})", context_->device().label());
}

void opencl_executor::synchronize() const { context_->finish(); }

opencl_executor::workspace_lease opencl_executor::workspace(std::size_t bytes) const {
  std::unique_lock lock(workspace_mutex_);
  // Growing releases the old buffer; OpenCL keeps it alive until kernels using it finish.
  if (workspace_.bytes() < bytes) workspace_ = runtime::device_buffer(*context_, std::max<std::size_t>(bytes, 4096));
  return {std::move(lock), &workspace_};
}

}  // namespace tessera::unified
