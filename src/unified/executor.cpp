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
  runtime::workspace_lease lease(*context_);
  const runtime::device_buffer* buffer = &lease.buffer(0, bytes);
  return {std::move(lease), buffer};
}

}  // namespace tessera::unified
