// Unified reductions at memory bandwidth (issue 14): for each shape, the device's copy of the
// same bytes (clEnqueueCopyBuffer), the row and column sums and maxima, the 2-D full sum,
// hand-written OpenCL kernels for a row sum and a column sum, and hand-written copy kernels (one
// float and four floats per work-item). Each timed call ends with a
// clFinish, as a synchronous caller sees it.
//
//   BM_reduction/<rows>x<cols>/<case>
//
// bytes_per_second counts the bytes read (the matrix, rows * cols floats; a copy of them reads
// as much and writes as much again). copy_ratio is the copy's time over this case's, the copy
// timed in the same process (BM_reduction/<shape>/copy when it ran before, else a copy timed
// just before this case): 1 is copy speed, the issue asks >= 0.8 on a GPU, >= 0.7 on PoCL.
//
// Shapes: 2^24 floats (4096x4096, 256x65536, 65536x256, 1x2^24, 2^24x1); with
// TESSERA_BENCH_REDUCTION_LARGE=1 also 2^26 (8192x8192, 1024x65536, 65536x1024, 1x2^26, 2^26x1).
#include <tessera/runtime/runtime.hpp>
#include <tessera/unified/unified.hpp>

#include "random_floats.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace tessera::unified;
namespace rt = tessera::runtime;

struct shape {
  std::size_t rows, cols;
  std::size_t elements() const { return rows * cols; }
  std::size_t bytes() const { return elements() * sizeof(float); }
  std::string name() const { return std::to_string(rows) + "x" + std::to_string(cols); }
};

std::vector<shape> shapes() {
  std::vector<shape> out = {{4096, 4096}, {256, 65536}, {65536, 256}, {1, 1u << 24}, {1u << 24, 1}};
  if (const char* large = std::getenv("TESSERA_BENCH_REDUCTION_LARGE"); large != nullptr && large[0] == '1')
    out.insert(out.end(), {{8192, 8192}, {1024, 65536}, {65536, 1024}, {1, 1u << 26}, {1u << 26, 1}});
  return out;
}

using tessera::benchmarks::random_floats;

const char* const hand_written_source = R"(
// One row per `lanes` work-items (a work-group holds 256 / lanes rows): each lane strides
// along the row, a local tree combines the lanes.
kernel void row_sum(const long rows, const long cols, const long stride, const long lanes, global const float* x,
                    global float* out) {
  local float scratch[256];
  const long lid = get_local_id(0);
  const long lane = lid % lanes;
  const long row = (long)get_group_id(0) * (256 / lanes) + lid / lanes;
  float acc = 0.0f;
  if (row < rows)
    for (long col = lane; col < cols; col += lanes) acc += x[row * stride + col];
  scratch[lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (long s = lanes / 2; s > 0; s >>= 1) {
    if (lane < s) scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lane == 0 && row < rows) out[row] = scratch[lid];
}

// A copy by work-items, one float each and four each: what a kernel that reads and writes every
// element (a row reduction of N x 1, a column reduction of 1 x N) can reach.
kernel void copy1(const long n, global const float* x, global float* y) {
  const long i = get_global_id(0);
  if (i < n) y[i] = x[i];
}
kernel void copy4(const long n4, global const float4* x, global float4* y) {
  const long i = get_global_id(0);
  if (i < n4) y[i] = x[i];
}

// One work-item per column, down all the rows: neighbouring items read neighbouring columns.
kernel void col_sum(const long rows, const long cols, const long stride, global const float* x, global float* out) {
  const long col = get_global_id(0);
  if (col >= cols) return;
  float acc = 0.0f;
  for (long row = 0; row < rows; ++row) acc += x[row * stride + col];
  out[col] = acc;
}
)";

/// One shape's matrix, results and the hand-written kernels, on the default OpenCL device.
struct fixture {
  shape size;
  std::shared_ptr<const opencl_executor> exec = opencl_executor::create();
  rt::context& ctx = rt::context::get();
  dense<float> m;
  array<float> copy_target, per_row, per_col, one;
  std::shared_ptr<const rt::program> program = ctx.programs().get("unified reduction benchmark (hand-written)",
                                                                  hand_written_source);
  rt::kernel hand_row = program->make_kernel("row_sum");
  rt::kernel hand_col = program->make_kernel("col_sum");
  rt::kernel hand_copy1_kernel = program->make_kernel("copy1");
  rt::kernel hand_copy4_kernel = program->make_kernel("copy4");

  explicit fixture(shape s)
      : size(s), m(exec, dim<2>{s.rows, s.cols}, random_floats(s.elements(), 1)), copy_target(exec, s.elements()),
        per_row(exec, s.rows), per_col(exec, s.cols), one(exec, 1) {}

  cl_mem matrix() const { return m.values().device_buffer().handle()(); }

