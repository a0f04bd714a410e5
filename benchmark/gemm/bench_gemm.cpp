// GEMM: tessera against CLBlast (same OpenCL device, same buffers), OpenBLAS (host) and,
// where a CUDA device exists, cuBLAS; in one run so that ratios are taken between
// figures measured side by side.
//
// Benchmarks are named <implementation>/<type>/<transposes>/<m>x<n>x<k>[x<batch>]; each
// reports GFLOP/s and, verified once before timing against OpenBLAS on the same random
// data, max_rel_err. An iteration runs enough calls back to back to last a millisecond
// and is timed from the first enqueue to the end of the last (manual time per call).
//
// Environment:
//   TESSERA_BENCH_CONFIGS="cfg;cfg"   extra tessera configurations (gemm_params text), each
//                                     benchmarked as tessera[cfg]/...
//   TESSERA_BENCH_TRANSPOSES=nn,tt    transposes of the square problems (default nn)
//   TESSERA_BENCH_DOUBLE=1            also double precision
//   TESSERA_BENCH_BUILD_LOG=1         before benchmarking, build the default and the extra
//                                     configurations for float NN 4096^3 with the driver's
//                                     verbose option (NVIDIA: -cl-nv-verbose) and print the
//                                     build logs (registers, spills)
// report.py turns the JSON output into the table of benchmark/RESULTS.md.
#include <tessera/blas/blas.hpp>
#include <tessera/runtime/runtime.hpp>

#include <benchmark/benchmark.h>
#include <cblas.h>
#include <clblast_c.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cublas_baseline.hpp"

namespace blas = tessera::blas;
namespace rt = tessera::runtime;

namespace {

struct shape {
  bool trans_a = false, trans_b = false;
  std::int64_t m, n, k, batch = 1;

  std::string name() const {
    auto s = fmt::format("{}{}/{}x{}x{}", trans_a ? 't' : 'n', trans_b ? 't' : 'n', m, n, k);
    return batch > 1 ? s + fmt::format("x{}", batch) : s;
  }
  double flops() const { return 2.0 * double(m) * double(n) * double(k) * double(batch); }
  std::int64_t lda() const { return trans_a ? k : m; }
  std::int64_t ldb() const { return trans_b ? n : k; }
  std::int64_t stride_a() const { return lda() * (trans_a ? m : k); }
  std::int64_t stride_b() const { return ldb() * (trans_b ? k : n); }
  std::int64_t stride_c() const { return m * n; }
};

// Host data, device buffers and the reference of one problem, made on first use.
template <typename T>
struct problem {
  shape s;
  std::vector<T> a, b;
  std::unique_ptr<rt::device_buffer> da, db, dc;
  std::optional<std::vector<T>> reference;

  explicit problem(const shape& sh) : s(sh) {
    std::mt19937_64 rng(12345);
    std::uniform_real_distribution<T> dist(T(-1), T(1));
    a.resize(static_cast<std::size_t>(s.stride_a() * s.batch));
    b.resize(static_cast<std::size_t>(s.stride_b() * s.batch));
    for (auto& x : a) x = dist(rng);
    for (auto& x : b) x = dist(rng);
    auto& ctx = rt::context::get();
    da = std::make_unique<rt::device_buffer>(ctx, a.size() * sizeof(T));
    db = std::make_unique<rt::device_buffer>(ctx, b.size() * sizeof(T));
    dc = std::make_unique<rt::device_buffer>(ctx, static_cast<std::size_t>(s.stride_c() * s.batch) * sizeof(T));
    da->write(0, da->bytes(), a.data());
    db->write(0, db->bytes(), b.data());
  }

  void host_gemm(T* c) const {
    const auto op = [](bool t) { return t ? CblasTrans : CblasNoTrans; };
#pragma omp parallel for if (s.batch > 1)
    for (std::int64_t e = 0; e < s.batch; ++e) {
      const T* ap = a.data() + e * s.stride_a();
      const T* bp = b.data() + e * s.stride_b();
      T* cp = c + e * s.stride_c();
      if constexpr (std::is_same_v<T, float>)
        cblas_sgemm(CblasColMajor, op(s.trans_a), op(s.trans_b), int(s.m), int(s.n), int(s.k), 1.f, ap,
                    int(s.lda()), bp, int(s.ldb()), 0.f, cp, int(s.m));
      else
        cblas_dgemm(CblasColMajor, op(s.trans_a), op(s.trans_b), int(s.m), int(s.n), int(s.k), 1.0, ap,
                    int(s.lda()), bp, int(s.ldb()), 0.0, cp, int(s.m));
    }
  }

