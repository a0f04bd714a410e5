// The OpenCL side of unified kernels: the code a lambda is traced into, the cache that traces
// it once, traces on several threads at once, and what the tracer refuses at trace time.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <support/test_data.hpp>
#include <tessera/unified/unified.hpp>

namespace {

using namespace tessera::unified;
using tessera::testing::random_values;

/// The source a lambda is traced into, with the arguments a 1-D run_kernel would give it.
template <typename Fn, typename... Arguments>
std::string traced_source(Fn fn, Arguments... arguments) {
  auto trace = std::make_shared<kernel_trace>("golden", "golden");
  const std::string n = trace->scalar_parameter("long", "n");
  auto symbolic = std::tuple{arguments(trace)...};
  const std::string i = trace->constant("long", "get_global_id(0)", "i");
  trace->open_block("if (" + i + " < " + n + ")");
  std::apply([&](auto&... a) { fn(traced<std::int64_t>(trace, i, 0), a...); }, symbolic);
  trace->close_block();
  return trace->finish();
}
template <typename T, bool Const>
auto pointer() {
  return [](const std::shared_ptr<kernel_trace>& t) {
    return traced_pointer<T, Const>(t, t->pointer_parameter(t->type_name<T>(), Const, tessera::codegen::address_space::global, "p"), 0);
  };
}

TEST(unified_tracing, the_seeds_scale_kernel_traces_to_this_opencl_c) {
  const std::string source =
      traced_source([](auto nnz, auto alpha, auto x) { x[nnz] *= alpha[0]; }, pointer<float, true>(), pointer<float, false>());
  EXPECT_EQ(source,
            "kernel void golden(\n"
            "    long n1,\n"
            "    global const float* p1,\n"
            "    global float* p2) {\n"
            "  const long i1 = get_global_id(0);\n"
            "  if (i1 < n1) {\n"
            "    const float v1 = p1[0];\n"
            "    p2[i1] *= v1;\n"
            "  }\n"
            "}\n");
}

TEST(unified_tracing, control_flow_traces_to_real_branches_and_loops) {
  const std::string source = traced_source(
      [](auto row, auto row_ptrs, auto values, auto y) {
        auto sum = var(zero(values));
        for_(row_ptrs[row], row_ptrs[row + 1], [&](auto k) { sum += values[k]; });
        if_(sum > 0, [&] { y[row] = sum; }).else_([&] { y[row] = -sum; });
      },
      pointer<int, true>(), pointer<double, true>(), pointer<double, false>());
  EXPECT_EQ(source,
            "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
            "\n"
            "kernel void golden(\n"
            "    long n1,\n"
            "    global const int* p1,\n"
            "    global const double* p2,\n"
            "    global double* p3) {\n"
            "  const long i1 = get_global_id(0);\n"
            "  if (i1 < n1) {\n"
            "    double v1 = 0.0;\n"
            "    const long v2 = (i1 + (long)1);\n"
            "    const int v3 = p1[i1];\n"
            "    const int v4 = p1[v2];\n"
            "    for (int k1 = v3; k1 < v4; ++k1) {\n"
            "      const double v5 = p2[k1];\n"
            "      v1 += v5;\n"
            "    }\n"
            "    const bool v6 = (v1 > (double)0);\n"
            "    if (v6) {\n"
            "      p3[i1] = v1;\n"
            "    }\n"
            "    if (!v6) {\n"
            "      const double v7 = (-v1);\n"
            "      p3[i1] = v7;\n"
            "    }\n"
            "  }\n"
            "}\n");
}

TEST(unified_tracing, a_kernel_is_traced_and_built_once_per_argument_types) {
  auto exec = opencl_executor::create();
  auto& programs = exec->ctx().programs();
  array<float> xf(exec, random_values<float>(100));
  array<double> xd(exec, random_values<double>(100));
  auto negate = [](auto i, auto x) { x[i] = -x[i]; };

  run_kernel(exec, negate, xf.size(), xf);
  const auto after_first = programs.counters();
  run_kernel(exec, negate, xf.size(), xf);
  run_kernel(exec, negate, xf.size(), xf);
  const auto after_repeats = programs.counters();
  EXPECT_EQ(after_repeats.builds + after_repeats.disk_hits + after_repeats.memory_hits,
            after_first.builds + after_first.disk_hits + after_first.memory_hits)
      << "a repeated launch must not trace or look up its program again";

  run_kernel(exec, negate, xd.size(), xd);  // new argument types: a new kernel
  const auto after_double = programs.counters();
  EXPECT_EQ(after_double.builds + after_double.disk_hits + after_double.memory_hits,
            after_repeats.builds + after_repeats.disk_hits + after_repeats.memory_hits + 1);
}

TEST(unified_tracing, traces_on_several_threads_do_not_meet) {
  auto exec = opencl_executor::create();
  constexpr int threads = 4;
  constexpr std::size_t n = 4099;
  std::vector<std::vector<float>> inputs;
  for (int t = 0; t < threads; ++t) inputs.push_back(random_values<float>(n));
  std::vector<std::vector<float>> outputs(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      array<float> x(exec, inputs[t]);
      array<float> sum(exec, 1);
      for (int repeat = 0; repeat < 5; ++repeat) {
        // Two lambdas traced for the first time concurrently, and one shared by all threads.
        if (t % 2 == 0) run_kernel(exec, [](auto i, auto x, auto k) { x[i] = x[i] * k + 1; }, n, x, 2.0f);
        else run_kernel(exec, [](auto i, auto x, auto k) { x[i] = (x[i] + 1) * k; }, n, x, 2.0f);
        run_kernel_reduction(exec, [](auto i, auto x) { return x[i]; }, TESSERA_KERNEL_REDUCE_SUM(float), sum, n, x);
      }
      outputs[t] = x.to_host();
    });
  for (auto& thread : pool) thread.join();
  for (int t = 0; t < threads; ++t)
    for (std::size_t i = 0; i < n; ++i) {
      float expected = inputs[t][i];
      for (int repeat = 0; repeat < 5; ++repeat) expected = t % 2 == 0 ? expected * 2.0f + 1 : (expected + 1) * 2.0f;
      ASSERT_FLOAT_EQ(outputs[t][i], expected) << "thread " << t << ", element " << i;
    }
}

