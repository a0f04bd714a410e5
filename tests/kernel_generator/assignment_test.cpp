// Assignment: resizing, compound assignment, several results in one kernel, aliasing that
// would make the result depend on evaluation order, and the errors raised before anything
// is written.
#include <gmock/gmock.h>

#include "kernel_generator/kernel_generator_support.hpp"

namespace {

using namespace tessera;
using namespace tessera::testing;
using namespace tessera::kernel_generator;
using ::testing::AllOf;
using ::testing::HasSubstr;

template <typename T>
class KernelGeneratorAssignment : public ::testing::Test {};
TYPED_TEST_SUITE(KernelGeneratorAssignment, value_types);

TYPED_TEST(KernelGeneratorAssignment, AssignmentResizesTheTarget) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  matrix<T> d(2, 9);
  for (const auto s : test_shapes()) {
    SCOPED_TRACE(to_string(s));
    const matrix<T> a = random_matrix<T>(s.rows, s.cols);
    d = a * 2;
    EXPECT_TRUE(matches_host(d, host_evaluate<T>(a * 2), 0));
  }
}

TYPED_TEST(KernelGeneratorAssignment, ANewMatrixFromAnExpression) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  const matrix<T> a = random_matrix<T>(5, 3), b = random_matrix<T>(5, 3);
  const T c = T(1.5);
  matrix<T> d = c * (a + b);
  EXPECT_TRUE(matches_host(d, host_evaluate<T>(c * (a + b)), elementwise_tolerance<T>()));
}

TYPED_TEST(KernelGeneratorAssignment, CompoundAssignmentUpdatesInPlace) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  const double tol = elementwise_tolerance<T>();
  const matrix<T> b = random_matrix<T>(7, 13);
  matrix<T> d = random_matrix<T>(7, 13);
  auto expected = host_evaluate<T>(d);
  d += b;
  for (index_t k = 0; k < 7 * 13; ++k) expected.values[k] += host_evaluate<T>(b).values[k];
  EXPECT_TRUE(matches_host(d, expected, tol));
  d -= exp(b);
  d *= 3;
  d /= 2;
  const auto hb = host_evaluate<T>(exp(b));
  for (index_t k = 0; k < 7 * 13; ++k) expected.values[k] = (expected.values[k] - hb.values[k]) * 3 / 2;
  EXPECT_TRUE(matches_host(d, expected, tol));
}

TYPED_TEST(KernelGeneratorAssignment, SeveralResultsInOneKernel) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  const double tol = elementwise_tolerance<T>();
  for (const auto s : test_shapes()) {
    SCOPED_TRACE(to_string(s));
    const matrix<T> a = random_matrix<T>(s.rows, s.cols), b = random_matrix<T>(s.rows, s.cols);
    matrix<T> sum, difference, larger(3, 3);
    results(sum, difference, larger) = expressions(a + b, a - b, select(a > b, a, b));
    EXPECT_TRUE(matches_host(sum, host_evaluate<T>(a + b), tol));
    EXPECT_TRUE(matches_host(difference, host_evaluate<T>(a - b), tol));
    EXPECT_TRUE(matches_host(larger, host_evaluate<T>(select(a > b, a, b)), 0));
  }
}

TEST(KernelGeneratorAssignment, SeveralResultsShareOneKernelAndItsLoads) {
  const matrix<float> a = random_matrix<float>(4, 4), b = random_matrix<float>(4, 4);
  matrix<float> x, y;
  const std::string source = kernel_source(results(x, y), expressions(a + b, elt_multiply(a, b)));
  // One kernel, a and b each loaded once for both results.
  EXPECT_EQ(source.find("kernel void", source.find("kernel void") + 1), std::string::npos);
  std::size_t loads = 0;
  for (auto at = source.find(" = m"); at != std::string::npos; at = source.find(" = m", at + 1)) ++loads;
  EXPECT_EQ(loads, 2u) << source;
  const auto before = cache_counters().generated;
  results(x, y) = expressions(a + b, elt_multiply(a, b));
  EXPECT_EQ(cache_counters().generated - before, 1u);
}

TEST(KernelGeneratorAssignment, ResultsOfDifferentShapesAreAnError) {
  const matrix<float> a = random_matrix<float>(3, 4);
  matrix<float> x = random_matrix<float>(2, 2), y = random_matrix<float>(2, 2);
  const auto x_before = x.to_host(), y_before = y.to_host();
  try {
    results(x, y) = expressions(a + 1, rowwise_sum(a));
    FAIL() << "expected argument_error";
  } catch (const argument_error& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("3x4"), HasSubstr("3x1")));
  }
  EXPECT_EQ(x.rows(), 2);
  EXPECT_EQ(x.to_host(), x_before);
  EXPECT_EQ(y.to_host(), y_before);
}

