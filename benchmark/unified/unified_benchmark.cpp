// Unified kernels against hand-written code on each backend: the OpenMP executor against a
// hand-written OpenMP loop, the OpenCL executor against hand-written OpenCL kernels (same
// launch shape, same two-stage reduction), for an axpy-like kernel and a dot product.
// Every iteration waits for the result, so each figure is what a synchronous caller sees.
#include <tessera/runtime/runtime.hpp>
#include <tessera/unified/unified.hpp>

#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace {

using namespace tessera::unified;
namespace rt = tessera::runtime;

// Values in [-1, 1), never zero, from a xorshift generator: 2^26 of them in well under a second.
std::vector<float> random_floats(std::size_t n, std::uint64_t seed) {
  std::uint64_t state = 0x9e3779b97f4a7c15ull * (seed + 1);
  std::vector<float> v(n);
  for (auto& x : v) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    x = static_cast<float>(static_cast<std::int64_t>(state >> 40) - (1 << 23) + 1) / float(1 << 23);
    if (x == 0.0f) x = 0.5f;
  }
  return v;
}

void set_counters(benchmark::State& state, std::size_t n, std::size_t arrays_touched) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * n * arrays_touched * sizeof(float)));
  state.counters["n"] = static_cast<double>(n);
}

// --- axpy-like: y[i] += a * x[i] --------------------------------------------------------

constexpr float alpha = 0.75f;

void BM_axpy_omp_unified(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  auto exec = omp_executor::create();
  const array<float> x(exec, random_floats(n, 1));
  array<float> y(exec, random_floats(n, 2));
  for (auto _ : state) {
    run_kernel(exec, [](auto i, auto a, auto x, auto y) { y[i] += a * x[i]; }, n, alpha, x, y);
    benchmark::ClobberMemory();
  }
  set_counters(state, n, 3);
}

void BM_axpy_omp_hand(benchmark::State& state) {
  const auto n = static_cast<std::int64_t>(state.range(0));
  const auto xs = random_floats(n, 1);
  auto ys = random_floats(n, 2);
  const float* x = xs.data();
  float* y = ys.data();
  const int threads = omp_get_max_threads();
  for (auto _ : state) {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (std::int64_t i = 0; i < n; ++i) y[i] += alpha * x[i];
    benchmark::ClobberMemory();
  }
  set_counters(state, static_cast<std::size_t>(n), 3);
}

const char* const hand_written_source = R"(
kernel void axpy(const long n, const float a, global const float* x, global float* y) {
  const size_t i = get_global_id(0);
  if (i < n) y[i] += a * x[i];
}

// Each work-item sums terms first, first + step, ... below min(n, first + span): interleaved on a
// GPU (chunk 1, step = all items), one contiguous block per item on a CPU (step 1).
kernel void dot_partials(const long n, const long chunk, const long span, const long step, global const float* x,
                         global const float* y, global float* partials) {
  local float scratch[256];
  const size_t lid = get_local_id(0);
  const long first = get_global_id(0) * chunk;
  const long last = min(n, first + span);
  float acc = 0.0f;
  for (long i = first; i < last; i += step) acc += x[i] * y[i];
  scratch[lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (lid < s) scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) partials[get_group_id(0)] = scratch[0];
}

kernel void dot_final(const long count, global const float* partials, global float* result) {
  local float scratch[256];
  const size_t lid = get_local_id(0);
  float acc = 0.0f;
  for (size_t i = lid; i < count; i += get_local_size(0)) acc += partials[i];
  scratch[lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (lid < s) scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) result[0] = scratch[0];
}
)";

struct hand_written {
  rt::context& ctx = rt::context::get();
  std::shared_ptr<const rt::program> program = ctx.programs().get("unified benchmark (hand-written)", hand_written_source);
  rt::kernel axpy = program->make_kernel("axpy");
  rt::kernel dot_partials = program->make_kernel("dot_partials");
  rt::kernel dot_final = program->make_kernel("dot_final");
  static constexpr std::size_t local = 256;
  /// Work-groups of the dot product's first stage: enough to fill every compute unit.
  std::size_t dot_groups(std::size_t n) const {
    const std::size_t per_unit = ctx.device().type == rt::device_type::gpu ? 8 : 4;
    return std::clamp<std::size_t>((n + local - 1) / local, 1, per_unit * ctx.device().compute_units);
  }
  /// chunk, span and step of dot_partials for `items` work-items.
  std::array<std::int64_t, 3> dot_split(std::size_t n, std::size_t items) const {
    const auto sn = static_cast<std::int64_t>(n), si = static_cast<std::int64_t>(items);
    if (ctx.device().type == rt::device_type::cpu) {
      const std::int64_t chunk = std::max<std::int64_t>((sn + si - 1) / si, 1);
      return {chunk, chunk, 1};
    }
    return {1, sn, si};
  }
};

