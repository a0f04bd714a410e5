// matmul in expressions, continued (matmul_test.cpp; two files so that a build compiles them in
// parallel): every GEMM family's store step, the fusion's launches, the fall-back through a
// temporary, and shape errors.
#include <gmock/gmock.h>

#include <array>
#include <optional>

#include <tessera/blas/gemm.hpp>
#include <tessera/runtime/covering_event.hpp>
#include <tessera/runtime/kernel.hpp>

#include "fused_gemm/matmul_test_support.hpp"

namespace {

using namespace tessera;
using namespace tessera::testing;
using namespace tessera::kernel_generator;

template <typename T>
class KernelGeneratorMatmulMore : public ::testing::Test {};
TYPED_TEST_SUITE(KernelGeneratorMatmulMore, value_types);

// ---- every GEMM family ------------------------------------------------------------------

/// One configuration per family, vectorized store steps included (as tests/blas's
/// family_configs): the store step sees each lane's (row + i, col).
template <typename T>
std::vector<blas::gemm_params> family_configs() {
  std::vector<blas::gemm_params> out;
  for (const std::string& text :
       {std::string("naive wg=8x8"), "no_local vw=2 cls=" + std::to_string(16 * (sizeof(T) / 4)) + " item=4x2 wg=8x4 sg=2x2",
        "no_local_full vw=8 cls=" + std::to_string(16 * (sizeof(T) / 4)) + " item=8x4 wg=4x4",
        "local vw=4 cls=" + std::to_string(64 * (sizeof(T) / 4)) + " item=4x4 wg=8x8 sg=2x4 db=1 nbc_a=1 nbc_b=1"})
    out.push_back(blas::parse_gemm_params(text));
  return out;
}

TYPED_TEST(KernelGeneratorMatmulMore, EveryFamilyAppliesTheStoreStepAtEachElement) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  const gemm_shape s{70, 37, 41};  // full blocks and edges in both dimensions
  for (const blas::gemm_params& params : family_configs<T>()) {
    SCOPED_TRACE(blas::to_string(params));
    for_each_transpose<T>(s, [&](const auto& product) {
      // A column bias, a row bias, an extra input and the target read in place, in one store
      // step (one program per family and transpose: each is a GEMM build).
      const matrix<T> bias_col = random_matrix<T>(s.m, 1), bias_row = random_matrix<T>(1, s.n);
      const matrix<T> d = random_matrix<T>(s.m, s.n);
      matrix<T> c = random_matrix<T>(s.m, s.n);
      const auto expected = host_evaluate<T>(
          T(0.5) * c +
          elt_multiply(sigmoid(T(2) * product + colwise_broadcast(bias_col) + rowwise_broadcast(bias_row)), d));
      evaluate_fused_with(
          params, c,
          T(0.5) * c +
              elt_multiply(sigmoid(T(2) * product + colwise_broadcast(bias_col) + rowwise_broadcast(bias_row)), d));
      EXPECT_TRUE(matches_host(c, expected, product_tolerance<T>(s.k)));
    });
  }
}

// Split-K, set and chosen per call (split_k = 0): the store step runs once, on the slices' sum.
// One output tile (32 x 32 blocks) and a long K: the chosen split is more than one on a device
// of fewer than 32 compute units.
TYPED_TEST(KernelGeneratorMatmulMore, SplitKAppliesTheStoreStepToTheSum) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  const gemm_shape s{30, 17, 1001};
  const std::string cls = std::to_string(32 * (sizeof(T) / 4));
  for (const std::string split : {"4", "0"}) {
    const blas::gemm_params params =
        blas::parse_gemm_params("local vw=2 cls=" + cls + " item=4x4 wg=8x8 db=1 split_k=" + split);
    SCOPED_TRACE(blas::to_string(params));
    for_each_transpose<T>(s, [&](const auto& product) {
      const matrix<T> bias_col = random_matrix<T>(s.m, 1);
      matrix<T> c = random_matrix<T>(s.m, s.n);
      const auto expected = host_evaluate<T>(T(0.5) * c + fmax(T(2) * product + colwise_broadcast(bias_col), T(0)));
      evaluate_fused_with(params, c, T(0.5) * c + fmax(T(2) * product + colwise_broadcast(bias_col), T(0)));
      EXPECT_TRUE(matches_host(c, expected, product_tolerance<T>(s.k)));
    });
  }
}

