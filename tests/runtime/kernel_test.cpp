#include <tessera/runtime/context.hpp>
#include <tessera/runtime/embedded_sources.hpp>
#include <tessera/runtime/matrix.hpp>

#include <gtest/gtest.h>

#include <array>
#include <thread>

#include "support/test_data.hpp"

namespace rt = tessera::runtime;
using tessera::testing::random_values;

namespace {
const char* const axpy_source = R"CL(
kernel void axpy(float alpha, global const float* x, global float* y, int n) {
  int i = get_global_id(0);
  if (i < n) y[i] += alpha * x[i];
}
)CL";
}

TEST(KernelLaunch, ComputesWhatTheHostComputesAtOddSizes) {
  auto& ctx = rt::context::get();
  auto k = ctx.programs().get("axpy", axpy_source)->make_kernel("axpy");
  for (rt::index_t n : {1, 2, 13, 257, 100003}) {
    SCOPED_TRACE(n);
    const auto x = random_values<float>(n), y = random_values<float>(n);
    const float alpha = random_values<float>(1)[0];
    rt::matrix<float> dx(x, n, 1), dy(y, n, 1);
    k.launch(ctx, rt::launch_range::one_d(rt::round_up(n, 64), 64), alpha, dx, dy, static_cast<int>(n));
    const auto out = dy.to_host();
    for (rt::index_t i = 0; i < n; ++i) ASSERT_NEAR(out[i], y[i] + alpha * x[i], 4 * std::numeric_limits<float>::epsilon()) << i;  // the device may fuse into an fma
  }
}

TEST(KernelLaunch, AnEmptyRangeLaunchesNothingAndGivesAValidEvent) {
  auto& ctx = rt::context::get();
  auto k = ctx.programs().get("axpy", axpy_source)->make_kernel("axpy");
  rt::matrix<float> empty(0, 1);
  auto event = k.launch(ctx, rt::launch_range::one_d(0), 1.0f, empty, empty, 0);
  EXPECT_EQ(event.wait(), CL_SUCCESS);
}

TEST(KernelLaunch, SeveralThreadsShareOneKernelObject) {
  auto& ctx = rt::context::get();
  auto k = ctx.programs().get("axpy", axpy_source)->make_kernel("axpy");
  const int n = 4099;
  std::vector<std::vector<float>> xs, ys;
  std::vector<rt::matrix<float>> dxs, dys;
  for (int t = 0; t < 4; ++t) {
    xs.push_back(random_values<float>(n));
    ys.push_back(random_values<float>(n));
    dxs.emplace_back(xs.back(), n, 1);
    dys.emplace_back(ys.back(), n, 1);
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 10; ++rep)
        k.launch(ctx, rt::launch_range::one_d(rt::round_up(n, 64), 64), float(t + 1), dxs[t], dys[t], n);
    });
  for (auto& t : threads) t.join();
  for (int t = 0; t < 4; ++t) {
    const auto out = dys[t].to_host();
    for (int i = 0; i < n; ++i) ASSERT_NEAR(out[i], ys[t][i] + 10.0f * (t + 1) * xs[t][i], 1e-4f) << t << "," << i;
  }
}

TEST(KernelLaunch, ProfilingGivesADuration) {
  auto& ctx = rt::context::get();
  auto k = ctx.programs().get("axpy", axpy_source)->make_kernel("axpy");
  const int n = 1 << 16;
  rt::matrix<float> x(random_values<float>(n), n, 1), y(random_values<float>(n), n, 1);
  const auto event = k.launch(ctx, rt::launch_range::one_d(n, 64), 0.5f, x, y, n);
  EXPECT_GT(rt::elapsed_seconds(event), 0.0);
}

TEST(EmbeddedSources, UnknownPathIsNamed) {
  try {
    rt::embedded_source("no/such/kernel.cl");
    FAIL();
  } catch (const tessera::error& e) {
    EXPECT_NE(std::string(e.what()).find("no/such/kernel.cl"), std::string::npos);
  }
}

TEST(KernelLaunch, LocalMemoryArgumentsAreAllocatedPerLaunch) {
  auto& ctx = rt::context::get();
  // Each work-group of 16 reverses its slice through local memory.
  const char* source = R"CL(
kernel void reverse16(global const float* x, global float* y, local float* scratch) {
  int l = get_local_id(0), g = get_group_id(0);
  scratch[l] = x[g * 16 + l];
  barrier(CLK_LOCAL_MEM_FENCE);
  y[g * 16 + l] = scratch[15 - l];
}
)CL";
  auto k = ctx.programs().get("reverse16", source)->make_kernel("reverse16");
  const int n = 16 * 7;
  const auto x = random_values<float>(n);
  rt::matrix<float> dx(x, n, 1), dy(n, 1);
  k.launch(ctx, rt::launch_range::one_d(n, 16), dx, dy, rt::local_memory{16 * sizeof(float)});
  const auto y = dy.to_host();
  for (int i = 0; i < n; ++i) ASSERT_EQ(y[i], x[(i / 16) * 16 + 15 - i % 16]) << i;
}

