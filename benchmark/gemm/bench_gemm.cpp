// GEMM: tessera against CLBlast (same OpenCL device, same buffers), OpenBLAS (host) and,
// where a CUDA device exists, cuBLAS; in one run so that ratios are taken between
// figures measured side by side.
//
// Benchmarks are named <implementation>/<type>/<transposes>/<m>x<n>x<k>[x<batch>]; each
// reports GFLOP/s and, verified once before timing against OpenBLAS's FP64 product of the
// same random data, max_rel_err. An iteration runs enough calls back to back to last a millisecond
// and is timed from the first enqueue to the end of the last (manual time per call).
//
// Environment:
//   TESSERA_BENCH_CONFIGS="cfg;cfg"   extra tessera configurations (gemm_params text), each
//                                     benchmarked as tessera[cfg]/...
//   TESSERA_BENCH_TRANSPOSES=nn,tt    transposes of the square problems (default nn)
//   TESSERA_BENCH_DOUBLE=1            also double precision
//   TESSERA_BENCH_16BIT=1             also A and B in float16 and bfloat16 (C in float): rows
//                                     tessera_fp16, cublas_fp16, tessera_bf16, cublas_bf16
//                                     (cublasGemmStridedBatchedEx), checked against the FP64
//                                     product of the same values
//   TESSERA_BENCH_TF32=1              also float in TF32 (blas::math_mode::tf32): rows
//                                     tessera_tf32 (the defaults' TF32 pick) and cublas_tf32
//                                     (CUBLAS_TF32_TENSOR_OP_MATH), checked against
//                                     tf32_gemm_tolerance
//   TESSERA_BENCH_NUMERICS=1          also NN 2048 x 2048 x K for K = 64, 1024, 8192: the error of
//                                     each format against the FP64 product as K grows (max_rel_err)
//   TESSERA_BENCH_BUILD_LOG=1         before benchmarking, build the default and the extra
//                                     configurations for float NN 4096^3 with the driver's
//                                     verbose option (NVIDIA: -cl-nv-verbose) and print the
//                                     build logs (registers, spills)
// report.py turns the JSON output into the table of benchmark/RESULTS.md.
#include <tessera/baselines/gemm_implementations.hpp>
#include <tessera/blas/blas.hpp>
#include <tessera/runtime/runtime.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace baselines = tessera::baselines;
namespace blas = tessera::blas;
namespace rt = tessera::runtime;

