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

cl::Event launch_elementwise(runtime::kernel_cache<std::vector<int>, runtime::kernel>& cache, const assignment_code& code,
                             shape result, const runtime::context& ctx, const std::vector<int>& reductions) {
  // The pattern is taken after the targets are prepared: preparing may change a view.
  matrix_recorder recorder;
  code.record_matrices(recorder);
  const elementwise_split split = choose_elementwise_split(planning_device(ctx.device()), result.rows, result.cols,
                                                           recorder.rows_in_vectors(vector_rows),
                                                           recorder.one_row_each());
  std::vector<int> pattern = recorder.aliasing_pattern();
  pattern.push_back(-1);
  pattern.insert(pattern.end(), reductions.begin(), reductions.end());
  pattern.push_back(static_cast<int>(split));
  const auto kernel = counted_get(cache, ctx, pattern, [&] { return build_kernel(ctx, generate_kernel_source(code, split)); });
  const elementwise_launch launch =
      plan_elementwise_launch(split, kernel->power_of_two_work_group(256), result.rows, result.cols);
  argument_list arguments;
  code.gather_arguments(arguments, result.rows, result.cols);
  const auto given = arguments.arguments();
  std::vector<runtime::kernel_argument> values(given.begin(), given.end());
  if (takes_item_step(split)) values.emplace_back(launch.item_step);
  return kernel->launch(ctx, launch.range, values);
}

}  // namespace detail
}  // namespace tessera::kernel_generator
