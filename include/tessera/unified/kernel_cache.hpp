#pragma once
// Traced kernels are traced and built once per (kind, lambda type, argument types) and OpenCL
// context, then kept in a runtime::kernel_cache: later calls cost a lookup. The key is a type,
// so the cache is a static of a function template; the built programs themselves live in the
// runtime's program cache (in memory and as binaries on disk).
#include <array>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <typeinfo>
#include <variant>

#include <tessera/runtime/context.hpp>
#include <tessera/runtime/kernel.hpp>
#include <tessera/runtime/kernel_cache.hpp>
#include <tessera/unified/executor.hpp>
#include <tessera/unified/kernel_trace.hpp>

namespace tessera::unified {

/// The largest work-group a traced kernel is launched with (local arrays are sized for it).
inline constexpr std::size_t max_work_group_size = 256;

/// The work-group size a traced kernel is launched with: a power of two, max_work_group_size
/// or less where the device or this kernel allows less. 256 work-items fill a GPU's scheduler
/// well and keep the local reduction tree short.
inline std::size_t work_group_size(const runtime::kernel& k) { return k.power_of_two_work_group(max_work_group_size); }

/// Ends the trace and builds its program through ctx's program cache; throws
/// unsupported_error when the kernel needs fp64 and the device has none.
runtime::kernel compile(const runtime::context& ctx, kernel_trace& trace);

/// Traces body into a new kernel_trace and compiles it.
runtime::kernel trace_kernel(const runtime::context& ctx, std::string program_name,
                             const std::function<void(const std::shared_ptr<kernel_trace>&)>& body);

/// "run_kernel 1-D of <lambda type>": the program name of a traced kernel.
std::string program_name(const char* operation, const std::type_info& function);

/// The kernels of Key on exec's context, made by build() the first time.
template <typename Key, std::size_t Count, typename Build>
const std::array<runtime::kernel, Count>& cached_kernels(const opencl_executor& exec, Build&& build) {
  static runtime::kernel_cache<std::monostate, std::array<runtime::kernel, Count>> kernels;
  return *kernels.get(exec.ctx(), {}, std::forward<Build>(build));
}

/// The kernels of Key with `number` written into their text (a size the compiler should know),
/// on exec's context: one entry per number, made by build() the first time.
template <typename Key, std::size_t Count, typename Build>
const std::array<runtime::kernel, Count>& cached_kernels(const opencl_executor& exec, std::size_t number,
                                                         Build&& build) {
  static runtime::kernel_cache<std::size_t, std::array<runtime::kernel, Count>> kernels;
  return *kernels.get(exec.ctx(), number, std::forward<Build>(build));
}

}  // namespace tessera::unified
