#pragma once
// Traced kernels are traced and built once per (kind, lambda type, argument types) and OpenCL
// context, then kept: later calls cost a lookup. The key is a type, so the cache is a static
// of a function template; the built programs themselves live in the runtime's program cache
// (in memory and as binaries on disk).
#include <array>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <typeinfo>

#include <tessera/runtime/context.hpp>
#include <tessera/runtime/kernel.hpp>
#include <tessera/unified/executor.hpp>
#include <tessera/unified/kernel_trace.hpp>

namespace tessera::unified {

/// The largest work-group a traced kernel is launched with (local arrays are sized for it).
inline constexpr std::size_t max_work_group_size = 256;

/// A built traced kernel and the work-group size it is launched with.
struct compiled_kernel {
  runtime::kernel kernel;
  /// A power of two: max_work_group_size, or less where the device or this kernel allows less.
  std::size_t work_group_size = 1;
};

/// Ends the trace and builds its program through ctx's program cache; throws
/// unsupported_error when the kernel needs fp64 and the device has none.
compiled_kernel compile(const runtime::context& ctx, kernel_trace& trace);

/// Traces body into a new kernel_trace and compiles it.
compiled_kernel trace_kernel(const runtime::context& ctx, std::string program_name,
                             const std::function<void(const std::shared_ptr<kernel_trace>&)>& body);

/// "run_kernel 1-D of <lambda type>": the program name of a traced kernel.
std::string program_name(const char* operation, const std::type_info& function);

/// The kernels of Key on exec's context, made by build() the first time.
template <typename Key, std::size_t Count, typename Build>
const std::array<compiled_kernel, Count>& cached_kernels(const opencl_executor& exec, Build&& build) {
  static std::mutex mutex;
  // Keyed by the cl_context handle: the kernels kept here retain it, so it is never reused.
  static std::map<cl_context, std::array<compiled_kernel, Count>> built;
  std::lock_guard lock(mutex);
  const cl_context key = exec.ctx().cl_context()();
  if (auto it = built.find(key); it != built.end()) return it->second;
  return built.emplace(key, build()).first->second;
}

}  // namespace tessera::unified
