// Host overhead of launching an already-built kernel: what every generated kernel pays before
// any work is done. The runtime's launch, then each front door's cached path around it (cache
// lookup, argument gathering, the launch): a tiny problem, so the host's cost dominates.
#include <tessera/blas/blas.hpp>
#include <tessera/kernel_generator/kernel_generator.hpp>
#include <tessera/runtime/runtime.hpp>
#include <tessera/tile/tile.hpp>
#include <tessera/unified/unified.hpp>

#include <benchmark/benchmark.h>

#include <vector>

namespace rt = tessera::runtime;

namespace {
const char* const trivial_source = "kernel void trivial(global float* x, int n) { if (get_global_id(0) < n) x[0] = n; }";

struct fixture {
  rt::context& ctx = rt::context::get();
  rt::kernel k = ctx.programs().get("trivial", trivial_source)->make_kernel("trivial");
  rt::matrix<float> x{1, 1};
};

/// Runs launch() in the timed loop and drains the queue every 256 launches, so that it never
/// grows without bound; counts launches as items.
template <typename Launch>
void enqueue_only(benchmark::State& state, const rt::context& ctx, Launch&& launch) {
  launch();  // builds and caches whatever the first call builds
  ctx.finish();
  std::size_t launched = 0;
  for (auto _ : state) {
    launch();
    if (++launched % 256 == 0) ctx.finish();
  }
  ctx.finish();
  state.SetItemsProcessed(static_cast<std::int64_t>(launched));
}
}  // namespace

// Enqueue only: the host cost of setting arguments and enqueueing (the queue drains every 256).
static void BM_launch_enqueue_only(benchmark::State& state) {
  fixture f;
  enqueue_only(state, f.ctx, [&] { f.k.launch(f.ctx, rt::launch_range::one_d(64, 64), f.x, 0); });
}
BENCHMARK(BM_launch_enqueue_only)->UseRealTime();

