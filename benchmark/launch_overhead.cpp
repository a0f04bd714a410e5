// Host overhead of launching an already-built trivial kernel: what every generated kernel
// pays before any work is done.
#include <tessera/runtime/runtime.hpp>

#include <benchmark/benchmark.h>

namespace rt = tessera::runtime;

namespace {
const char* const trivial_source = "kernel void trivial(global float* x, int n) { if (get_global_id(0) < n) x[0] = n; }";

struct fixture {
  rt::context& ctx = rt::context::get();
  rt::kernel k = ctx.programs().get("trivial", trivial_source)->make_kernel("trivial");
  rt::matrix<float> x{1, 1};
};
}  // namespace

// Enqueue only: the host cost of setting arguments and enqueueing (the queue drains every 256).
static void BM_launch_enqueue_only(benchmark::State& state) {
  fixture f;
  f.ctx.finish();
  std::size_t launched = 0;
  for (auto _ : state) {
    f.k.launch(f.ctx, rt::launch_range::one_d(64, 64), f.x, 0);
    if (++launched % 256 == 0) f.ctx.finish();
  }
  f.ctx.finish();
  state.SetItemsProcessed(static_cast<std::int64_t>(launched));
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

// The program cache's in-memory lookup, which every cached front door pays per expression type.
static void BM_program_cache_memory_hit(benchmark::State& state) {
  fixture f;
  for (auto _ : state) benchmark::DoNotOptimize(f.ctx.programs().get("trivial", trivial_source));
}
BENCHMARK(BM_program_cache_memory_hit);

BENCHMARK_MAIN();