TEST(KernelGeneratorMatmulFusion, EvaluateFusedWithRejectsAnAssignmentThatDoesNotFuse) {
  const matrix<float> a = random_matrix<float>(4, 3), b = random_matrix<float>(3, 5);
  matrix<float> c;
  EXPECT_THROW(evaluate_fused_with(blas::parse_gemm_params("naive wg=8x8"), c, transpose(matmul(a, b))),
               argument_error);
  EXPECT_TRUE(matches_host(c, host_evaluate<float>(transpose(matmul(a, b))), product_tolerance<float>(3)))
      << "evaluated all the same, by the fall-back";
}

// ---- one kernel ------------------------------------------------------------------------

/// A context of its own with no disk cache, so its program cache counts only this test's builds.
runtime::context& fresh_context() {
  static runtime::context* const ctx = new runtime::context(runtime::context::get().device(), std::nullopt);
  return *ctx;
}

TEST(KernelGeneratorMatmulFusion, ReluOfProductPlusBiasBuildsOneProgramAndLaunchesOneKernel) {
  runtime::context& ctx = fresh_context();
  const auto make = [&](index_t r, index_t c) {
    return matrix<float>(random_values<float>(static_cast<std::size_t>(r * c)), r, c, matrix_view::entire, ctx);
  };
  const matrix<float> a = make(37, 23), b = make(23, 29), bias = make(37, 1);
  matrix<float> c(0, 0, matrix_view::entire, ctx);
  const auto builds = ctx.programs().counters().builds;
  const auto launched = launches_of([&] { c = relu(2.0f * matmul(a, b) + colwise_broadcast(bias)); });
  EXPECT_EQ(ctx.programs().counters().builds - builds, 1u) << "one program: the GEMM with the store step";
  EXPECT_EQ(launched.first, 1u) << "one kernel enqueued";
  EXPECT_EQ(launched.second, 1u) << "and it is the GEMM";
  EXPECT_TRUE(matches_host(c, host_evaluate<float>(relu(2.0f * matmul(a, b) + colwise_broadcast(bias))),
                           product_tolerance<float>(23)));
  // Another size builds nothing more.
  const matrix<float> a2 = make(8, 3), b2 = make(3, 5), bias2 = make(8, 1);
  const auto builds2 = ctx.programs().counters().builds;
  c = relu(2.0f * matmul(a2, b2) + colwise_broadcast(bias2));
  EXPECT_LE(ctx.programs().counters().builds - builds2, 1u) << "at most another GEMM configuration";
  EXPECT_TRUE(matches_host(c, host_evaluate<float>(relu(2.0f * matmul(a2, b2) + colwise_broadcast(bias2))),
                           product_tolerance<float>(3)));
}

// matmul(a, b, math_mode::tf32): the tensor-core family where the device has one (its store step
// runs in that family's store), exact elsewhere; one kernel either way, at every transpose.
TEST(KernelGeneratorMatmulFusion, Tf32ProductsFuseIntoOneKernelAtEveryTranspose) {
  const gemm_shape s{150, 70, 64};
  for_each_transpose<float>(s, [&](const auto& product) {
    const matrix<float> bias = random_matrix<float>(s.m, 1);
    matrix<float> c(s.m, s.n);
    const auto tf32_product = matmul(product.template argument<0>(), product.template argument<1>(),
                                     blas::math_mode::tf32);
    const auto launched = launches_of([&] { c = relu(tf32_product + colwise_broadcast(bias)); });
    EXPECT_EQ(launched.first, 1u) << "one kernel enqueued";
    EXPECT_EQ(launched.second, 1u) << "and it is the GEMM";
    // TF32 cuts each operand to 10 mantissa bits: up to 2^-9 of each |a b| (check_gemm's bound);
    // k 2^-10 relative to max(1, |c|) holds it for operands in [-1, 1].
    EXPECT_TRUE(matches_host(c, host_evaluate<float>(relu(product + colwise_broadcast(bias))),
                             std::ldexp(double(s.k), -10)));
  });
}

// ---- the fall-back -----------------------------------------------------------------------