template <typename F>
void expect_trace_error(F&& f, const std::string& fragment) {
  try {
    f();
    ADD_FAILURE() << "expected a trace_error mentioning '" << fragment << "'";
  } catch (const trace_error& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    EXPECT_NE(e.program_name().find("run_kernel"), std::string::npos) << "the error names the kernel";
  }
}

TEST(unified_tracing, a_value_used_outside_its_block_is_a_trace_error) {
  auto exec = opencl_executor::create();
  array<float> x(exec, random_values<float>(8));
  expect_trace_error(
      [&] {
        run_kernel(
            exec,
            [](auto i, auto x) {
              std::optional<decltype(x[i] * 2)> inner;
              if_(x[i] > 0, [&] { inner.emplace(x[i] * 2); });
              x[i] = *inner;
            },
            x.size(), x);
      },
      "outside the if_/for_ block");
}

// Kernels that keep a symbolic value in a global (never do this): a later trace must refuse it.
std::optional<traced<std::int64_t>> kept_index;

TEST(unified_tracing, a_value_kept_from_another_trace_is_a_trace_error) {
  auto exec = opencl_executor::create();
  array<float> x(exec, random_values<float>(8));
  array<double> y(exec, random_values<double>(8));
  auto kernel = [](auto i, auto x) {
    if (kept_index) x[*kept_index] = 1;
    kept_index.emplace(i);
  };
  kept_index.reset();
  run_kernel(exec, kernel, x.size(), x);  // the float trace keeps its index
  expect_trace_error([&] { run_kernel(exec, kernel, y.size(), y); }, "two different traces");
  kept_index.reset();
}

TEST(unified_tracing, a_value_used_after_its_trace_ended_is_a_trace_error) {
  auto exec = opencl_executor::create();
  array<float> x(exec, random_values<float>(8));
  array<double> y(exec, random_values<double>(8));
  auto kernel = [](auto i, auto x) {
    if (kept_index) if_(*kept_index > 0, [] {});
    x[i] = 0;
    kept_index.emplace(i);
  };
  kept_index.reset();
  run_kernel(exec, kernel, x.size(), x);
  expect_trace_error([&] { run_kernel(exec, kernel, y.size(), y); }, "kept after its trace ended");
  kept_index.reset();
}

}  // namespace