  const std::vector<T>& ref() {
    if (!reference) {
      reference.emplace(static_cast<std::size_t>(s.stride_c() * s.batch));
      host_gemm(reference->data());
    }
    return *reference;
  }

  // max |c - ref| / max |ref|
  double error_of(const std::vector<T>& c) {
    const auto& r = ref();
    double diff = 0, scale = 0;
    for (std::size_t i = 0; i < r.size(); ++i) {
      diff = std::max(diff, double(std::abs(c[i] - r[i])));
      scale = std::max(scale, double(std::abs(r[i])));
      if (std::isnan(c[i])) return INFINITY;
    }
    return diff / std::max(scale, 1e-30);
  }
  std::vector<T> device_result() const {
    std::vector<T> out(static_cast<std::size_t>(s.stride_c() * s.batch));
    dc->read(0, out.size() * sizeof(T), out.data());
    return out;
  }
};

template <typename T>
problem<T>& get_problem(const shape& s) {
  static std::map<std::string, std::unique_ptr<problem<T>>> problems;
  auto found = problems.find(s.name());
  if (found == problems.end()) {
    problems.clear();  // one problem's buffers at a time: large GPU shapes are big
    found = problems.emplace(s.name(), std::make_unique<problem<T>>(s)).first;
  }
  return *found->second;
}

template <typename T>
double tolerance() {
  return std::is_same_v<T, float> ? 1e-3 : 1e-10;
}

// Times calls of run() (each enqueues one GEMM) followed by sync(); verifies first.
template <typename T, typename Run, typename Sync, typename Result>
void measure(benchmark::State& state, problem<T>& p, Run run, Sync sync, Result result) {
  run();  // builds kernels, allocates workspaces
  sync();
  const double err = p.error_of(result());
  state.counters["max_rel_err"] = err;
  if (!(err <= tolerance<T>())) {
    state.SkipWithError(fmt::format("wrong result: max relative error {:.3g}", err).c_str());
    return;
  }
  // Calls per iteration: enough for about a millisecond.
  const auto t0 = std::chrono::steady_clock::now();
  run();
  sync();
  const double once = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const int reps = std::max(1, static_cast<int>(1e-3 / std::max(once, 1e-7)));
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; ++r) run();
    sync();
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / reps);
  }
  state.counters["GFLOP"] =
      benchmark::Counter(p.s.flops() * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

template <typename T>
blas::gemm_arguments<T> arguments(problem<T>& p) {
  blas::gemm_arguments<T> args;
  args.trans_a = p.s.trans_a ? blas::transpose::trans : blas::transpose::none;
  args.trans_b = p.s.trans_b ? blas::transpose::trans : blas::transpose::none;
  args.m = p.s.m, args.n = p.s.n, args.k = p.s.k, args.alpha = T(1), args.beta = T(0);
  args.a = p.da.get(), args.lda = p.s.lda(), args.stride_a = p.s.stride_a();
  args.b = p.db.get(), args.ldb = p.s.ldb(), args.stride_b = p.s.stride_b();
  args.c = p.dc.get(), args.ldc = p.s.m, args.stride_c = p.s.stride_c();
  args.batch_count = p.s.batch;
  return args;
}

template <typename T>
void bench_tessera(benchmark::State& state, shape s, std::optional<blas::gemm_params> params) {
  auto& p = get_problem<T>(s);
  const auto args = arguments(p);
  auto& ctx = rt::context::get();
  const auto chosen = params ? *params : blas::default_params_for(args, ctx);
  state.SetLabel(blas::to_string(chosen));
  try {
    measure<T>(
        state, p, [&] { blas::gemm_with(chosen, args); }, [&] { ctx.finish(); }, [&] { return p.device_result(); });
  } catch (const tessera::error& e) {
    state.SkipWithError(e.what());
  }
}

template <typename T>
void bench_clblast(benchmark::State& state, shape s) {
  auto& p = get_problem<T>(s);
  cl_command_queue queue = rt::context::get().queue()();
  const auto op = [](bool t) { return t ? CLBlastTransposeYes : CLBlastTransposeNo; };
  CLBlastStatusCode status = CLBlastSuccess;
  const auto run = [&] {
    cl_mem a = p.da->handle()(), b = p.db->handle()(), c = p.dc->handle()();
    if (p.s.batch == 1) {
      if constexpr (std::is_same_v<T, float>)
        status = CLBlastSgemm(CLBlastLayoutColMajor, op(s.trans_a), op(s.trans_b), s.m, s.n, s.k, 1.f, a, 0, s.lda(),
                              b, 0, s.ldb(), 0.f, c, 0, s.m, &queue, nullptr);
      else
        status = CLBlastDgemm(CLBlastLayoutColMajor, op(s.trans_a), op(s.trans_b), s.m, s.n, s.k, 1.0, a, 0, s.lda(),
                              b, 0, s.ldb(), 0.0, c, 0, s.m, &queue, nullptr);
    } else {
      if constexpr (std::is_same_v<T, float>)
        status = CLBlastSgemmStridedBatched(CLBlastLayoutColMajor, op(s.trans_a), op(s.trans_b), s.m, s.n, s.k, 1.f,
                                            a, 0, s.lda(), s.stride_a(), b, 0, s.ldb(), s.stride_b(), 0.f, c, 0, s.m,
                                            s.stride_c(), s.batch, &queue, nullptr);
      else
        status = CLBlastDgemmStridedBatched(CLBlastLayoutColMajor, op(s.trans_a), op(s.trans_b), s.m, s.n, s.k, 1.0,
                                            a, 0, s.lda(), s.stride_a(), b, 0, s.ldb(), s.stride_b(), 0.0, c, 0, s.m,
                                            s.stride_c(), s.batch, &queue, nullptr);
    }
  };
  run();
  if (status != CLBlastSuccess) {
    state.SkipWithError(fmt::format("CLBlast status {}", int(status)).c_str());
    return;
  }
  measure<T>(
      state, p, run, [&] { clFinish(queue); }, [&] { return p.device_result(); });
}

template <typename T>
void bench_openblas(benchmark::State& state, shape s) {
  auto& p = get_problem<T>(s);
  std::vector<T> c(static_cast<std::size_t>(s.stride_c() * s.batch));
  measure<T>(
      state, p, [&] { p.host_gemm(c.data()); }, [] {}, [&] { return c; });
}

#if TESSERA_HAVE_CUBLAS
template <typename T>
void bench_cublas(benchmark::State& state, shape s) {
  auto& p = get_problem<T>(s);
  tessera::bench::cublas_gemm<T> g(s.trans_a, s.trans_b, s.m, s.n, s.k, s.batch, p.a, p.b);
  measure<T>(
      state, p, [&] { g.run(); }, [&] { g.sync(); }, [&] { return g.result(); });
}
#endif

std::vector<std::string> split(const char* text, char sep) {
  std::vector<std::string> out;
  if (text == nullptr) return out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, sep);)
    if (!item.empty()) out.push_back(item);
  return out;
}