TEST(KernelLaunch, ASpanOfArgumentsOfAnyCountAndMixOfKindsReachesTheKernel) {
  auto& ctx = rt::context::get();
  // Twelve parameters, buffers, scalars of three types and local memory interleaved.
  const char* source = R"CL(
kernel void mixed(int n, global const float* a, float s, local float* scratch, long shift, global const float* b,
                  double unused, int m, global float* out, float t, global const float* c, uint k) {
  const int i = get_global_id(0);
  scratch[get_local_id(0)] = (i < n) ? a[i] : 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (i < n) out[i] = s * scratch[get_local_id(0)] + t * b[i] - c[i] + (float)(shift + m + k);
}
)CL";
  if (!ctx.device().has_fp64) GTEST_SKIP() << "the kernel has a double parameter";
  const auto program = ctx.programs().get("mixed", std::string("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n") + source);
  const rt::kernel k = program->make_kernel("mixed");
  for (int n : {1, 17, 131}) {
    SCOPED_TRACE(n);
    const auto a = random_values<float>(n), b = random_values<float>(n), c = random_values<float>(n);
    const auto scalars = random_values<float>(2);
    rt::matrix<float> da(a, n, 1), db(b, n, 1), dc(c, n, 1), out(n, 1);
    const std::int64_t shift = 3;
    const int m = -5;
    const cl_uint extra = 1;
    std::vector<rt::kernel_argument> arguments{n, da, scalars[0], rt::local_memory{16 * sizeof(float)}, shift, db};
    arguments.insert(arguments.end(), {rt::kernel_argument(0.5), m, out, scalars[1], dc, extra});
    k.launch(ctx, rt::launch_range::one_d(rt::round_up(n, 16), 16), arguments);
    const auto got = out.to_host();
    for (int i = 0; i < n; ++i)
      ASSERT_NEAR(got[i], scalars[0] * a[i] + scalars[1] * b[i] - c[i] + float(shift + m + extra), 1e-5f) << i;
  }
}

TEST(KernelLaunch, EveryLaunchIsCountedAndAnEmptyRangeIsNot) {
  auto& ctx = rt::context::get();
  auto k = ctx.programs().get("axpy", axpy_source)->make_kernel("axpy");
  const int n = 7;
  rt::matrix<float> x(random_values<float>(n), n, 1), y(random_values<float>(n), n, 1);
  const auto before = rt::kernels_enqueued();
  k.launch(ctx, rt::launch_range::one_d(64, 64), 1.0f, x, y, n);
  k.launch(ctx, rt::launch_range::one_d(0), 1.0f, x, y, n);
  EXPECT_EQ(rt::kernels_enqueued() - before, 1u);
  ctx.finish();
}

TEST(KernelLaunch, WithoutAnEventTheKernelRunsAndIsCounted) {
  auto& ctx = rt::context::get();
  auto k = ctx.programs().get("axpy", axpy_source)->make_kernel("axpy");
  const int n = 101;
  const auto x = random_values<float>(n), y = random_values<float>(n);
  rt::matrix<float> dx(x, n, 1), dy(y, n, 1);
  const std::array<rt::kernel_argument, 4> arguments{2.0f, dx, dy, n};
  const auto before = rt::kernels_enqueued();
  const cl::Event event = k.launch(ctx, rt::launch_range::one_d(128, 64), arguments, rt::launch_event::none);
  EXPECT_EQ(event(), nullptr);
  const cl::Event empty = k.launch(ctx, rt::launch_range::one_d(0), arguments, rt::launch_event::none);
  EXPECT_EQ(empty(), nullptr) << "an empty range without an event enqueues nothing, not even a marker";
  EXPECT_EQ(rt::kernels_enqueued() - before, 1u);
  ctx.finish();
  const auto out = dy.to_host();
  for (int i = 0; i < n; ++i) ASSERT_NEAR(out[i], y[i] + 2.0f * x[i], 4 * std::numeric_limits<float>::epsilon()) << i;
}

TEST(KernelLaunch, AKernelKnowsItsWorkGroupLimitAndRunsAtIt) {
  auto& ctx = rt::context::get();
  const char* source = R"CL(
kernel void group_sum(global const float* x, global float* sums, local float* scratch) {
  const size_t l = get_local_id(0), size = get_local_size(0);
  scratch[l] = x[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l == 0) {
    float s = 0;
    for (size_t i = 0; i < size; ++i) s += scratch[i];
    sums[get_group_id(0)] = s;
  }
}
)CL";
  const rt::kernel k = ctx.programs().get("group_sum", source)->make_kernel("group_sum");
  const std::size_t limit = k.max_work_group_size();
  ASSERT_GT(limit, 0u);
  EXPECT_LE(limit, ctx.device().max_work_group_size);
  EXPECT_GE(k.preferred_work_group_multiple(), 1u);
  const std::size_t power = k.power_of_two_work_group(1000000);
  EXPECT_LE(power, limit);
  EXPECT_GT(2 * power, limit) << "the largest power of two within the limit";
  EXPECT_EQ(k.power_of_two_work_group(100), std::min<std::size_t>(64, power));
  const std::size_t groups = 3;
  const auto x = random_values<float>(groups * limit);
  rt::matrix<float> dx(x, static_cast<rt::index_t>(x.size()), 1), sums(groups, 1);
  k.launch(ctx, rt::launch_range::one_d(groups * limit, limit), dx, sums, rt::local_memory{limit * sizeof(float)});
  const auto got = sums.to_host();
  for (std::size_t g = 0; g < groups; ++g) {
    double expected = 0;
    for (std::size_t i = 0; i < limit; ++i) expected += x[g * limit + i];
    EXPECT_NEAR(got[g], expected, 1e-4 * static_cast<double>(limit)) << g;
  }
}
