// Tile on the device against the reference interpreter and against the best library route:
//  - the seed's dilated 2-D convolution (dilation (2, 3), 3x3 kernel) at N = 8, 64x64,
//    CI = CO = 64: Tile's contraction kernel, im2col + CLBlast GEMM, the host interpreter;
//  - a matrix product: Tile (dispatched through lower_matmul), Tile's contraction kernel
//    with the dispatch off, CLBlast GEMM.
// GFLOP/s count 2 flops per multiply-add. Times are wall clock around the call and a
// clFinish: BM_matmul_tile_dispatched includes Tile's allocation of a fresh output on every
// call, BM_matmul_tile_dispatched_into writes a preallocated one, as BM_matmul_blas_gemm does.
#include <tessera/baselines/gemm_implementations.hpp>
#include <tessera/codegen/kernel_builder.hpp>
#include <tessera/blas/gemm.hpp>
#include <tessera/tile/tile.hpp>

#include <benchmark/benchmark.h>

#include <random>

#include <fmt/format.h>

namespace rt = tessera::runtime;
namespace tile = tessera::tile;

namespace {

const char* const dilated_convolution = R"(function (I[N, Lx, Ly, CI], K[LKx, LKy, CI, CO]) -> (O) {
    O[n, x, y, co: N, Lx - 2 * (LKx - 1), Ly - 3 * (LKy - 1), CO] =
            +(I[n, x + 2 * kx, y + 3 * ky, ci] * K[kx, ky, ci, co]);
})";

const char* const matmul = R"(function (A[M, L], B[L, N]) -> (C) {
    C[i, j: M, N] = +(A[i, k] * B[k, j]);
})";

tile::host_tensor<float> random_host(const tile::shape& dims, unsigned seed) {
  tile::host_tensor<float> t(dims);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (auto& v : t.values) v = dist(rng);
  return t;
}

struct conv_problem {
  std::int64_t n, lx, ly, ci, co, kx = 3, ky = 3;
  std::int64_t ox() const { return lx - 2 * (kx - 1); }
  std::int64_t oy() const { return ly - 3 * (ky - 1); }
  double flops() const { return 2.0 * double(n * ox() * oy() * co) * double(kx * ky * ci); }
};

conv_problem problem_of(const benchmark::State& state) {
  return {state.range(0), state.range(1), state.range(1), state.range(2), state.range(2)};
}

void set_counters(benchmark::State& state, double flops) {
  state.counters["GFLOP/s"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
  state.counters["device"] = 0;
  state.SetLabel(rt::context::get().device().name);
}

}  // namespace

static void conv_tile(benchmark::State& state, int register_block) {
  const conv_problem p = problem_of(state);
  auto& ctx = rt::context::get();
  const tile::function f = tile::compile(dilated_convolution, tile::lowering_options{.register_block = register_block});
  const tile::tensor<float> in(random_host({p.n, p.lx, p.ly, p.ci}, 1)), k(random_host({p.kx, p.ky, p.ci, p.co}, 2));
  f(in, k);  // build the kernels
  ctx.finish();
  for (auto _ : state) {
    auto out = f(in, k);
    ctx.finish();
    benchmark::DoNotOptimize(out);
  }
  set_counters(state, p.flops());
}
static void BM_conv_tile(benchmark::State& state) { conv_tile(state, 4); }
// Without register blocking: one output per work item.
static void BM_conv_tile_unblocked(benchmark::State& state) { conv_tile(state, 1); }
BENCHMARK(BM_conv_tile)->Args({8, 64, 64})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_conv_tile_unblocked)->Args({8, 64, 64})->Unit(benchmark::kMillisecond)->UseRealTime();

static void BM_conv_reference_interpreter(benchmark::State& state) {
  const conv_problem p = problem_of(state);
  const tile::function f = tile::compile(dilated_convolution);
  const std::vector<tile::host_tensor<float>> inputs{random_host({p.n, p.lx, p.ly, p.ci}, 1),
                                                     random_host({p.kx, p.ky, p.ci, p.co}, 2)};
  for (auto _ : state) benchmark::DoNotOptimize(tile::interpret<float>(f.checked(), inputs));
  set_counters(state, p.flops());
}
BENCHMARK(BM_conv_reference_interpreter)->Args({8, 64, 64})->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

namespace {

/// im2col for the dilated convolution: row (n, x, y), column (kx, ky, ci), through the emitter.
rt::kernel im2col_kernel(const conv_problem& p) {
  tessera::codegen::kernel_builder kb("im2col_dilated");
  kb.add_pointer_parameter("float", "columns", false);
  kb.add_pointer_parameter("float", "image", true);
  const std::int64_t width = p.kx * p.ky * p.ci, rows = p.n * p.ox() * p.oy();
  kb.declare("const int", "gid", "get_global_id(0)");
  kb.statement(fmt::format("if (gid >= {}) return", rows * width));
  kb.declare("const int", "row", fmt::format("gid / {}", width));
  kb.declare("const int", "col", fmt::format("gid % {}", width));
  kb.declare("const int", "ci", fmt::format("col % {}", p.ci));
  kb.declare("const int", "ky", fmt::format("(col / {}) % {}", p.ci, p.ky));
  kb.declare("const int", "kx", fmt::format("col / {}", p.ci * p.ky));
  kb.declare("const int", "y", fmt::format("row % {}", p.oy()));
  kb.declare("const int", "x", fmt::format("(row / {}) % {}", p.oy(), p.ox()));
  kb.declare("const int", "n", fmt::format("row / {}", p.oy() * p.ox()));
  kb.assign("columns[gid]", fmt::format("image[((n * {} + x + 2 * kx) * {} + y + 3 * ky) * {} + ci]", p.lx, p.ly, p.ci));
  auto& ctx = rt::context::get();
  return ctx.programs().get("im2col_dilated", kb.source())->make_kernel("im2col_dilated");
}

}  // namespace