// Launch and wait: the round trip a synchronous caller sees.
static void BM_launch_and_finish(benchmark::State& state) {
  fixture f;
  for (auto _ : state) {
    f.k.launch(f.ctx, rt::launch_range::one_d(64, 64), f.x, 0);
    f.ctx.finish();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_launch_and_finish)->UseRealTime();

// The OpenCL call alone, without tessera's kernel object: clEnqueueNDRangeKernel on the context's
// (profiling) queue, asking for an event as every tessera launch does, and without one; and on a
// queue of the same device without profiling. What a launch costs the driver, and what of it the
// event and the profiling take.
namespace {
void raw_enqueue(benchmark::State& state, const cl::CommandQueue& queue, bool with_event) {
  fixture f;
  f.k.launch(f.ctx, rt::launch_range::one_d(64, 64), f.x, 0);  // the arguments stay set
  f.ctx.finish();
  const cl_kernel kernel = f.k.handle()();
  const std::size_t global = 64, local = 64;
  std::size_t launched = 0;
  for (auto _ : state) {
    cl_event event = nullptr;
    const cl_int status = clEnqueueNDRangeKernel(queue(), kernel, 1, nullptr, &global, &local, 0, nullptr,
                                                 with_event ? &event : nullptr);
    if (status != CL_SUCCESS) state.SkipWithError("clEnqueueNDRangeKernel failed");
    if (event != nullptr) clReleaseEvent(event);
    if (++launched % 256 == 0) queue.finish();
  }
  queue.finish();
  state.SetItemsProcessed(static_cast<std::int64_t>(launched));
}
}  // namespace

static void BM_raw_enqueue_with_event(benchmark::State& state) {
  raw_enqueue(state, rt::context::get().queue(), true);
}
BENCHMARK(BM_raw_enqueue_with_event)->UseRealTime();

static void BM_raw_enqueue_no_event(benchmark::State& state) {
  raw_enqueue(state, rt::context::get().queue(), false);
}
BENCHMARK(BM_raw_enqueue_no_event)->UseRealTime();

static void BM_raw_enqueue_no_event_unprofiled_queue(benchmark::State& state) {
  const rt::context& ctx = rt::context::get();
  const cl::CommandQueue plain(ctx.cl_context(), ctx.device().handle, 0);
  raw_enqueue(state, plain, false);
}
BENCHMARK(BM_raw_enqueue_no_event_unprofiled_queue)->UseRealTime();

// The program cache's in-memory lookup, which every cached front door pays per expression type.
static void BM_program_cache_memory_hit(benchmark::State& state) {
  fixture f;
  for (auto _ : state) benchmark::DoNotOptimize(f.ctx.programs().get("trivial", trivial_source));
}
BENCHMARK(BM_program_cache_memory_hit);

// The kernel generator: `d = a + b` on 8 x 8 matrices, its kernel found in the expression type's cache.
static void BM_kernel_generator_cached_assignment(benchmark::State& state) {
  using namespace tessera::kernel_generator;
  rt::context& ctx = rt::context::get();
  const rt::matrix<float> a(std::vector<float>(64, 1.0f), 8, 8), b(std::vector<float>(64, 2.0f), 8, 8);
  rt::matrix<float> d(8, 8);
  enqueue_only(state, ctx, [&] { d = a + b; });
}
BENCHMARK(BM_kernel_generator_cached_assignment)->UseRealTime();

// Unified kernels: a 1-D run_kernel on 64 elements, traced once.
static void BM_unified_cached_run_kernel(benchmark::State& state) {
  using namespace tessera::unified;
  const auto exec = opencl_executor::create();
  array<float> x(exec, std::vector<float>(64, 1.0f));
  const array<float> alpha(exec, {2.0f});
  enqueue_only(state, exec->ctx(), [&] {
    run_kernel(exec, [](auto i, auto alpha, auto x) { x[i] *= alpha[0]; }, x.size(), alpha, x);
  });
}
BENCHMARK(BM_unified_cached_run_kernel)->UseRealTime();

// Tile: a one-kernel function on 64 elements into the caller's output, its plan cached.
static void BM_tile_cached_call(benchmark::State& state) {
  namespace tile = tessera::tile;
  const tile::function f = tile::compile("function (A[N]) -> (O) { O = A * 2 + 1; }");
  const std::vector<tile::tensor<float>> inputs{tile::tensor<float>({64}, std::vector<float>(64, 1.0f))};
  const std::vector<tile::tensor<float>> outputs{tile::tensor<float>({64})};
  enqueue_only(state, rt::context::get(), [&] { f.run<float>(inputs, outputs); });
}
BENCHMARK(BM_tile_cached_call)->UseRealTime();

// GEMM: 8 x 8 x 8 with the defaults table's configuration, its kernel cached.
static void BM_gemm_cached_small(benchmark::State& state) {
  namespace blas = tessera::blas;
  const rt::matrix<float> a(std::vector<float>(64, 1.0f), 8, 8), b(std::vector<float>(64, 2.0f), 8, 8);
  rt::matrix<float> c(8, 8);
  enqueue_only(state, rt::context::get(),
               [&] { blas::gemm(blas::transpose::none, blas::transpose::none, 1.0f, a, b, 0.0f, c); });
}
BENCHMARK(BM_gemm_cached_small)->UseRealTime();

// GEMM split along K in 4 (two launches, the workspace lease): 8 x 8 x 256, its kernels cached.
static void BM_gemm_cached_split_k(benchmark::State& state) {
  namespace blas = tessera::blas;
  const rt::matrix<float> a(std::vector<float>(8 * 256, 1.0f), 8, 256), b(std::vector<float>(256 * 8, 2.0f), 256, 8);
  rt::matrix<float> c(8, 8);
  const blas::gemm_params split = blas::parse_gemm_params("local item=2x2 wg=4x4 vector_width=2 split_k=4");
  blas::gemm_arguments<float> args;
  args.m = args.n = 8, args.k = 256;
  args.a = &a.storage(), args.lda = 8;
  args.b = &b.storage(), args.ldb = 256;
  args.c = &c.storage(), args.ldc = 8;
  enqueue_only(state, rt::context::get(), [&] { blas::gemm_with(split, args); });
}
BENCHMARK(BM_gemm_cached_split_k)->UseRealTime();

BENCHMARK_MAIN();