template <typename T>
void register_shape(const shape& s, const std::vector<blas::gemm_params>& extra, bool cuda) {
  const std::string type = std::is_same_v<T, float> ? "float" : "double";
  const auto name = [&](const std::string& impl) { return fmt::format("{}/{}/{}", impl, type, s.name()); };
  const auto tune = [](benchmark::internal::Benchmark* b) {
    b->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.3);
  };
  tune(benchmark::RegisterBenchmark(name("openblas").c_str(), [s](benchmark::State& st) { bench_openblas<T>(st, s); }));
  tune(benchmark::RegisterBenchmark(name("clblast").c_str(), [s](benchmark::State& st) { bench_clblast<T>(st, s); }));
  tune(benchmark::RegisterBenchmark(name("tessera").c_str(),
                                    [s](benchmark::State& st) { bench_tessera<T>(st, s, std::nullopt); }));
  for (const auto& p : extra)
    tune(benchmark::RegisterBenchmark(name("tessera[" + blas::to_string(p) + "]").c_str(),
                                      [s, p](benchmark::State& st) { bench_tessera<T>(st, s, p); }));
#if TESSERA_HAVE_CUBLAS
  if (cuda)
    tune(benchmark::RegisterBenchmark(name("cublas").c_str(), [s](benchmark::State& st) { bench_cublas<T>(st, s); }));