// Reductions read in place by the store step: computed there when they share one pass (a loop per
// element, or the one term), the second materialized first when its length differs. The store
// step's code differs between those, so its key does: one expression type at shapes that change
// the analysis gives the host's results each time, in any order.
TEST(KernelGeneratorMatmulFusion, ReductionsInTheStoreStepFollowTheirAnalysisAtEveryShape) {
  const index_t m = 19, k = 7;
  const matrix<float> a = random_matrix<float>(m, k), b = random_matrix<float>(k, 1);
  const auto expression = [&](const matrix<float>& x, const matrix<float>& y) {
    return matmul(a, b) + rowwise_sum(x) + rowwise_max(y);
  };
  const std::vector<std::pair<index_t, index_t>> lengths{{5, 5}, {5, 11}, {5, 5}, {1, 1}, {5, 1}, {1, 1}, {5, 11}};
  for (const auto& [x_length, y_length] : lengths) {
    SCOPED_TRACE(::testing::Message() << "x: " << x_length << " terms, y: " << y_length);
    const matrix<float> x = random_matrix<float>(m, x_length), y = random_matrix<float>(m, y_length);
    matrix<float> c;
    const auto [kernels, gemms] = launches_of([&] { c = expression(x, y); });
    EXPECT_EQ(gemms, 1u);
    EXPECT_EQ(kernels, x_length == y_length ? 1u : 2u) << "the product fused, y materialized only when apart";
    EXPECT_TRUE(matches_host(c, host_evaluate<float>(expression(x, y)), product_tolerance<float>(11)));
  }
}

TYPED_TEST(KernelGeneratorMatmulMore, AProductReadAtOtherElementsGoesThroughATemporary) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  for (const auto s : gemm_shapes())
    for_each_transpose<T>(s, [&](const auto& product) {
      matrix<T> c;
      const auto launched = launches_of([&] { c = transpose(product) * T(2); });
      EXPECT_TRUE(matches_host(c, host_evaluate<T>(transpose(product) * T(2)), product_tolerance<T>(s.k)));
      if (s.m > 0 && s.n > 0) {
        EXPECT_EQ(launched.second, 1u) << "the GEMM into the temporary";
        EXPECT_EQ(launched.first, 2u) << "then the elementwise kernel";
      }
      if (s.m >= 2 && s.n >= 2) {
        matrix<T> d;
        d = block(product, 1, 1, s.m - 1, s.n - 1) + T(1);
        EXPECT_TRUE(
            matches_host(d, host_evaluate<T>(block(product, 1, 1, s.m - 1, s.n - 1) + T(1)), product_tolerance<T>(s.k)));
      }
    });
}

// The fall-back runs a GEMM, then the elementwise kernel: the assignment's event covers both
// (issue 15, item 3; it was the elementwise kernel's alone).
TEST(KernelGeneratorMatmulFallBack, TheEventCoversTheGemmAndTheElementwiseKernel) {
  const matrix<float> a = random_matrix<float>(17, 7), b = random_matrix<float>(7, 13);
  matrix<float> c;
  std::optional<cl::Event> event;
  const auto launched = launches_of([&] { event = evaluate(c, transpose(matmul(a, b)) * 2.0f); });
  ASSERT_EQ(launched.second, 1u) << "the GEMM into the temporary";
  ASSERT_EQ(launched.first, 2u) << "then the elementwise kernel";
  const cl::Event first = runtime::first_command(*event);
  ASSERT_NE(first(), (*event)()) << "the event is the last kernel's, not the assignment's";
  EXPECT_EQ(first.getInfo<CL_EVENT_COMMAND_TYPE>(), CL_COMMAND_MARKER) << "enqueued before the GEMM";
  EXPECT_GT(runtime::elapsed_seconds(*event), 0.0);
  EXPECT_TRUE(matches_host(c, host_evaluate<float>(transpose(matmul(a, b)) * 2.0f), product_tolerance<float>(7)));
}

TYPED_TEST(KernelGeneratorMatmulMore, TwoProductsInOneExpression) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  const matrix<T> a = random_matrix<T>(17, 7), b = random_matrix<T>(7, 13);
  const matrix<T> x = random_matrix<T>(17, 3), y = random_matrix<T>(3, 13);
  matrix<T> c;
  c = matmul(a, b) - relu(matmul(x, y));
  EXPECT_TRUE(matches_host(c, host_evaluate<T>(matmul(a, b) - relu(matmul(x, y))), product_tolerance<T>(7)));
}

TYPED_TEST(KernelGeneratorMatmulMore, ATargetThatIsAnOperandIsNotOverwrittenWhileRead) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  matrix<T> a = random_matrix<T>(9, 9);
  const matrix<T> b = random_matrix<T>(9, 9);
  const auto expected = host_evaluate<T>(relu(matmul(a, b)) + a);
  a = relu(matmul(a, b)) + a;
  EXPECT_TRUE(matches_host(a, expected, product_tolerance<T>(9)));
}

TEST(KernelGeneratorMatmulShapes, InnerDimensionsMustAgree) {
  const matrix<float> a = random_matrix<float>(3, 4), b = random_matrix<float>(5, 2);
  EXPECT_THROW(matmul(a, b), argument_error);
}

}  // namespace
