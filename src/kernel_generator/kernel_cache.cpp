#include <tessera/kernel_generator/assignment.hpp>
#include <tessera/runtime/context.hpp>
#include <tessera/runtime/error.hpp>

#include <algorithm>
#include <atomic>
#include <bit>

namespace tessera::kernel_generator {

namespace {
std::atomic<std::size_t> hits{0};
std::atomic<std::size_t> generated{0};

/// The largest power of two not above n (n >= 1).
std::size_t floor_power_of_two(std::size_t n) { return std::bit_floor(std::max<std::size_t>(n, 1)); }
}  // namespace

kernel_cache_counters cache_counters() { return {hits.load(), generated.load()}; }

namespace detail {

void count_cache_hit() { ++hits; }
void count_generated() { ++generated; }

const blas::gemm_params*& fused_gemm_params() {
  thread_local const blas::gemm_params* params = nullptr;
  return params;
}

std::shared_ptr<generated_kernel> build_kernel(const runtime::context& ctx, std::string source) {
  auto result = std::make_shared<generated_kernel>();
  auto program = ctx.programs().get("kernel_generator", source);
  result->kernel = program->make_kernel("evaluate");
  result->source = std::move(source);
  std::size_t size = 0;
  runtime::check_cl(::clGetKernelWorkGroupInfo(result->kernel.handle()(), ctx.device().handle(),
                                               CL_KERNEL_WORK_GROUP_SIZE, sizeof size, &size, nullptr),
                    "clGetKernelWorkGroupInfo");
  result->max_work_group_size = size;
  ++generated;
  return result;
}

cl::Event launch_elementwise(generated_kernel& kernel, const runtime::context& ctx, const argument_list& arguments,
                             index_t rows, index_t cols) {
  // Work-groups of up to 256 work-items, along the columns' contiguous rows first; a short
  // matrix (a row vector) gets its work-items along the columns instead, so none idle.
  const std::size_t limit = floor_power_of_two(std::min<std::size_t>(
      {std::size_t{256}, kernel.max_work_group_size, ctx.device().max_work_group_size}));
  const auto r = static_cast<std::size_t>(rows), c = static_cast<std::size_t>(cols);
  const std::size_t local0 = std::min(limit, std::bit_ceil(r));
  const std::size_t local1 = std::min(limit / local0, std::bit_ceil(c));
  // The columns' work-groups spread over the second and third dimensions (at most 65535
  // in each on NVIDIA's driver); the kernel combines them into j.
  constexpr std::size_t max_groups = 65535;
  const std::size_t groups = (c + local1 - 1) / local1;
  const std::size_t groups1 = std::min(groups, max_groups);
  const std::size_t groups2 = (groups + groups1 - 1) / groups1;
  const runtime::launch_range range{{runtime::round_up(r, local0), groups1 * local1, groups2}, {local0, local1, 1}, 3};
  return kernel.kernel.launch(ctx, range, arguments.arguments());
}

cl::Event enqueue_marker(const runtime::context& ctx) {
  cl::Event event;
  runtime::check_cl(ctx.queue().enqueueMarkerWithWaitList(nullptr, &event), "clEnqueueMarkerWithWaitList");
  return event;
}

void throw_different_contexts() {
  throw argument_error(
      "assignment: the matrices of one expression live in different contexts (devices); copy them to one first");
}

}  // namespace detail
}  // namespace tessera::kernel_generator
