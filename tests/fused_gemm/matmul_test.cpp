// matmul in expressions: fused into the GEMM's store step where it is the root's producer (one
// kernel), evaluated into a temporary elsewhere; always equal to the host evaluation.
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
class KernelGeneratorMatmul : public ::testing::Test {};
TYPED_TEST_SUITE(KernelGeneratorMatmul, value_types);

TYPED_TEST(KernelGeneratorMatmul, PlainProductEqualsTheHost) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  for (const auto s : gemm_shapes())
    for_each_transpose<T>(s, [&](const auto& product) {
      matrix<T> c;
      c = product;
      EXPECT_TRUE(matches_host(c, host_evaluate<T>(product), product_tolerance<T>(s.k)));
    });
}

TYPED_TEST(KernelGeneratorMatmul, ReluOfScaledProductPlusBiasAlongColumnsOrRows) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  const T alpha = T(1.5);
  for (const auto s : gemm_shapes())
    for_each_transpose<T>(s, [&](const auto& product) {
      const matrix<T> bias_col = random_matrix<T>(s.m, 1), bias_row = random_matrix<T>(1, s.n);
      matrix<T> c;
      c = relu(alpha * product + colwise_broadcast(bias_col));
      EXPECT_TRUE(matches_host(c, host_evaluate<T>(relu(alpha * product + colwise_broadcast(bias_col))),
                               product_tolerance<T>(s.k)));
      c = fmax(alpha * product + rowwise_broadcast(bias_row), T(0));
      EXPECT_TRUE(matches_host(c, host_evaluate<T>(fmax(alpha * product + rowwise_broadcast(bias_row), T(0))),
                               product_tolerance<T>(s.k)));
    });
}

TYPED_TEST(KernelGeneratorMatmul, BetaTimesTargetPlusProductReadsTheTargetInPlace) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  const T beta = T(-0.75);
  for (const auto s : gemm_shapes())
    for_each_transpose<T>(s, [&](const auto& product) {
      matrix<T> c = random_matrix<T>(s.m, s.n);
      const auto expected = host_evaluate<T>(beta * c + product);
      c = beta * c + product;
      EXPECT_TRUE(matches_host(c, expected, product_tolerance<T>(s.k)));
    });
}

TYPED_TEST(KernelGeneratorMatmul, SigmoidOfProductTimesAnExtraInput) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  for (const auto s : gemm_shapes())
    for_each_transpose<T>(s, [&](const auto& product) {
      const matrix<T> d = random_matrix<T>(s.m, s.n);
      matrix<T> c;
      c = elt_multiply(sigmoid(product), d);
      EXPECT_TRUE(matches_host(c, host_evaluate<T>(elt_multiply(sigmoid(product), d)), product_tolerance<T>(s.k)));
    });
}

TYPED_TEST(KernelGeneratorMatmul, ProductAndItsRowSumsAsTwoResults) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  for (const auto s : gemm_shapes())
    for_each_transpose<T>(s, [&](const auto& product) {
      matrix<T> c, rowsum;
      std::pair<std::size_t, std::size_t> launched;
      launched = launches_of([&] { results(c, rowsum) = expressions(product, rowwise_sum(product)); });
      EXPECT_TRUE(matches_host(c, host_evaluate<T>(product), product_tolerance<T>(s.k)));
      EXPECT_TRUE(matches_host(rowsum, host_evaluate<T>(rowwise_sum(product)),
                               product_tolerance<T>(s.k + s.n)));
      if (s.m > 0 && s.n > 0) {
        EXPECT_EQ(launched.second, 1u) << "the product is computed once";
      }
    });
}

TYPED_TEST(KernelGeneratorMatmul, ResultsOfTwoShapesReadEverythingBeforeWriting) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  const matrix<T> a = random_matrix<T>(9, 4), b = random_matrix<T>(4, 7);
  matrix<T> c = random_matrix<T>(9, 7), s;
  const auto expected_c = host_evaluate<T>(matmul(a, b));
  const auto expected_s = host_evaluate<T>(rowwise_sum(c));  // the old c
  results(c, s) = expressions(matmul(a, b), rowwise_sum(c));
  EXPECT_TRUE(matches_host(c, expected_c, product_tolerance<T>(4)));
  EXPECT_TRUE(matches_host(s, expected_s, product_tolerance<T>(7)));
}

TYPED_TEST(KernelGeneratorMatmul, TwoResultsOfOneShapeFuseIntoOneKernel) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  for_each_transpose<T>({19, 11, 5}, [&](const auto& product) {
    const matrix<T> bias = random_matrix<T>(19, 1);
    matrix<T> c, r;
    const auto launched = launches_of(
        [&] { results(c, r) = expressions(product + colwise_broadcast(bias), relu(product)); });
    EXPECT_TRUE(matches_host(c, host_evaluate<T>(product + colwise_broadcast(bias)), product_tolerance<T>(5)));
    EXPECT_TRUE(matches_host(r, host_evaluate<T>(relu(product)), product_tolerance<T>(5)));
    EXPECT_EQ(launched.first, 1u);
  });
}

TYPED_TEST(KernelGeneratorMatmul, TwoNodesOfOneProductAreOneGemm) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  const matrix<T> a = random_matrix<T>(13, 6), b = random_matrix<T>(6, 11);
  matrix<T> c, r;
  const auto launched =
      launches_of([&] { results(c, r) = expressions(matmul(a, b) + T(1), relu(matmul(a, b))); });
  EXPECT_TRUE(matches_host(c, host_evaluate<T>(matmul(a, b) + T(1)), product_tolerance<T>(6)));
  EXPECT_TRUE(matches_host(r, host_evaluate<T>(relu(matmul(a, b))), product_tolerance<T>(6)));
  EXPECT_EQ(launched.first, 1u);
}

TYPED_TEST(KernelGeneratorMatmul, ABlockTargetIsWrittenOnlyInTheBlock) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  const matrix<T> a = random_matrix<T>(7, 5), b = random_matrix<T>(5, 6);
  matrix<T> c = random_matrix<T>(12, 10);
  auto expected = host_evaluate<T>(c);
  const auto product = host_evaluate<T>(matmul(a, b));
  block(c, 3, 2, 7, 6) = matmul(a, b);
  for (index_t j = 0; j < 6; ++j)
    for (index_t i = 0; i < 7; ++i) expected.values[static_cast<std::size_t>(i + 3 + (j + 2) * 12)] = product(i, j);
  EXPECT_TRUE(matches_host(c, expected, product_tolerance<T>(5)));
}

}  // namespace
