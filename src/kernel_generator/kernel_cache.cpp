#include <tessera/kernel_generator/kernel_cache.hpp>

#include <atomic>

namespace tessera::kernel_generator {

namespace {
std::atomic<std::size_t> hits{0};
std::atomic<std::size_t> generated{0};
}  // namespace

kernel_cache_counters cache_counters() { return {hits.load(), generated.load()}; }

namespace detail {

void count_cache_hit() { ++hits; }
void count_generated() { ++generated; }

runtime::kernel build_kernel(const runtime::context& ctx, const std::string& source) {
  runtime::kernel kernel = ctx.programs().get("kernel_generator", source)->make_kernel("evaluate");
  ++generated;
  return kernel;
}

}  // namespace detail
}  // namespace tessera::kernel_generator
