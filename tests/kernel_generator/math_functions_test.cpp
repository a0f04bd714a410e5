// The math function table: every function against its host form, float and double, on a
// domain where it is defined, at every test shape.
#include <gmock/gmock.h>

#include "kernel_generator/kernel_generator_support.hpp"

namespace {

using namespace tessera;
using namespace tessera::testing;
using namespace tessera::kernel_generator;

template <typename T>
class KernelGeneratorMath : public ::testing::Test {};
TYPED_TEST_SUITE(KernelGeneratorMath, value_types);

/// OpenCL allows builtins a few ulps (erf and pow 16, lgamma unspecified): 64 ulps of
/// max(1, |result|) covers every builtin on the devices we run on and still fails on a wrong
/// function (a wrong function is wrong by far more).
template <typename T>
double math_tolerance() {
  return 64 * static_cast<double>(std::numeric_limits<T>::epsilon());
}

template <typename T, typename F>
void check_unary(F f, T low, T high) {
  for (const auto s : test_shapes()) {
    SCOPED_TRACE(to_string(s));
    const matrix<T> a = random_matrix<T>(s.rows, s.cols, low, high);
    matrix<T> d;
    d = f(a);
    EXPECT_TRUE(matches_host(d, host_evaluate<T>(f(a)), math_tolerance<T>()));
  }
}

template <typename T, typename F>
void check_binary(F f, T low_a, T high_a, T low_b, T high_b) {
  for (const auto s : test_shapes()) {
    SCOPED_TRACE(to_string(s));
    const matrix<T> a = random_matrix<T>(s.rows, s.cols, low_a, high_a);
    const matrix<T> b = random_matrix<T>(s.rows, s.cols, low_b, high_b);
    matrix<T> d;
    d = f(a, b);
    EXPECT_TRUE(matches_host(d, host_evaluate<T>(f(a, b)), math_tolerance<T>()));
  }
}

#define TESSERA_MATH_TEST(name_, low_, high_)                                        \
  TYPED_TEST(KernelGeneratorMath, name_) {                                           \
    using T = TypeParam;                                                             \
    TESSERA_SKIP_WITHOUT_PRECISION(T);                                               \
    check_unary<T>([](const auto& a) { return name_(a); }, T(low_), T(high_));       \
  }
TESSERA_MATH_TEST(exp, -5, 5)
TESSERA_MATH_TEST(log, 0.01, 10)
TESSERA_MATH_TEST(log1p, -0.5, 5)
TESSERA_MATH_TEST(expm1, -3, 3)
TESSERA_MATH_TEST(sqrt, 0, 10)
TESSERA_MATH_TEST(cbrt, -10, 10)
TESSERA_MATH_TEST(abs, -10, 10)
TESSERA_MATH_TEST(sin, -3, 3)
TESSERA_MATH_TEST(cos, -3, 3)
TESSERA_MATH_TEST(tan, -1.5, 1.5)
TESSERA_MATH_TEST(tanh, -5, 5)
TESSERA_MATH_TEST(sigmoid, -20, 20)
TESSERA_MATH_TEST(relu, -2, 2)
TESSERA_MATH_TEST(inv_logit, -20, 20)
TESSERA_MATH_TEST(floor, -10, 10)
TESSERA_MATH_TEST(ceil, -10, 10)
TESSERA_MATH_TEST(round, -10, 10)
TESSERA_MATH_TEST(erf, -3, 3)
TESSERA_MATH_TEST(lgamma, 0.1, 10)
#undef TESSERA_MATH_TEST

TYPED_TEST(KernelGeneratorMath, pow) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  check_binary<T>([](const auto& a, const auto& b) { return pow(a, b); }, T(0.1), T(3), T(-3), T(3));
  check_unary<T>([](const auto& a) { return pow(a, 2); }, T(-3), T(3));
}

TYPED_TEST(KernelGeneratorMath, fmin_and_fmax) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  check_binary<T>([](const auto& a, const auto& b) { return fmin(a, b); }, T(-1), T(1), T(-1), T(1));
  check_binary<T>([](const auto& a, const auto& b) { return fmax(a, b); }, T(-1), T(1), T(-1), T(1));
  check_unary<T>([](const auto& a) { return fmax(a, 0); }, T(-1), T(1));  // relu
}

TYPED_TEST(KernelGeneratorMath, ComposedFunctionsMatchTheHost) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  check_binary<T>([](const auto& a, const auto& b) { return sqrt(abs(a)) * 2 + tanh(elt_multiply(a, b)) - exp(-b); },
                  T(-2), T(2), T(-2), T(2));
}

TEST(KernelGeneratorMath, IntegerArgumentsComputeInFloat) {
  matrix<float> d(4, 3);
  d = exp(row_index() - col_index());
  EXPECT_TRUE(matches_host(d, host_evaluate<float>(exp(row_index() - col_index()), 4, 3), math_tolerance<float>()));
}

TEST(KernelGeneratorMath, FunctionsKeepingZeroKeepTheView) {
  const matrix<float> lower = random_matrix<float>(5, 5, 0.5f, 1.0f, matrix_view::lower);
  matrix<float> d;
  d = sqrt(lower);
  EXPECT_EQ(d.view(), matrix_view::lower);
  d = cos(lower);
  EXPECT_EQ(d.view(), matrix_view::entire);
  EXPECT_TRUE(matches_host(d, host_evaluate<float>(cos(lower)), math_tolerance<float>()));
}

}  // namespace
