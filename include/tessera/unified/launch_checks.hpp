#pragma once
// The size checks every run_kernel family makes before anything runs, on either executor;
// each throws argument_error naming the operation.
#include <cstddef>
#include <cstdint>

#include <tessera/unified/dim.hpp>

namespace tessera::unified::detail {

/// size as a kernel's long; throws argument_error when it is not one.
std::int64_t checked_extent(const char* operation, std::size_t extent);
/// rows * cols as a kernel's long; throws argument_error when it overflows.
std::int64_t checked_elements(const char* operation, dim<2> size);
/// Throws argument_error unless a result array of available elements holds the needed ones.
void check_result(const char* operation, std::size_t available, std::size_t needed);

}  // namespace tessera::unified::detail
