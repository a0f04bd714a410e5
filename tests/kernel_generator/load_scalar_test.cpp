// Leaves: matrix loads (honouring triangular views), host numbers, constants, row and
// column indices.
#include <gmock/gmock.h>

#include "kernel_generator/kernel_generator_support.hpp"

namespace {

using namespace tessera;
using namespace tessera::testing;
using namespace tessera::kernel_generator;
using ::testing::HasSubstr;

template <typename T>
class KernelGeneratorLoad : public ::testing::Test {};
TYPED_TEST_SUITE(KernelGeneratorLoad, value_types);

TYPED_TEST(KernelGeneratorLoad, AssignmentCopiesAMatrixAtEveryShape) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  for (const auto s : test_shapes()) {
    SCOPED_TRACE(to_string(s));
    const matrix<T> a = random_matrix<T>(s.rows, s.cols);
    matrix<T> d(3, 2);
    evaluate(d, a);  // `d = a` would be a copy, which matrix makes explicit
    EXPECT_TRUE(matches_host(d, host_evaluate<T>(a), 0));
  }
}

TYPED_TEST(KernelGeneratorLoad, ElementsOutsideTheViewReadAsZero) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  for (const matrix_view view : {matrix_view::lower, matrix_view::upper, matrix_view::diagonal}) {
    SCOPED_TRACE(std::string(runtime::to_string(view)));
    // The stored elements outside the view are non-zero: only the view may hide them.
    const matrix<T> a = random_matrix<T>(7, 5, T(1), T(2), view);
    matrix<T> d = a + T(0);
    const std::vector<T> raw = d.to_host_raw();
    for (index_t j = 0; j < 5; ++j)
      for (index_t i = 0; i < 7; ++i) {
        const bool inside = runtime::view_contains(view, i, j);
        EXPECT_EQ(raw[i + 7 * j] == T(0), !inside) << "(" << i << ", " << j << ")";
      }
  }
}

TYPED_TEST(KernelGeneratorLoad, TheResultKeepsAViewOnlyWhereZerosAreKept) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  const matrix<T> lower = random_matrix<T>(6, 6, T(-1), T(1), matrix_view::lower);
  const matrix<T> upper = random_matrix<T>(6, 6, T(-1), T(1), matrix_view::upper);
  matrix<T> d;
  d = lower + upper;
  EXPECT_EQ(d.view(), matrix_view::entire);
  d = elt_multiply(lower, upper);
  EXPECT_EQ(d.view(), matrix_view::diagonal);
  EXPECT_TRUE(matches_host(d, host_evaluate<T>(elt_multiply(lower, upper)), elementwise_tolerance<T>()));
  d = 2 * lower;
  EXPECT_EQ(d.view(), matrix_view::lower);
  d = transpose(lower);
  EXPECT_EQ(d.view(), matrix_view::upper);
  d = exp(lower);  // exp(0) = 1 above the diagonal
  EXPECT_EQ(d.view(), matrix_view::entire);
  EXPECT_TRUE(matches_host(d, host_evaluate<T>(exp(lower)), elementwise_tolerance<T>()));
  EXPECT_EQ(d.to_host()[0 + 6 * 5], T(1));
}

TYPED_TEST(KernelGeneratorLoad, HostNumbersAreParametersOfOneKernel) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  const matrix<T> a = random_matrix<T>(9, 4);
  matrix<T> d;
  const auto before = cache_counters().generated;
  for (const T c : {T(0.5), T(-3), T(1e3)}) {
    d = c * a;
    EXPECT_TRUE(matches_host(d, host_evaluate<T>(c * a), elementwise_tolerance<T>()));
  }
  EXPECT_LE(cache_counters().generated - before, 1u) << "a new value must not make a new kernel";
}

TYPED_TEST(KernelGeneratorLoad, ConstantFillsItsShape) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  for (const auto s : test_shapes()) {
    SCOPED_TRACE(to_string(s));
    matrix<T> d = constant(T(2.5), s.rows, s.cols);
    EXPECT_TRUE(matches_host(d, host_evaluate<T>(constant(T(2.5), s.rows, s.cols)), 0));
    EXPECT_EQ(d.rows(), s.rows);
    EXPECT_EQ(d.cols(), s.cols);
  }
}

TYPED_TEST(KernelGeneratorLoad, IndicesAreTheElementsPosition) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  for (const auto s : test_shapes()) {
    SCOPED_TRACE(to_string(s));
    const matrix<T> a = random_matrix<T>(s.rows, s.cols);
    matrix<T> d;
    d = a + row_index() * 1000 + col_index();
    EXPECT_TRUE(matches_host(d, host_evaluate<T>(a + row_index() * 1000 + col_index()), elementwise_tolerance<T>()));
    matrix<T> r = row_index(s.rows, s.cols) - col_index(s.rows, s.cols);
    EXPECT_TRUE(matches_host(r, host_evaluate<T>(row_index(s.rows, s.cols) - col_index(s.rows, s.cols)), 0));
  }
}

TEST(KernelGeneratorLoad, ShapelessExpressionsNeedATargetShape) {
  matrix<float> d(3, 4);
  d = row_index() + 1;  // takes d's shape
  EXPECT_TRUE(matches_host(d, host_evaluate<float>(row_index() + 1, 3, 4), 0));
  try {
    matrix<float> e = row_index() + 1;
    FAIL() << "a new matrix from a shapeless expression must be an error";
  } catch (const argument_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("anyxany"));
  }
}

TEST(KernelGeneratorLoad, NegativeConstantShapesAreErrors) {
  EXPECT_THROW(constant(1.0f, -1, 3), argument_error);
  EXPECT_THROW(row_index(-2, 3), argument_error);
}

}  // namespace
