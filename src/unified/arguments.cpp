#include <tessera/runtime/error.hpp>
#include <tessera/unified/arguments.hpp>

#include <fmt/format.h>

namespace tessera::unified::detail {

void check_executor(const host_launch& launch, const executor& exec, const executor& owner, std::size_t position) {
  if (!exec.shares_memory_with(owner))
    throw argument_error(fmt::format("{}: argument {} lives on {}, but the kernel runs on {}; copy it with "
                                     "array(exec, other) or dense(exec, other)",
                                     launch.operation, position, owner.description(), exec.description()));
}

void check_default_stride(const host_launch& launch, std::size_t stride, std::size_t position) {
  if (launch.default_stride < 0)
    throw argument_error(fmt::format("{}: argument {} is default_stride(...), which only run_kernel_solver takes",
                                     launch.operation, position));
  if (stride != static_cast<std::size_t>(launch.default_stride))
    throw argument_error(fmt::format("{}: argument {} is marked default_stride but has stride {}, not the default "
                                     "stride {}",
                                     launch.operation, position, stride, launch.default_stride));
}

void check_row_vector(const host_launch& launch, std::size_t rows, std::size_t position) {
  if (rows > 1)
    throw argument_error(fmt::format("{}: argument {} is marked row_vector but has {} rows (a row vector has one)",
                                     launch.operation, position, rows));
}

}  // namespace tessera::unified::detail