#else
  (void)cuda;
#endif
}

// Prints the driver's report of each configuration's kernel (NVIDIA: ptxas registers, spills).
void print_build_logs(const std::vector<blas::gemm_params>& configs) {
  auto& ctx = rt::context::get();
  rt::device_buffer a(ctx, 4096 * 4096 * sizeof(float)), b(ctx, 4096 * 4096 * sizeof(float)),
      c(ctx, 4096 * 4096 * sizeof(float));
  blas::gemm_arguments<float> args;
  args.m = args.n = args.k = 4096, args.a = &a, args.b = &b, args.c = &c, args.lda = args.ldb = args.ldc = 4096;
  const bool nvidia = ctx.device().vendor.find("NVIDIA") != std::string::npos;
  for (const auto& p : configs) {
    const auto text = blas::detail::program_text(p, args, ctx);
    cl::Program program(ctx.cl_context(), text.source);
    const cl_int status = program.build({ctx.device().handle}, (text.options + (nvidia ? " -cl-nv-verbose" : "")).c_str());
    std::string log;
    program.getBuildInfo(ctx.device().handle, CL_PROGRAM_BUILD_LOG, &log);
    std::string lines;
    std::stringstream in(log);
    for (std::string line; std::getline(in, line);)
      if (line.find("registers") != std::string::npos || line.find("spill") != std::string::npos ||
          line.find("rror") != std::string::npos)
        lines += "\n    " + line;
    fmt::print("build log of {} (status {}):{}\n", blas::to_string(p), status, lines);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const auto& device = rt::context::get().device();
  const bool gpu = device.type == rt::device_type::gpu;
  std::vector<blas::gemm_params> extra;
  for (const auto& text : split(std::getenv("TESSERA_BENCH_CONFIGS"), ';')) extra.push_back(blas::parse_gemm_params(text));
  auto transposes = split(std::getenv("TESSERA_BENCH_TRANSPOSES"), ',');
  if (transposes.empty()) transposes = {"nn"};
  const bool with_double = std::getenv("TESSERA_BENCH_DOUBLE") != nullptr;
  bool cuda = false;
#if TESSERA_HAVE_CUBLAS
  cuda = tessera::bench::cuda_device_count() > 0;
#endif

  std::vector<shape> shapes;
  std::vector<std::int64_t> squares{256, 512, 1024, 2048, 4096};
  if (gpu) squares.push_back(8192);
  for (const auto& t : transposes)
    for (auto n : squares) shapes.push_back({t[0] == 't', t[1] == 't', n, n, n});
  shapes.push_back({false, false, 8192, 64, 8192});  // tall-skinny
  shapes.push_back({false, false, 64, 8192, 8192});
  shapes.push_back({false, false, 64, 64, 64, 256});  // small batched
  for (const auto& s : shapes) register_shape<float>(s, extra, cuda);
  if (with_double)
    for (const auto& s : shapes) register_shape<double>(s, extra, cuda);

  if (std::getenv("TESSERA_BENCH_BUILD_LOG")) {
    std::vector<blas::gemm_params> all = extra;
    blas::gemm_arguments<float> probe;
    probe.m = probe.n = probe.k = 4096;
    all.insert(all.begin(), blas::default_params_for(probe, rt::context::get()));
    print_build_logs(all);
  }
  benchmark::AddCustomContext("device", device.label());
  benchmark::AddCustomContext("driver", device.driver_version);
  benchmark::AddCustomContext("cuda_devices", cuda ? "yes" : "no");
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