TEST(KernelGeneratorAssignment, OneMatrixTwiceAsATargetIsAnError) {
  const matrix<float> a = random_matrix<float>(3, 4);
  matrix<float> x;
  EXPECT_THROW((results(x, x) = expressions(a + 1, a - 1)), argument_error);
  matrix<float> y = random_matrix<float>(4, 4);
  EXPECT_THROW((results(block(y, 0, 0, 2, 2), block(y, 2, 2, 2, 2)) =
                    expressions(block(a, 0, 0, 2, 2), block(a, 1, 1, 2, 2))),
               argument_error);
}

// ---- Aliasing: targets that are also read ----

TYPED_TEST(KernelGeneratorAssignment, TransposeIntoItselfGoesThroughATemporary) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  for (const auto s : {test_shape{7, 13}, test_shape{31, 31}, test_shape{1, 37}}) {
    SCOPED_TRACE(to_string(s));
    matrix<T> a = random_matrix<T>(s.rows, s.cols);
    const auto expected = host_evaluate<T>(transpose(a) + 1);
    a = transpose(a) + 1;
    EXPECT_TRUE(matches_host(a, expected, elementwise_tolerance<T>()));
  }
}

TYPED_TEST(KernelGeneratorAssignment, InPlaceUpdatesNeedNoTemporary) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  matrix<T> a = random_matrix<T>(31, 17);
  const matrix<T> b = random_matrix<T>(31, 17);
  const auto expected = host_evaluate<T>(exp(a) - elt_multiply(a, b));
  const cl_mem storage = a.buffer()();
  a = exp(a) - elt_multiply(a, b);
  EXPECT_EQ(a.buffer()(), storage) << "an elementwise update in place keeps the storage";
  EXPECT_TRUE(matches_host(a, expected, elementwise_tolerance<T>()));
}

TYPED_TEST(KernelGeneratorAssignment, ShiftedBlockOfItselfGoesThroughATemporary) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  matrix<T> a = random_matrix<T>(40, 40);
  const auto before = host_evaluate<T>(a);
  block(a, 0, 0, 39, 39) = block(a, 1, 1, 39, 39) * 2;  // overlapping: read (i+1, j+1), write (i, j)
  const auto after = host_evaluate<T>(a);
  for (index_t j = 0; j < 40; ++j)
    for (index_t i = 0; i < 40; ++i) {
      const T expected = i < 39 && j < 39 ? before(i + 1, j + 1) * 2 : before(i, j);
      ASSERT_EQ(after(i, j), expected) << "(" << i << ", " << j << ")";
    }
}

TYPED_TEST(KernelGeneratorAssignment, ReductionsAndBroadcastsOfTheTarget) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  const double tol = static_cast<double>(tolerance<T>(64));
  matrix<T> a = random_matrix<T>(23, 19);
  auto expected = host_evaluate<T>(a - colwise_broadcast(rowwise_sum(a)));
  a = a - colwise_broadcast(rowwise_sum(a));
  EXPECT_TRUE(matches_host(a, expected, tol));
  expected = host_evaluate<T>(colwise_max(a));
  a = colwise_max(a);
  EXPECT_TRUE(matches_host(a, expected, 0));
}

TYPED_TEST(KernelGeneratorAssignment, ResultsReadingEachOther) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  matrix<T> a = random_matrix<T>(9, 9), b = random_matrix<T>(9, 9);
  const auto expected_a = host_evaluate<T>(b + 1);
  const auto expected_b = host_evaluate<T>(transpose(a));
  results(a, b) = expressions(b + 1, transpose(a));
  EXPECT_TRUE(matches_host(a, expected_a, elementwise_tolerance<T>()));
  EXPECT_TRUE(matches_host(b, expected_b, 0));
}

// ---- Errors ----

TEST(KernelGeneratorAssignment, DoubleOnADeviceWithoutFp64IsAClearError) {
  // The same device, described as lacking fp64: what a device without cl_khr_fp64 reports.
  runtime::device_info no_fp64 = runtime::context::get().device();
  no_fp64.has_fp64 = false;
  static runtime::context* const ctx = new runtime::context(no_fp64, std::nullopt);
  matrix<float> a(random_values<float>(6), 2, 3, matrix_view::entire, *ctx);
  matrix<float> d(std::vector<float>(6, 1.0f), 2, 3, matrix_view::entire, *ctx);
  try {
    d = a + constant(2.0, 2, 3);  // a double constant makes the expression double
    FAIL() << "expected unsupported_error";
  } catch (const unsupported_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("double"));
  }
  EXPECT_EQ(d.to_host(), std::vector<float>(6, 1.0f));
  d = a + 2.0;  // a host double beside a float matrix is a float: fine
  EXPECT_TRUE(matches_host(d, host_evaluate<float>(a + 2.0f), 0));
}

TEST(KernelGeneratorAssignment, MatricesOfDifferentContextsAreAnError) {
  static runtime::context* const other = new runtime::context(runtime::context::get().device(), std::nullopt);
  const matrix<float> a = random_matrix<float>(2, 2);
  const matrix<float> b(random_values<float>(4), 2, 2, matrix_view::entire, *other);
  matrix<float> d;
  try {
    d = a + b;
    FAIL() << "expected argument_error";
  } catch (const argument_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("context"));
  }
}

}  // namespace
