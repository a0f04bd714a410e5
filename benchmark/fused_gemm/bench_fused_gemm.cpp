// Fused GEMM (issue 7): C = relu(A * B + bias), bias an M x 1 column broadcast along the rows,
// three ways on the same device and buffers:
//   fused/...            one kernel: matmul in a kernel-generator expression (the GEMM with
//                        the expression in its store step, the defaults table's configuration)
//   tessera_unfused/...  blas::gemm (the same defaults), then c = relu(c + bias) as a kernel
//   clblast_unfused/...  CLBlastSgemm, then the same separate kernel
//   fused_tf32/..., tessera_unfused_tf32/...  the first two with blas::math_mode::tf32 (the
//                        tensor-core family where the device has one; elsewhere exact), checked
//                        against tf32_gemm_tolerance
// Named <path>/<m>x<n>x<k>; float, A and B not transposed. Each path is verified once against
// OpenBLAS + the epilogue on the host (max_rel_err), then timed from the first enqueue to the
// end of the last call of an iteration (manual time per call); GFLOP/s counts 2mnk.
//
// Sizes: M = N = 4096 with K in {64, 256, 4096}, and 1024 x 1024 x K for quick runs. On a
// CPU (PoCL) filter out K = 4096 at 4096: --benchmark_filter='/4096x4096x(64|256)$'.
#include <tessera/baselines/gemm_implementations.hpp>
#include <tessera/blas/blas.hpp>
#include <tessera/kernel_generator/kernel_generator.hpp>
#include <tessera/runtime/runtime.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <map>
#include <memory>
#include <vector>

#include <fmt/format.h>

namespace baselines = tessera::baselines;
namespace blas = tessera::blas;
namespace kg = tessera::kernel_generator;
namespace rt = tessera::runtime;

namespace {

struct shape {
  std::int64_t m, n, k;
  std::string name() const { return fmt::format("{}x{}x{}", m, n, k); }
  baselines::gemm_shape gemm() const { return {false, false, m, n, k, 1}; }
  double flops() const { return gemm().flops(); }
};

/// Inputs on the host and the device, and the host reference, made once per shape.
struct problem {
  shape s;
  std::vector<float> a, b, bias, reference;
  rt::matrix<float> da, db, dbias, dc;

