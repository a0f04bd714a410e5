// Fusion: generated kernels against the same computation one kernel per operation, and
// against the device's copy bandwidth (clEnqueueCopyBuffer) measured in the same run.
//
// Every figure is device time from OpenCL profiling events (launch overhead excluded).
// Counters: GB/s = the bytes the kernel(s) must move (each input read once, each output
// written once, per kernel) over that time; for the copy, bytes read + written.
// Ratios are measured interleaved, so that they hold on a busy machine: each iteration of a
// fused benchmark also copies a matrix of the same size (of_copy = its GB/s over the copy's
// GB/s), and each iteration of a chain also runs the fused kernel (fused_speedup = chain
// time over fused time); only the benchmark's own kernels count in its time.
// Sizes: 2^20 .. 2^TESSERA_BENCH_MAX_LOG2 floats (default 24), as matrices of 1024 rows.
#include <tessera/kernel_generator/kernel_generator.hpp>
#include <tessera/runtime/runtime.hpp>

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <vector>

namespace rt = tessera::runtime;
namespace kg = tessera::kernel_generator;
using tessera::matrix;

namespace {

constexpr tessera::index_t rows = 1024;

int max_log2() {
  const char* v = std::getenv("TESSERA_BENCH_MAX_LOG2");
  return v != nullptr ? std::atoi(v) : 24;
}

void sizes(benchmark::internal::Benchmark* b) {
  for (int log2 = 20; log2 <= max_log2(); log2 += 2) b->Arg(std::int64_t{1} << log2);
  b->UseManualTime()->Unit(benchmark::kMicrosecond);
}

matrix<float> filled(std::int64_t n, float value) {
  return matrix<float>(std::vector<float>(static_cast<std::size_t>(n), value), rows, n / rows);
}

void report(benchmark::State& state, double bytes_per_iteration) {
  state.counters["GB/s"] = benchmark::Counter(bytes_per_iteration, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["MB"] = bytes_per_iteration / 1e6;
}

/// Device seconds of copying a to d (clEnqueueCopyBuffer).
double copy_seconds(const matrix<float>& a, matrix<float>& d) {
  cl::Event event;
  rt::check_cl(rt::context::get().queue().enqueueCopyBuffer(a.buffer(), d.buffer(), 0, 0,
                                                             static_cast<std::size_t>(a.size()) * sizeof(float),
                                                             nullptr, &event),
               "clEnqueueCopyBuffer");
  return rt::elapsed_seconds(event);
}

/// Accumulates the device time of a benchmark's kernels and of the reference run beside them.
struct interleaved {
  double own = 0, reference = 0;
};

/// Device time of the copy of n floats: the bandwidth the fused kernels are measured against.
void BM_copy_bandwidth(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const matrix<float> a = filled(n, 1.0f);
  matrix<float> d = filled(n, 0.0f);
  for (auto _ : state) state.SetIterationTime(copy_seconds(a, d));
  report(state, 2.0 * n * sizeof(float));
}
BENCHMARK(BM_copy_bandwidth)->Apply(sizes);

/// d = c * (a + b) as one generated kernel: reads a and b, writes d.
void BM_fused_scaled_sum(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const matrix<float> a = filled(n, 1.0f), b = filled(n, 2.0f);
  matrix<float> d = filled(n, 0.0f);
  matrix<float> copy = filled(n, 0.0f);
  const float c = 0.5f;
  interleaved t;
  for (auto _ : state) {
    const double fused = rt::elapsed_seconds(kg::evaluate(d, c * (a + b)));
    t.own += fused;
    t.reference += copy_seconds(a, copy);
    state.SetIterationTime(fused);
  }
  report(state, 3.0 * n * sizeof(float));
  state.counters["of_copy"] = (3.0 / t.own) / (2.0 / t.reference);
}
BENCHMARK(BM_fused_scaled_sum)->Apply(sizes);

/// The same as two kernels, t = a + b then d = c * t: 3 + 2 matrices moved.
void BM_chain_scaled_sum(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const matrix<float> a = filled(n, 1.0f), b = filled(n, 2.0f);
  matrix<float> t = filled(n, 0.0f), d = filled(n, 0.0f);
  const float c = 0.5f;
  interleaved time;
  for (auto _ : state) {
    const double first = rt::elapsed_seconds(kg::evaluate(t, a + b));
    const double chain = first + rt::elapsed_seconds(kg::evaluate(d, c * t));
    time.own += chain;
    time.reference += rt::elapsed_seconds(kg::evaluate(d, c * (a + b)));
    state.SetIterationTime(chain);
  }
  report(state, 5.0 * n * sizeof(float));
  state.counters["fused_speedup"] = time.own / time.reference;
}
BENCHMARK(BM_chain_scaled_sum)->Apply(sizes);

/// A hand-written kernel for d = c * (a + b), one element per work-item: what generated code
/// is compared with.
void BM_handwritten_scaled_sum(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  auto& ctx = rt::context::get();
  const matrix<float> a = filled(n, 1.0f), b = filled(n, 2.0f);
  matrix<float> d = filled(n, 0.0f);
  const char* source =
      "kernel void scaled_sum(global float* restrict d, global const float* restrict a,\n"
      "                       global const float* restrict b, float c, int n) {\n"
      "  const int k = get_global_id(0);\n"
      "  if (k < n) d[k] = c * (a[k] + b[k]);\n"
      "}\n";
  const rt::kernel k = ctx.programs().get("scaled_sum", source)->make_kernel("scaled_sum");
  const auto range = rt::launch_range::one_d(rt::round_up(static_cast<std::size_t>(n), 256), 256);
  matrix<float> copy = filled(n, 0.0f);
  interleaved t;
  for (auto _ : state) {
    const double handwritten = rt::elapsed_seconds(k.launch(ctx, range, d, a, b, 0.5f, static_cast<int>(n)));
    t.own += handwritten;
    t.reference += copy_seconds(a, copy);
    state.SetIterationTime(handwritten);
  }
  report(state, 3.0 * n * sizeof(float));
  state.counters["of_copy"] = (3.0 / t.own) / (2.0 / t.reference);
}
BENCHMARK(BM_handwritten_scaled_sum)->Apply(sizes);

/// r = elt_multiply(a + b, c - d) * 0.5 + exp(a): six operations, four inputs, one kernel.
void BM_fused_six_operations(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const matrix<float> a = filled(n, 0.25f), b = filled(n, 2.0f), c = filled(n, 3.0f), d = filled(n, 1.0f);
  matrix<float> r = filled(n, 0.0f), copy = filled(n, 0.0f);
  interleaved t;
  for (auto _ : state) {
    const double fused = rt::elapsed_seconds(kg::evaluate(r, kg::elt_multiply(a + b, c - d) * 0.5f + kg::exp(a)));
    t.own += fused;
    t.reference += copy_seconds(a, copy);
    state.SetIterationTime(fused);
  }
  report(state, 5.0 * n * sizeof(float));
  state.counters["of_copy"] = (5.0 / t.own) / (2.0 / t.reference);
}
BENCHMARK(BM_fused_six_operations)->Apply(sizes);

/// The same, one kernel per operation: 3 + 3 + 3 + 2 + 2 + 3 = 16 matrices moved.
void BM_chain_six_operations(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const matrix<float> a = filled(n, 0.25f), b = filled(n, 2.0f), c = filled(n, 3.0f), d = filled(n, 1.0f);
  matrix<float> t1 = filled(n, 0.0f), t2 = filled(n, 0.0f), t3 = filled(n, 0.0f), t4 = filled(n, 0.0f),
                t5 = filled(n, 0.0f), r = filled(n, 0.0f);
  interleaved time;
  for (auto _ : state) {
    double seconds = rt::elapsed_seconds(kg::evaluate(t1, a + b));
    seconds += rt::elapsed_seconds(kg::evaluate(t2, c - d));
    seconds += rt::elapsed_seconds(kg::evaluate(t3, kg::elt_multiply(t1, t2)));
    seconds += rt::elapsed_seconds(kg::evaluate(t4, t3 * 0.5f));
    seconds += rt::elapsed_seconds(kg::evaluate(t5, kg::exp(a)));
    seconds += rt::elapsed_seconds(kg::evaluate(r, t4 + t5));
    time.own += seconds;
    time.reference += rt::elapsed_seconds(kg::evaluate(r, kg::elt_multiply(a + b, c - d) * 0.5f + kg::exp(a)));
    state.SetIterationTime(seconds);
  }
  report(state, 16.0 * n * sizeof(float));
  state.counters["fused_speedup"] = time.own / time.reference;
}
BENCHMARK(BM_chain_six_operations)->Apply(sizes);

}  // namespace

BENCHMARK_MAIN();