namespace {

using baselines::gemm_shape;

// "nn/4096x4096x4096", "nn/64x64x64x256" when batched.
std::string bench_name(const gemm_shape& s) {
  auto name = fmt::format("{}{}/{}x{}x{}", s.trans_a ? 't' : 'n', s.trans_b ? 't' : 'n', s.m, s.n, s.k);
  return s.batch > 1 ? name + fmt::format("x{}", s.batch) : name;
}

// The operands of one problem, made on first use; one problem's buffers at a time (large GPU
// shapes are big). 16-bit A and B (float only) hold their bits for cuBLAS too, C is float, and
// the reference is the FP64 product of the same values: products of 16-bit values are exact in
// float, so results are held to float's bound.
template <typename T>
baselines::gemm_operands<T>& operands_for(const gemm_shape& s, blas::operand_type type = blas::operand_type::float32) {
  static std::map<std::string, std::unique_ptr<baselines::gemm_operands<T>>> problems;
  const std::string key = bench_name(s) + std::string(blas::to_string(type));
  auto found = problems.find(key);
  if (found == problems.end()) {
    problems.clear();
    found = problems.emplace(key, std::make_unique<baselines::gemm_operands<T>>(rt::context::get(), s, 12345, type))
                .first;
  }
  return *found->second;
}

// Verifies one call against the FP64 reference (max_rel_err), then times each iteration as one
// sample of the tuner's timing: calls back to back for about a millisecond, from before the
// first enqueue to after the last has finished, per call.
template <typename T>
void measure(benchmark::State& state, const gemm_shape& shape, const std::vector<T>& reference,
             baselines::gemm_implementation<T>& gemm, double tolerance) {
  try {
    const auto got = baselines::result_of_one_call(gemm);
    state.counters["max_rel_err"] = baselines::max_relative_error(got, reference);
    const auto wrong = baselines::first_mismatch(got, reference, tolerance);
    if (!wrong.empty()) {
      state.SkipWithError(("wrong result: " + wrong).c_str());
      return;
    }
    const baselines::timed_call call = gemm.call();
    const int calls = baselines::calls_per_sample(call, baselines::timing_options{});
    for (auto _ : state) state.SetIterationTime(baselines::sample_seconds(call, calls));
    state.counters["GFLOP"] = benchmark::Counter(shape.flops() * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

template <typename T>
void measure(benchmark::State& state, const baselines::gemm_operands<T>& p, baselines::gemm_implementation<T>& gemm,
             blas::math_mode math = blas::math_mode::exact) {
  measure(state, p.shape, p.reference, gemm,
          math == blas::math_mode::tf32 ? baselines::tf32_gemm_tolerance(p.shape.k)
                                        : baselines::gemm_tolerance<T>(p.shape.k));
}

void bench_tessera16(benchmark::State& state, gemm_shape s, blas::operand_type type) {
  auto& p = operands_for<float>(s, type);
  auto& ctx = rt::context::get();
  blas::gemm_arguments<float> args;
  args.trans_a = s.trans_a ? blas::transpose::trans : blas::transpose::none;
  args.trans_b = s.trans_b ? blas::transpose::trans : blas::transpose::none;
  args.m = s.m, args.n = s.n, args.k = s.k, args.batch_count = s.batch, args.operands = type;
  try {
    const auto chosen = blas::default_params_for(args, ctx);
    state.SetLabel(blas::to_string(chosen));
    const auto gemm =
        baselines::tessera_gemm<float>("tessera", ctx, chosen, s, p.a, p.b, p.c, blas::math_mode::exact, type);
    measure<float>(state, s, p.reference, *gemm, baselines::gemm_tolerance<float>(s.k));
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

void bench_cublas16(benchmark::State& state, gemm_shape s, blas::operand_type type) {
  auto& p = operands_for<float>(s, type);
  const auto gemm = baselines::cublas_gemm16(s, p.a_bits, p.b_bits, type);
  if (!gemm) {
    state.SkipWithError("no CUDA device");
    return;
  }
  measure<float>(state, s, p.reference, *gemm, baselines::gemm_tolerance<float>(s.k));
}

template <typename T>
void bench_tessera(benchmark::State& state, gemm_shape s, std::optional<blas::gemm_params> params,
                   blas::math_mode math = blas::math_mode::exact) {
  auto& p = operands_for<T>(s);
  auto& ctx = rt::context::get();
  blas::gemm_arguments<T> args;
  args.math = math;
  args.trans_a = s.trans_a ? blas::transpose::trans : blas::transpose::none;
  args.trans_b = s.trans_b ? blas::transpose::trans : blas::transpose::none;
  args.m = s.m, args.n = s.n, args.k = s.k, args.batch_count = s.batch;
  const auto chosen = params ? *params : blas::default_params_for(args, ctx);
  state.SetLabel(blas::to_string(chosen));
  const auto gemm = baselines::tessera_gemm<T>("tessera", ctx, chosen, s, p.a, p.b, p.c, math);
  measure(state, p, *gemm, math);
}

template <typename T>
void bench_clblast(benchmark::State& state, gemm_shape s) {
  auto& p = operands_for<T>(s);
  const auto gemm = baselines::clblast_gemm<T>(rt::context::get(), s, p.a, p.b, p.c);
  measure(state, p, *gemm);
}

template <typename T>
void bench_openblas(benchmark::State& state, gemm_shape s) {
  auto& p = operands_for<T>(s);
  const auto gemm = baselines::openblas_gemm<T>(s, p.host_a, p.host_b);
  measure(state, p, *gemm);
}

template <typename T>
void bench_cublas(benchmark::State& state, gemm_shape s, blas::math_mode math = blas::math_mode::exact) {
  auto& p = operands_for<T>(s);
  const auto gemm = baselines::cublas_gemm<T>(s, p.host_a, p.host_b, math);
  if (!gemm) {
    state.SkipWithError("no CUDA device");
    return;
  }
  measure(state, p, *gemm, math);
}

std::vector<std::string> split(const char* text, char sep) {
  std::vector<std::string> out;
  if (text == nullptr) return out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, sep);)
    if (!item.empty()) out.push_back(item);
  return out;
}

template <typename T>
void register_shape(const gemm_shape& s, const std::vector<blas::gemm_params>& extra, bool cuda, bool tf32,
                    bool sixteen_bit) {
  const std::string type = std::is_same_v<T, float> ? "float" : "double";
  const auto name = [&](const std::string& impl) { return fmt::format("{}/{}/{}", impl, type, bench_name(s)); };
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
  if (cuda)
    tune(benchmark::RegisterBenchmark(name("cublas").c_str(), [s](benchmark::State& st) { bench_cublas<T>(st, s); }));
  if (tf32 && std::is_same_v<T, float>) {
    constexpr auto mode = blas::math_mode::tf32;
    tune(benchmark::RegisterBenchmark(name("tessera_tf32").c_str(),
                                      [s](benchmark::State& st) { bench_tessera<T>(st, s, std::nullopt, mode); }));
    for (const auto& p : extra)
      tune(benchmark::RegisterBenchmark(name("tessera_tf32[" + blas::to_string(p) + "]").c_str(),
                                        [s, p](benchmark::State& st) { bench_tessera<T>(st, s, p, mode); }));
    if (cuda)
      tune(benchmark::RegisterBenchmark(name("cublas_tf32").c_str(),
                                        [s](benchmark::State& st) { bench_cublas<T>(st, s, mode); }));
  }
  if (sixteen_bit && std::is_same_v<T, float>)
    for (const auto type : {blas::operand_type::float16, blas::operand_type::bfloat16}) {
      const std::string suffix = type == blas::operand_type::float16 ? "_fp16" : "_bf16";
      tune(benchmark::RegisterBenchmark(name("tessera" + suffix).c_str(),
                                        [s, type](benchmark::State& st) { bench_tessera16(st, s, type); }));
      if (cuda)
        tune(benchmark::RegisterBenchmark(name("cublas" + suffix).c_str(),
                                          [s, type](benchmark::State& st) { bench_cublas16(st, s, type); }));
    }
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
  const bool with_tf32 = std::getenv("TESSERA_BENCH_TF32") != nullptr;
  const bool with_16bit = std::getenv("TESSERA_BENCH_16BIT") != nullptr;
  const bool cuda = baselines::cublas_available();

  std::vector<gemm_shape> shapes;
  std::vector<std::int64_t> squares{256, 512, 1024, 2048, 4096};
  if (gpu) squares.push_back(8192);
  for (const auto& t : transposes)
    for (auto n : squares) shapes.push_back({t[0] == 't', t[1] == 't', n, n, n});
  shapes.push_back({false, false, 8192, 64, 8192});  // tall-skinny
  shapes.push_back({false, false, 64, 8192, 8192});
  shapes.push_back({false, false, 64, 64, 64, 256});  // small batched
  if (std::getenv("TESSERA_BENCH_NUMERICS") != nullptr)
    for (const std::int64_t k : {64, 1024, 8192}) shapes.push_back({false, false, 2048, 2048, k});
  for (const auto& s : shapes) register_shape<float>(s, extra, cuda, with_tf32, with_16bit);
  if (with_double)
    for (const auto& s : shapes) register_shape<double>(s, extra, cuda, false, false);

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