  explicit problem(const shape& sh) : s(sh) {
    a = baselines::random_values<float>(std::size_t(s.m * s.k), 12345);
    b = baselines::random_values<float>(std::size_t(s.k * s.n), 12346);
    bias = baselines::random_values<float>(std::size_t(s.m), 12347);
    da = rt::matrix<float>(a, s.m, s.k), db = rt::matrix<float>(b, s.k, s.n);
    dbias = rt::matrix<float>(bias, s.m, 1);
    dc = rt::matrix<float>(s.m, s.n);
    reference.assign(static_cast<std::size_t>(s.m * s.n), 0.f);
    baselines::host_gemm(s.gemm(), a.data(), b.data(), reference.data());
    for (std::int64_t j = 0; j < s.n; ++j)
      for (std::int64_t i = 0; i < s.m; ++i) {
        float& r = reference[static_cast<std::size_t>(i + j * s.m)];
        r = std::max(r + bias[static_cast<std::size_t>(i)], 0.f);
      }
  }
};

problem& problem_for(const shape& s) {
  static std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::unique_ptr<problem>> problems;
  auto& slot = problems[{s.m, s.n, s.k}];
  if (!slot) {
    problems.clear();  // one problem alive at a time: 4096^2 matrices are large
    auto& fresh = problems[{s.m, s.n, s.k}];
    fresh = std::make_unique<problem>(s);
    return *fresh;
  }
  return *slot;
}

/// Verifies once, then times run() (which enqueues one call of the path): each iteration one
/// sample of the tuner's timing, calls back to back for at least 10 ms, per call.
template <typename Run>
void measure(benchmark::State& state, problem& p, Run run, blas::math_mode math = blas::math_mode::exact) {
  auto& ctx = rt::context::get();
  const baselines::timed_call call{run, [&] { ctx.finish(); }};
  try {
    baselines::fill_with_nan<float>(ctx, p.dc.storage());
    run();  // builds the kernels
    ctx.finish();
    const std::vector<float> got = p.dc.to_host();
    state.counters["max_rel_err"] = baselines::max_relative_error(got, p.reference);
    const double tolerance = math == blas::math_mode::tf32 ? baselines::tf32_gemm_tolerance(p.s.k + 2)
                                                           : baselines::gemm_tolerance<float>(p.s.k + 2);
    const auto wrong = baselines::first_mismatch(got, p.reference, tolerance);
    if (!wrong.empty()) {
      state.SkipWithError(("wrong result: " + wrong).c_str());
      return;
    }
    const int calls = baselines::calls_per_sample(call, {.warmups = 1, .min_sample_seconds = 1e-2});
    for (auto _ : state) state.SetIterationTime(baselines::sample_seconds(call, calls));
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  state.counters["GFLOP"] = benchmark::Counter(p.s.flops() * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

/// The epilogue as its own kernel, on C holding the product.
void separate_kernel(problem& p) { p.dc = kg::relu(p.dc + kg::colwise_broadcast(p.dbias)); }

void bench_fused(benchmark::State& state, shape s, blas::math_mode math) {
  problem& p = problem_for(s);
  measure(
      state, p, [&] { p.dc = kg::relu(kg::matmul(p.da, p.db, math) + kg::colwise_broadcast(p.dbias)); }, math);
  const auto args = [&] {
    blas::gemm_arguments<float> a;
    a.m = s.m, a.n = s.n, a.k = s.k, a.math = math;
    return a;
  }();
  state.SetLabel(blas::to_string(blas::default_params_for(args, rt::context::get())));
}

void bench_tessera_unfused(benchmark::State& state, shape s, blas::math_mode math) {
  problem& p = problem_for(s);
  measure(
      state, p,
      [&] {
        blas::gemm(blas::transpose::none, blas::transpose::none, 1.f, p.da, p.db, 0.f, p.dc, math);
        separate_kernel(p);
      },
      math);
}

void bench_clblast_unfused(benchmark::State& state, shape s) {
  problem& p = problem_for(s);
  measure(state, p, [&] {
    baselines::enqueue_clblast_gemm<float>(s.gemm(), p.da.storage().handle()(), p.db.storage().handle()(),
                                           p.dc.storage().handle()(), rt::context::get().queue()());
    separate_kernel(p);
  });
}

void register_all() {
  std::vector<shape> shapes;
  for (const std::int64_t mn : {1024, 4096})
    for (const std::int64_t k : {64, 256, 4096}) shapes.push_back({mn, mn, k});
  for (const shape& s : shapes) {
    const auto tune = [](benchmark::internal::Benchmark* b) {
      b->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.3);
    };
    for (const auto math : {blas::math_mode::exact, blas::math_mode::tf32}) {
      const std::string suffix = math == blas::math_mode::tf32 ? "_tf32/" : "/";
      tune(benchmark::RegisterBenchmark(("fused" + suffix + s.name()).c_str(),
                                        [s, math](benchmark::State& st) { bench_fused(st, s, math); }));
      tune(benchmark::RegisterBenchmark(("tessera_unfused" + suffix + s.name()).c_str(),
                                        [s, math](benchmark::State& st) { bench_tessera_unfused(st, s, math); }));
    }
    tune(benchmark::RegisterBenchmark(("clblast_unfused/" + s.name()).c_str(),
                                      [s](benchmark::State& st) { bench_clblast_unfused(st, s); }));
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  const auto& device = rt::context::get().device();
  benchmark::AddCustomContext("device", device.name);
  benchmark::AddCustomContext("driver", device.driver_version);
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
