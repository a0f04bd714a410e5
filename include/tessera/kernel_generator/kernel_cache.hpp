#pragma once
// The kernel generator's kernels, kept in runtime::kernel_cache: one cache per (targets,
// expressions) type (a variable template: the key is a type, as the design asks), inside it
// one entry per context and aliasing pattern (which matrices are the same object changes the
// parameters and which loads are shared; which have triangular views adds their tests). The
// runtime's program cache below holds the compiled programs.
#include <cstddef>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include <tessera/kernel_generator/argument_list.hpp>
#include <tessera/kernel_generator/reduction_plan.hpp>
#include <tessera/kernel_generator/skeletons.hpp>
#include <tessera/runtime/context.hpp>
#include <tessera/runtime/kernel.hpp>
#include <tessera/runtime/kernel_cache.hpp>

namespace tessera::kernel_generator {

/// How often an assignment found its kernel (or its fused GEMM's store step) in the per-type
/// cache, and how many were generated (a kernel then fetched from the runtime's program cache,
/// which builds it or loads it).
struct kernel_cache_counters {
  std::size_t hits = 0;
  std::size_t generated = 0;
};
kernel_cache_counters cache_counters();

namespace detail {
void count_cache_hit();
void count_generated();
/// The kernel "evaluate" of source, built through ctx's program cache (counted as generated).
runtime::kernel build_kernel(const runtime::context& ctx, const std::string& source);

/// The elementwise kernels of the assignments of type Key.
template <typename Key>
inline runtime::kernel_cache<std::vector<int>, runtime::kernel> elementwise_kernels;
/// The store steps the assignments of type Key fuse into a GEMM (the source before the GEMM's
/// kernels); the GEMM's kernel cache holds the kernels built with them (one per configuration).
template <typename Key>
inline runtime::kernel_cache<std::vector<int>, const std::string> store_steps;

/// cache.get(ctx, pattern, make), counting a hit when make did not run.
template <typename Value, typename Make>
std::shared_ptr<Value> counted_get(runtime::kernel_cache<std::vector<int>, Value>& cache,
                                   const runtime::context& ctx, const std::vector<int>& pattern, Make&& make) {
  bool made = false;
  auto value = cache.get(ctx, pattern, [&] {
    made = true;
    return make();
  });
  if (!made) count_cache_hit();
  return value;
}

/// The elementwise kernel of an assignment: found in cache (its type's) or generated, launched
/// with its arguments. reductions: which of its reductions are materialized
/// (reduction_skeleton.hpp), a part of the key since a materialized reduction is read instead of
/// computed; so is the split.
cl::Event launch_elementwise(runtime::kernel_cache<std::vector<int>, runtime::kernel>& cache, const assignment_code& code,
                             shape result, const runtime::context& ctx, const std::vector<int>& reductions);

template <typename Key, typename... Targets, typename... Expressions>
cl::Event launch_elementwise_assignment(const std::tuple<Targets...>& targets,
                                        const std::tuple<Expressions...>& expressions, shape result,
                                        const runtime::context& ctx, const std::vector<int>& reductions = {}) {
  return launch_elementwise(elementwise_kernels<Key>, code_of(targets, expressions), result, ctx, reductions);
}
}  // namespace detail

}  // namespace tessera::kernel_generator
