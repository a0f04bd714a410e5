// Elementwise operators: + - elt_multiply elt_divide, scaling by host numbers, comparisons,
// && || !, unary minus.
#include <gmock/gmock.h>

#include "kernel_generator/kernel_generator_support.hpp"

namespace {

using namespace tessera;
using namespace tessera::testing;
using namespace tessera::kernel_generator;
using ::testing::AllOf;
using ::testing::HasSubstr;

template <typename T>
class KernelGeneratorOperators : public ::testing::Test {};
TYPED_TEST_SUITE(KernelGeneratorOperators, value_types);

/// Evaluates expression into a matrix and compares it with the host evaluation.
template <typename T, typename E>
void expect_matches(const E& expression, double tol) {
  matrix<T> d;
  evaluate(d, expression);
  EXPECT_TRUE(matches_host(d, host_evaluate<T>(expression), tol));
}

TYPED_TEST(KernelGeneratorOperators, ArithmeticMatchesTheHost) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  const double tol = elementwise_tolerance<T>();
  for (const auto s : test_shapes()) {
    SCOPED_TRACE(to_string(s));
    const matrix<T> a = random_matrix<T>(s.rows, s.cols), b = random_matrix<T>(s.rows, s.cols);
    expect_matches<T>(a + b, tol);
    expect_matches<T>(a - b, tol);
    expect_matches<T>(elt_multiply(a, b), tol);
    expect_matches<T>(elt_divide(a, b), tol);
    expect_matches<T>(-a, tol);
    expect_matches<T>(3 * a - b / 2, tol);
    expect_matches<T>(1 / a + a * 0.25, tol);
    expect_matches<T>(a + 1 - b, tol);
  }
}

TYPED_TEST(KernelGeneratorOperators, ComparisonsAndLogicMatchTheHost) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  for (const auto s : test_shapes()) {
    SCOPED_TRACE(to_string(s));
    const matrix<T> a = random_matrix<T>(s.rows, s.cols), b = random_matrix<T>(s.rows, s.cols);
    expect_matches<T>(a < b, 0);
    expect_matches<T>(a <= b, 0);
    expect_matches<T>(a > 0, 0);
    expect_matches<T>(a >= b, 0);
    expect_matches<T>(a == a, 0);
    expect_matches<T>(a != b, 0);
    expect_matches<T>((a > 0) && (b < 0), 0);
    expect_matches<T>((a > 0) || (b < 0), 0);
    expect_matches<T>(!(a > b), 0);
  }
}

TEST(KernelGeneratorOperators, ComparisonsGiveOnesAndZeros) {
  const matrix<float> a(std::vector<float>{1, 2, 3, 4}, 4, 1), b(std::vector<float>{4, 2, 1, 5}, 4, 1);
  matrix<float> d;
  d = a < b;
  EXPECT_EQ(d.to_host(), (std::vector<float>{1, 0, 0, 1}));
  d = (a >= b) || (a == 1);
  EXPECT_EQ(d.to_host(), (std::vector<float>{1, 1, 1, 0}));
}

TEST(KernelGeneratorOperators, HostNumbersTakeTheMatrixPrecision) {
  // 2.0 is a double, but beside a float matrix it is a float parameter: no fp64 needed.
  const matrix<float> a = random_matrix<float>(3, 3);
  EXPECT_THAT(kernel_source(2.0 * a), ::testing::Not(HasSubstr("double")));
  EXPECT_THAT(kernel_source(a + 1), HasSubstr("float s1"));
}

TEST(KernelGeneratorOperators, MixedPrecisionComputesInDouble) {
  if (device_lacks_precision<double>()) GTEST_SKIP() << "the device has no fp64";
  const matrix<float> a = random_matrix<float>(5, 3);
  const matrix<double> b = random_matrix<double>(5, 3);
  matrix<double> d = a + b;
  EXPECT_TRUE(matches_host(d, host_evaluate<double>(a + b), elementwise_tolerance<double>()));
}

TEST(KernelGeneratorOperators, MismatchedShapesNameBothShapes) {
  const matrix<float> a = random_matrix<float>(3, 4), b = random_matrix<float>(4, 3);
  try {
    (void)elt_multiply(a, b);
    FAIL() << "expected argument_error";
  } catch (const argument_error& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("elt_multiply"), HasSubstr("3x4"), HasSubstr("4x3")));
  }
  EXPECT_THROW((void)(a + b), argument_error);
  EXPECT_THROW((void)(a < b), argument_error);
  EXPECT_THROW((void)((a > 0) && (b > 0)), argument_error);
}

TEST(KernelGeneratorOperators, AFailedExpressionWritesNothing) {
  const matrix<float> a = random_matrix<float>(3, 4), b = random_matrix<float>(4, 3);
  matrix<float> d = random_matrix<float>(2, 2);
  const auto before = d.to_host();
  EXPECT_THROW(d = a + b, argument_error);
  EXPECT_EQ(d.rows(), 2);
  EXPECT_EQ(d.to_host(), before);
}

}  // namespace