void BM_axpy_opencl_unified(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  auto exec = opencl_executor::create();
  const array<float> x(exec, random_floats(n, 1));
  array<float> y(exec, random_floats(n, 2));
  auto axpy = [](auto i, auto a, auto x, auto y) { y[i] += a * x[i]; };
  run_kernel(exec, axpy, n, alpha, x, y);  // trace and build outside the timing
  exec->synchronize();
  for (auto _ : state) {
    run_kernel(exec, axpy, n, alpha, x, y);
    exec->synchronize();
  }
  set_counters(state, n, 3);
}

void BM_axpy_opencl_hand(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  hand_written hw;
  const rt::matrix<float> x(random_floats(n, 1), static_cast<rt::index_t>(n), 1);
  rt::matrix<float> y(random_floats(n, 2), static_cast<rt::index_t>(n), 1);
  const auto range = rt::launch_range::one_d(rt::round_up(n, hw.local), hw.local);
  hw.axpy.launch(hw.ctx, range, static_cast<std::int64_t>(n), alpha, x, y);  // the driver's first-launch work
  hw.ctx.finish();
  for (auto _ : state) {
    hw.axpy.launch(hw.ctx, range, static_cast<std::int64_t>(n), alpha, x, y);
    hw.ctx.finish();
  }
  set_counters(state, n, 3);
}

// --- dot product --------------------------------------------------------------------------

void BM_dot_omp_unified(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  auto exec = omp_executor::create();
  const array<float> x(exec, random_floats(n, 1)), y(exec, random_floats(n, 2));
  array<float> result(exec, 1);
  for (auto _ : state) {
    run_kernel_reduction(exec, [](auto i, auto x, auto y) { return x[i] * y[i]; }, TESSERA_KERNEL_REDUCE_SUM(float),
                         result, n, x, y);
    benchmark::DoNotOptimize(result.host_data()[0]);
  }
  set_counters(state, n, 2);
}

void BM_dot_omp_hand(benchmark::State& state) {
  const auto n = static_cast<std::int64_t>(state.range(0));
  const auto xs = random_floats(n, 1), ys = random_floats(n, 2);
  const float* x = xs.data();
  const float* y = ys.data();
  const int threads = omp_get_max_threads();
  for (auto _ : state) {
    float sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum) num_threads(threads)
    for (std::int64_t i = 0; i < n; ++i) sum += x[i] * y[i];
    benchmark::DoNotOptimize(sum);
  }
  set_counters(state, static_cast<std::size_t>(n), 2);
}

void BM_dot_opencl_unified(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  auto exec = opencl_executor::create();
  const array<float> x(exec, random_floats(n, 1)), y(exec, random_floats(n, 2));
  array<float> result(exec, 1);
  auto dot = [&] {
    run_kernel_reduction(exec, [](auto i, auto x, auto y) { return x[i] * y[i]; }, TESSERA_KERNEL_REDUCE_SUM(float),
                         result, n, x, y);
  };
  dot();  // trace and build outside the timing
  exec->synchronize();
  for (auto _ : state) {
    dot();
    exec->synchronize();
  }
  set_counters(state, n, 2);
}

void BM_dot_opencl_hand(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  hand_written hw;
  const rt::matrix<float> x(random_floats(n, 1), static_cast<rt::index_t>(n), 1);
  const rt::matrix<float> y(random_floats(n, 2), static_cast<rt::index_t>(n), 1);
  const std::size_t groups = hw.dot_groups(n);
  rt::matrix<float> partials(static_cast<rt::index_t>(groups), 1), result(1, 1);
  const auto [chunk, span, step] = hw.dot_split(n, groups * hw.local);
  auto dot = [&] {
    hw.dot_partials.launch(hw.ctx, rt::launch_range::one_d(groups * hw.local, hw.local), static_cast<std::int64_t>(n),
                           chunk, span, step, x, y, partials);
    hw.dot_final.launch(hw.ctx, rt::launch_range::one_d(hw.local, hw.local), static_cast<std::int64_t>(groups),
                        partials, result);
  };
  dot();  // the driver's first-launch work
  hw.ctx.finish();
  for (auto _ : state) {
    dot();
    hw.ctx.finish();
  }
  set_counters(state, n, 2);
}

// Sizes: in cache (2^16), past the caches (2^20, 2^24) and one that fills a large GPU (2^26).
void sizes(benchmark::internal::Benchmark* b) {
  for (std::int64_t n : {1 << 16, 1 << 20, 1 << 24, 1 << 26}) b->Arg(n);
  b->UseRealTime()->Unit(benchmark::kMicrosecond);
}

}  // namespace

BENCHMARK(BM_axpy_omp_unified)->Apply(sizes);
BENCHMARK(BM_axpy_omp_hand)->Apply(sizes);
BENCHMARK(BM_axpy_opencl_unified)->Apply(sizes);
BENCHMARK(BM_axpy_opencl_hand)->Apply(sizes);
BENCHMARK(BM_dot_omp_unified)->Apply(sizes);
BENCHMARK(BM_dot_omp_hand)->Apply(sizes);
BENCHMARK(BM_dot_opencl_unified)->Apply(sizes);
BENCHMARK(BM_dot_opencl_hand)->Apply(sizes);

BENCHMARK_MAIN();
