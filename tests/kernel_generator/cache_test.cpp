// Caching: one program per expression type (and aliasing pattern), reused at every size.
#include <gmock/gmock.h>

#include <thread>

#include "kernel_generator/kernel_generator_support.hpp"

namespace {

using namespace tessera;
using namespace tessera::testing;
using namespace tessera::kernel_generator;

/// A context of its own with no disk cache, so its program cache counts only this test's
/// builds. Never destroyed, like the default context.
runtime::context& fresh_context() {
  static runtime::context* const ctx = new runtime::context(runtime::context::get().device(), std::nullopt);
  return *ctx;
}

template <typename T>
matrix<T> random_on(runtime::context& ctx, index_t rows, index_t cols) {
  return matrix<T>(random_values<T>(static_cast<std::size_t>(rows * cols)), rows, cols, matrix_view::entire, ctx);
}

TEST(KernelGeneratorCache, ASixOperationExpressionBuildsOneProgramForEverySize) {
  runtime::context& ctx = fresh_context();
  const auto generated_before = cache_counters().generated;
  matrix<float> r(0, 0, matrix_view::entire, ctx);
  for (int k = 0; k <= 100; ++k) {
    const index_t rows = 1 + (k * 7) % 41, cols = 1 + (k * 13) % 29;
    const matrix<float> a = random_on<float>(ctx, rows, cols), b = random_on<float>(ctx, rows, cols);
    const matrix<float> c = random_on<float>(ctx, rows, cols), d = random_on<float>(ctx, rows, cols);
    // + - elt_multiply * exp +: six operations, four inputs
    r = elt_multiply(a + b, c - d) * 0.5f + exp(a);
    if (k == 0) {
      EXPECT_EQ(ctx.programs().counters().builds, 1u) << "the first evaluation builds one program";
      EXPECT_EQ(cache_counters().generated - generated_before, 1u);
    }
    if (k % 25 == 0) {
      EXPECT_TRUE(matches_host(r, host_evaluate<float>(elt_multiply(a + b, c - d) * 0.5f + exp(a)),
                               elementwise_tolerance<float>()));
    }
  }
  const auto counters = ctx.programs().counters();
  EXPECT_EQ(counters.builds, 1u) << "100 more evaluations at other sizes build nothing";
  EXPECT_EQ(counters.disk_hits, 0u);
  EXPECT_EQ(counters.memory_hits, 0u) << "the kernel comes from the expression type's cache";
  EXPECT_EQ(cache_counters().generated - generated_before, 1u);
}

TEST(KernelGeneratorCache, TheAliasingPatternSelectsTheKernel) {
  runtime::context& ctx = fresh_context();
  const matrix<float> a = random_on<float>(ctx, 5, 4), b = random_on<float>(ctx, 5, 4);
  matrix<float> d(0, 0, matrix_view::entire, ctx);
  // One expression type, two aliasing patterns: a + a loads a once.
  const auto sum = [](const matrix<float>& x, const matrix<float>& y) { return x + y; };
  const std::string distinct = kernel_source(d, sum(a, b)), same = kernel_source(d, sum(a, a));
  EXPECT_NE(distinct, same);
  EXPECT_EQ(same.find("m3"), std::string::npos) << same;
  const auto before = cache_counters().generated;
  d = sum(a, b);
  EXPECT_TRUE(matches_host(d, host_evaluate<float>(sum(a, b)), elementwise_tolerance<float>()));
  d = sum(a, a);
  EXPECT_TRUE(matches_host(d, host_evaluate<float>(sum(a, a)), elementwise_tolerance<float>()));
  d = sum(b, b);  // same pattern as (a, a): no new kernel
  EXPECT_EQ(cache_counters().generated - before, 2u);
}

TEST(KernelGeneratorCache, TriangularViewsSelectAKernelThatTestsThem) {
  runtime::context& ctx = fresh_context();
  matrix<float> a = random_on<float>(ctx, 6, 6);
  const matrix<float> b = random_on<float>(ctx, 6, 6);
  matrix<float> d(0, 0, matrix_view::entire, ctx);
  const auto before = cache_counters().generated;
  d = a + b;  // entire: plain loads
  EXPECT_TRUE(matches_host(d, host_evaluate<float>(a + b), elementwise_tolerance<float>()));
  a.set_view(matrix_view::upper);  // same expression type, now a's view must be tested
  d = a + b;
  EXPECT_TRUE(matches_host(d, host_evaluate<float>(a + b), elementwise_tolerance<float>()));
  EXPECT_EQ(cache_counters().generated - before, 2u);
  a.set_view(matrix_view::lower);  // another triangular view: the same kernel tests it
  d = a + b;
  EXPECT_TRUE(matches_host(d, host_evaluate<float>(a + b), elementwise_tolerance<float>()));
  EXPECT_EQ(cache_counters().generated - before, 2u);
  const std::string source = kernel_source(d, a + b);
  EXPECT_NE(source.find("m2_view &"), std::string::npos) << "a (m2) is triangular: its loads test the view";
  EXPECT_EQ(source.find("m3_view &"), std::string::npos) << "b (m3) is entire: loaded plainly";
}

TEST(KernelGeneratorCache, ThreadsShareKernelsSafely) {
  const matrix<float> a = random_matrix<float>(301, 7), b = random_matrix<float>(301, 7);
  const auto expected = host_evaluate<float>(exp(a) * 2 - b);
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int k = 0; k < 25; ++k) {
        matrix<float> d;
        d = exp(a) * 2 - b;
        if (!matches_host(d, expected, elementwise_tolerance<float>())) ++failures[t];
      }
    });
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures, std::vector<int>(4, 0));
}

}  // namespace