  void copy() {
    rt::check_cl(ctx.queue().enqueueCopyBuffer(m.values().device_buffer().handle(),
                                               copy_target.device_buffer().handle(), 0, 0, size.bytes()),
                 "clEnqueueCopyBuffer");
    ctx.finish();
  }
  void row_sum() {
    run_kernel_row_reduction(exec, [](auto row, auto col, auto m) { return m(row, col); },
                             TESSERA_KERNEL_REDUCE_SUM(float), per_row, 1, m.size(), std::as_const(m));
    exec->synchronize();
  }
  void col_sum() {
    run_kernel_col_reduction(exec, [](auto row, auto col, auto m) { return m(row, col); },
                             TESSERA_KERNEL_REDUCE_SUM(float), per_col, m.size(), std::as_const(m));
    exec->synchronize();
  }
  void row_max() {
    run_kernel_row_reduction(exec, [](auto row, auto col, auto m) { return m(row, col); },
                             TESSERA_KERNEL_REDUCE_MAX(float), per_row, 1, m.size(), std::as_const(m));
    exec->synchronize();
  }
  void col_max() {
    run_kernel_col_reduction(exec, [](auto row, auto col, auto m) { return m(row, col); },
                             TESSERA_KERNEL_REDUCE_MAX(float), per_col, m.size(), std::as_const(m));
    exec->synchronize();
  }
  void full_sum() {
    run_kernel_reduction(exec, [](auto row, auto col, auto m) { return m(row, col); },
                         TESSERA_KERNEL_REDUCE_SUM(float), one, m.size(), std::as_const(m));
    exec->synchronize();
  }
  void hand_row_sum() {
    const std::size_t lanes =
        std::clamp<std::size_t>(std::bit_floor(std::max<std::size_t>(size.cols / 8, 1)), 1, 256);
    const std::size_t rows_per_group = 256 / lanes;
    const std::size_t groups = (size.rows + rows_per_group - 1) / rows_per_group;
    hand_row.launch(ctx, rt::launch_range::one_d(groups * 256, 256), static_cast<std::int64_t>(size.rows),
                    static_cast<std::int64_t>(size.cols), static_cast<std::int64_t>(m.stride()),
                    static_cast<std::int64_t>(lanes), matrix(), per_row.device_buffer().handle()());
    ctx.finish();
  }
  void hand_copy1() {
    hand_copy1_kernel.launch(ctx, rt::launch_range::one_d(rt::round_up(size.elements(), 256), 256),
                             static_cast<std::int64_t>(size.elements()), matrix(),
                             copy_target.device_buffer().handle()());
    ctx.finish();
  }
  void hand_copy4() {  // the shapes' sizes are multiples of four
    const std::size_t n4 = size.elements() / 4;
    hand_copy4_kernel.launch(ctx, rt::launch_range::one_d(rt::round_up(n4, 256), 256), static_cast<std::int64_t>(n4),
                             matrix(), copy_target.device_buffer().handle()());
    ctx.finish();
  }
  void hand_col_sum() {
    hand_col.launch(ctx, rt::launch_range::one_d(rt::round_up(size.cols, 256), 256),
                    static_cast<std::int64_t>(size.rows), static_cast<std::int64_t>(size.cols),
                    static_cast<std::int64_t>(m.stride()), matrix(), per_col.device_buffer().handle()());
    ctx.finish();
  }
};

/// One fixture per shape at a time (2^26 floats are 256 MiB): the last one used is kept.
fixture& fixture_for(shape s) {
  static std::unique_ptr<fixture> current;
  if (!current || current->size.rows != s.rows || current->size.cols != s.cols) {
    current.reset();
    current = std::make_unique<fixture>(s);
  }
  return *current;
}

/// Seconds per copy of each shape, from its BM_reduction/<shape>/copy run or timed on demand.
std::map<std::string, double>& copy_seconds() {
  static std::map<std::string, double> seconds;
  return seconds;
}

template <typename Call>
double seconds_per_call(Call&& call, int calls) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) call();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / calls;
}

using case_function = void (fixture::*)();

void run_case(benchmark::State& state, shape s, case_function f, bool is_copy) {
  fixture& fx = fixture_for(s);
  (fx.*f)();  // tracing, building and first-launch work stay out of the timing
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) (fx.*f)();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / double(state.iterations());
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(s.bytes()));
  state.counters["rows"] = static_cast<double>(s.rows);
  state.counters["cols"] = static_cast<double>(s.cols);
  auto& copies = copy_seconds();
  if (is_copy) {
    copies[s.name()] = seconds;
    state.counters["copy_ratio"] = 1.0;
    return;
  }
  if (!copies.contains(s.name())) {
    fx.copy();
    copies[s.name()] = seconds_per_call([&] { fx.copy(); }, std::max(3, static_cast<int>(0.2 / std::max(seconds, 1e-6))));
  }
  state.counters["copy_ratio"] = copies[s.name()] / seconds;
}

const struct registration {
  registration() {
    const std::pair<const char*, case_function> cases[] = {
        {"copy", &fixture::copy},         {"row_sum", &fixture::row_sum},
        {"col_sum", &fixture::col_sum},   {"row_max", &fixture::row_max},
        {"col_max", &fixture::col_max},   {"full_sum", &fixture::full_sum},
        {"hand_row_sum", &fixture::hand_row_sum}, {"hand_col_sum", &fixture::hand_col_sum},
        {"hand_copy1", &fixture::hand_copy1},     {"hand_copy4", &fixture::hand_copy4}};
    for (const shape& s : shapes())
      for (const auto& [name, f] : cases) {
        const bool is_copy = std::string(name) == "copy";
        benchmark::RegisterBenchmark(("BM_reduction/" + s.name() + "/" + name).c_str(),
                                     [s, f = f, is_copy](benchmark::State& state) { run_case(state, s, f, is_copy); })
            ->UseRealTime()
            ->Unit(benchmark::kMicrosecond);
      }
  }
} registered;

}  // namespace