static void BM_conv_im2col_clblast(benchmark::State& state) {
  const conv_problem p = problem_of(state);
  auto& ctx = rt::context::get();
  const tile::tensor<float> in(random_host({p.n, p.lx, p.ly, p.ci}, 1)), k(random_host({p.kx, p.ky, p.ci, p.co}, 2));
  const std::int64_t m = p.n * p.ox() * p.oy(), kk = p.kx * p.ky * p.ci, nn = p.co;
  const tile::tensor<float> columns(tile::shape{m, kk}), out(tile::shape{m, nn});
  const rt::kernel im2col = im2col_kernel(p);
  cl_command_queue queue = ctx.queue()();
  auto run = [&] {
    im2col.launch(ctx, rt::launch_range::one_d(rt::round_up(static_cast<std::size_t>(m * kk), 256)), columns.buffer(),
                  in.buffer());
    // Row-major out = columns * K is column-major out^T = K^T columns^T.
    tessera::baselines::enqueue_clblast_gemm<float>({false, false, nn, m, kk, 1}, k.buffer()(), columns.buffer()(),
                                                    out.buffer()(), queue);
  };
  run();
  ctx.finish();
  // The same answer as Tile (checked once, outside the timing).
  {
    const auto expected = tile::compile(dilated_convolution)(in, k)[0].to_host();
    const auto got = out.to_host();
    double worst = 0;
    for (std::size_t i = 0; i < got.size(); ++i) worst = std::max(worst, double(std::abs(got[i] - expected[i])));
    if (worst > 1e-3) state.SkipWithError(fmt::format("im2col + CLBlast differs from Tile by {}", worst).c_str());
  }
  for (auto _ : state) {
    run();
    ctx.finish();
  }
  set_counters(state, p.flops());
}
BENCHMARK(BM_conv_im2col_clblast)->Args({8, 64, 64})->Unit(benchmark::kMillisecond)->UseRealTime();

static void matmul_tile(benchmark::State& state, bool dispatch) {
  const std::int64_t n = state.range(0);
  auto& ctx = rt::context::get();
  const tile::function f = tile::compile(matmul, tile::lowering_options{.dispatch_matmul = dispatch});
  const tile::tensor<float> a(random_host({n, n}, 3)), b(random_host({n, n}, 4));
  f(a, b);
  ctx.finish();
  for (auto _ : state) {
    auto c = f(a, b);
    ctx.finish();
    benchmark::DoNotOptimize(c);
  }
  set_counters(state, 2.0 * double(n) * double(n) * double(n));
}
static void BM_matmul_tile_dispatched(benchmark::State& state) { matmul_tile(state, true); }
static void BM_matmul_tile_contraction_kernel(benchmark::State& state) { matmul_tile(state, false); }
BENCHMARK(BM_matmul_tile_dispatched)->Arg(512)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same product into an output allocated once (run(inputs, outputs)): the like-for-like
// comparison with BM_matmul_blas_gemm, which also writes a preallocated C.
static void BM_matmul_tile_dispatched_into(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  auto& ctx = rt::context::get();
  const tile::function f = tile::compile(matmul);
  const tile::tensor<float> a(random_host({n, n}, 3)), b(random_host({n, n}, 4)), c(tile::shape{n, n});
  f.run<float>({a, b}, {c});
  ctx.finish();
  for (auto _ : state) {
    f.run<float>({a, b}, {c});
    ctx.finish();
  }
  set_counters(state, 2.0 * double(n) * double(n) * double(n));
}
BENCHMARK(BM_matmul_tile_dispatched_into)->Arg(512)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_matmul_tile_contraction_kernel)->Arg(512)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();

static void BM_matmul_clblast(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  auto& ctx = rt::context::get();
  const tile::tensor<float> a(random_host({n, n}, 3)), b(random_host({n, n}, 4)), c(tile::shape{n, n});
  cl_command_queue queue = ctx.queue()();
  auto run = [&] {
    tessera::baselines::enqueue_clblast_gemm<float>({false, false, n, n, n, 1}, b.buffer()(), a.buffer()(),
                                                    c.buffer()(), queue);
  };
  run();
  ctx.finish();
  for (auto _ : state) {
    run();
    ctx.finish();
  }
  set_counters(state, 2.0 * double(n) * double(n) * double(n));
}
BENCHMARK(BM_matmul_clblast)->Arg(512)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();

// blas::gemm called directly on the same row-major data (C^T = B^T A^T in column-major),
// with a preallocated C: what the dispatched Tile matrix product should match.
static void BM_matmul_blas_gemm(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  auto& ctx = rt::context::get();
  const tile::tensor<float> a(random_host({n, n}, 3)), b(random_host({n, n}, 4)), c(tile::shape{n, n});
  auto run = [&] {
    tessera::blas::gemm<float>(tessera::blas::transpose::none, tessera::blas::transpose::none, n, n, n, 1.0f,
                               b.storage(), 0, n, a.storage(), 0, n, 0.0f,
                               const_cast<rt::device_buffer&>(c.storage()), 0, n);
  };
  run();
  ctx.finish();
  for (auto _ : state) {
    run();
    ctx.finish();
  }
  set_counters(state, 2.0 * double(n) * double(n) * double(n));
}
BENCHMARK(BM_matmul_blas_gemm)->Arg(512)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
