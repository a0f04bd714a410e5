#include <tessera/runtime/device.hpp>
#include <tessera/unified/kernel_cache.hpp>

#include <cstdlib>
#include <memory>

#include <cxxabi.h>
#include <fmt/format.h>

namespace tessera::unified {

runtime::kernel compile(const runtime::context& ctx, kernel_trace& trace) {
  const std::string source = trace.finish();
  if (trace.uses_fp64()) runtime::require_fp64(ctx.device());
  return ctx.programs().get(trace.program_name(), source)->make_kernel(trace.kernel_name());
}

runtime::kernel trace_kernel(const runtime::context& ctx, std::string program_name,
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
