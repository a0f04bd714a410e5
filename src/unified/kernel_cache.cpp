#include <tessera/runtime/device.hpp>
#include <tessera/unified/kernel_cache.hpp>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <memory>

#include <cxxabi.h>
#include <fmt/format.h>

namespace tessera::unified {

compiled_kernel compile(const runtime::context& ctx, kernel_trace& trace) {
  const std::string source = trace.finish();
  if (trace.uses_fp64()) runtime::require_fp64(ctx.device());
  auto program = ctx.programs().get(trace.program_name(), source);
  compiled_kernel out{program->make_kernel(trace.kernel_name()), 1};
  // 256 work-items fill a GPU's scheduler well and keep the local reduction tree short; a
  // device or kernel limit below it wins.
  std::size_t limit = std::min(max_work_group_size, ctx.device().max_work_group_size);
  std::size_t kernel_limit = 0;
  if (out.kernel.handle().getWorkGroupInfo(ctx.device().handle, CL_KERNEL_WORK_GROUP_SIZE, &kernel_limit) ==
          CL_SUCCESS &&
      kernel_limit > 0)
    limit = std::min(limit, kernel_limit);
  out.work_group_size = std::bit_floor(std::max<std::size_t>(limit, 1));
  return out;
}

compiled_kernel trace_kernel(const runtime::context& ctx, std::string program_name,
                             const std::function<void(const std::shared_ptr<kernel_trace>&)>& body) {
  auto trace = std::make_shared<kernel_trace>("tessera_unified", std::move(program_name));
  body(trace);
  return compile(ctx, *trace);
}

std::string program_name(const char* operation, const std::type_info& function) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(function.name(), nullptr, nullptr, &status),
                                                   std::free);
  return fmt::format("{} of {}", operation, status == 0 && demangled ? demangled.get() : function.name());
}

}  // namespace tessera::unified
