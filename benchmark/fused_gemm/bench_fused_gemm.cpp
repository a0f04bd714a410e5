// Fused GEMM (issue 7): C = relu(A * B + bias), bias an M x 1 column broadcast along the rows,
// three ways on the same device and buffers:
//   fused/...            one kernel: matmul in a kernel-generator expression (the GEMM with
//                        the expression in its store step, the defaults table's configuration)
//   tessera_unfused/...  blas::gemm (the same defaults), then c = relu(c + bias) as a kernel
//   clblast_unfused/...  CLBlastSgemm, then the same separate kernel
// Named <path>/<m>x<n>x<k>; float, A and B not transposed. Each path is verified once against
// OpenBLAS + the epilogue on the host (max_rel_err), then timed from the first enqueue to the
// end of the last call of an iteration (manual time per call); GFLOP/s counts 2mnk.
//
// Sizes: M = N = 4096 with K in {64, 256, 4096}, and 1024 x 1024 x K for quick runs. On a
// CPU (PoCL) filter out K = 4096 at 4096: --benchmark_filter='/4096x4096x(64|256)$'.
#include <tessera/blas/blas.hpp>
#include <tessera/kernel_generator/kernel_generator.hpp>
#include <tessera/runtime/runtime.hpp>

#include <benchmark/benchmark.h>
#include <cblas.h>
#include <clblast_c.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include <fmt/format.h>

namespace blas = tessera::blas;
namespace kg = tessera::kernel_generator;
namespace rt = tessera::runtime;

namespace {

struct shape {
  std::int64_t m, n, k;
  std::string name() const { return fmt::format("{}x{}x{}", m, n, k); }
  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
};

/// Inputs on the host and the device, and the host reference, made once per shape.
struct problem {
  shape s;
  std::vector<float> a, b, bias, reference;
  rt::matrix<float> da, db, dbias, dc;

  explicit problem(const shape& sh) : s(sh) {
    std::mt19937_64 rng(12345);
    std::uniform_real_distribution<float> dist(-1.f, 1.f);
    const auto fill = [&](std::vector<float>& v, std::int64_t n) {
      v.resize(static_cast<std::size_t>(n));
      for (auto& x : v) x = dist(rng);
    };
    fill(a, s.m * s.k), fill(b, s.k * s.n), fill(bias, s.m);
    da = rt::matrix<float>(a, s.m, s.k), db = rt::matrix<float>(b, s.k, s.n);
    dbias = rt::matrix<float>(bias, s.m, 1);
    dc = rt::matrix<float>(s.m, s.n);
    reference.assign(static_cast<std::size_t>(s.m * s.n), 0.f);
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, int(s.m), int(s.n), int(s.k), 1.f, a.data(), int(s.m),
                b.data(), int(s.k), 0.f, reference.data(), int(s.m));
    for (std::int64_t j = 0; j < s.n; ++j)
      for (std::int64_t i = 0; i < s.m; ++i) {
        float& r = reference[static_cast<std::size_t>(i + j * s.m)];
        r = std::max(r + bias[static_cast<std::size_t>(i)], 0.f);
      }
  }

  /// The largest |c - reference| / max(1, |reference|).
  double error() const {
    const std::vector<float> c = dc.to_host();
    double worst = 0;
    for (std::size_t i = 0; i < c.size(); ++i) {
      const double e = std::abs(double(c[i]) - reference[i]) / std::max(1.0, std::abs(double(reference[i])));
      worst = std::isnan(e) ? INFINITY : std::max(worst, e);
    }
    return worst;
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

/// Verifies once, then times run() (which enqueues one call of the path) per call.
template <typename Run>
void measure(benchmark::State& state, problem& p, Run run) {
  rt::check_cl(rt::context::get().queue().enqueueFillBuffer(p.dc.storage().handle(), NAN, 0, p.dc.storage().bytes()),
               "clEnqueueFillBuffer");
  run();  // builds the kernels
  rt::context::get().queue().finish();
  const double err = p.error();
  state.counters["max_rel_err"] = err;
  if (!(err <= 1e-3)) {
    state.SkipWithError(fmt::format("wrong result: max relative error {:.3g}", err).c_str());
    return;
  }
  const auto t0 = std::chrono::steady_clock::now();
  run();
  rt::context::get().queue().finish();
  const double once = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const int reps = std::max(1, static_cast<int>(1e-2 / std::max(once, 1e-7)));
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; ++r) run();
    rt::context::get().queue().finish();
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / reps);
  }
  state.counters["GFLOP"] = benchmark::Counter(p.s.flops() * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

/// The epilogue as its own kernel, on C holding the product.
void separate_kernel(problem& p) { p.dc = kg::relu(p.dc + kg::colwise_broadcast(p.dbias)); }

void bench_fused(benchmark::State& state, shape s) {
  problem& p = problem_for(s);
  measure(state, p, [&] { p.dc = kg::relu(kg::matmul(p.da, p.db) + kg::colwise_broadcast(p.dbias)); });
  const auto args = [&] {
    blas::gemm_arguments<float> a;
    a.m = s.m, a.n = s.n, a.k = s.k;
    return a;
  }();
  state.SetLabel(blas::to_string(blas::default_params_for(args, rt::context::get())));
}

void bench_tessera_unfused(benchmark::State& state, shape s) {
  problem& p = problem_for(s);
  measure(state, p, [&] {
    blas::gemm(blas::transpose::none, blas::transpose::none, 1.f, p.da, p.db, 0.f, p.dc);
    separate_kernel(p);
  });
}

void bench_clblast_unfused(benchmark::State& state, shape s) {
  problem& p = problem_for(s);
  CLBlastStatusCode status = CLBlastSuccess;
  measure(state, p, [&] {
    cl_command_queue queue = rt::context::get().queue()();
    status = CLBlastSgemm(CLBlastLayoutColMajor, CLBlastTransposeNo, CLBlastTransposeNo, s.m, s.n, s.k, 1.f,
                          p.da.storage().handle()(), 0, s.m, p.db.storage().handle()(), 0, s.k, 0.f,
                          p.dc.storage().handle()(), 0, s.m, &queue, nullptr);
    separate_kernel(p);
  });
  if (status != CLBlastSuccess) state.SkipWithError(fmt::format("CLBlast status {}", int(status)).c_str());
}

void register_all() {
  std::vector<shape> shapes;
  for (const std::int64_t mn : {1024, 4096})
    for (const std::int64_t k : {64, 256, 4096}) shapes.push_back({mn, mn, k});
  for (const shape& s : shapes) {
    const auto tune = [](benchmark::internal::Benchmark* b) {
      b->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.3);
    };
    tune(benchmark::RegisterBenchmark(("fused/" + s.name()).c_str(), [s](benchmark::State& st) { bench_fused(st, s); }));
    tune(benchmark::RegisterBenchmark(("tessera_unfused/" + s.name()).c_str(),
                                      [s](benchmark::State& st) { bench_tessera_unfused(st, s); }));
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
