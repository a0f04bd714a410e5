// Operations that move elements: select, transpose, block (as source and as target),
// diagonal, broadcasts.
#include <gmock/gmock.h>

#include "kernel_generator/kernel_generator_support.hpp"

namespace {

using namespace tessera;
using namespace tessera::testing;
using namespace tessera::kernel_generator;
using ::testing::AllOf;
using ::testing::HasSubstr;

template <typename T>
class KernelGeneratorStructure : public ::testing::Test {};
TYPED_TEST_SUITE(KernelGeneratorStructure, value_types);

TYPED_TEST(KernelGeneratorStructure, SelectPicksPerElement) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  for (const auto s : test_shapes()) {
    SCOPED_TRACE(to_string(s));
    const matrix<T> a = random_matrix<T>(s.rows, s.cols), b = random_matrix<T>(s.rows, s.cols);
    matrix<T> d;
    d = select(a > b, a, b - 1);
    EXPECT_TRUE(matches_host(d, host_evaluate<T>(select(a > b, a, b - 1)), elementwise_tolerance<T>()));
    d = select(a > 0, a, 0);  // relu with a host number
    EXPECT_TRUE(matches_host(d, host_evaluate<T>(select(a > 0, a, 0)), 0));
  }
}

TYPED_TEST(KernelGeneratorStructure, TransposeSwapsIndices) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  for (const auto s : test_shapes()) {
    SCOPED_TRACE(to_string(s));
    const matrix<T> a = random_matrix<T>(s.rows, s.cols), b = random_matrix<T>(s.cols, s.rows);
    matrix<T> d;
    d = transpose(a) + b;
    EXPECT_EQ(d.rows(), s.cols);
    EXPECT_TRUE(matches_host(d, host_evaluate<T>(transpose(a) + b), elementwise_tolerance<T>()));
    d = transpose(transpose(a) * 2);
    EXPECT_TRUE(matches_host(d, host_evaluate<T>(2 * a), elementwise_tolerance<T>()));
  }
}

TYPED_TEST(KernelGeneratorStructure, BlockReadsAPart) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  const matrix<T> a = random_matrix<T>(13, 11);
  for (const auto [r, c, h, w] : std::vector<std::array<index_t, 4>>{
           {0, 0, 13, 11}, {2, 3, 5, 7}, {12, 10, 1, 1}, {0, 4, 13, 1}, {5, 0, 1, 11}, {3, 3, 0, 4}}) {
    SCOPED_TRACE(::testing::Message() << "block at (" << r << ", " << c << ") of " << h << "x" << w);
    matrix<T> d;
    d = block(a, r, c, h, w);
    EXPECT_TRUE(matches_host(d, host_evaluate<T>(block(a, r, c, h, w)), 0));
    d = block(exp(a), r, c, h, w) + transpose(block(transpose(a), c, r, w, h));
    EXPECT_TRUE(matches_host(d, host_evaluate<T>(block(exp(a), r, c, h, w) + transpose(block(transpose(a), c, r, w, h))),
                             elementwise_tolerance<T>()));
  }
}

TYPED_TEST(KernelGeneratorStructure, BlockTargetWritesOnlyTheBlock) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  matrix<T> d = random_matrix<T>(11, 7);
  const auto before = host_evaluate<T>(d);
  const matrix<T> a = random_matrix<T>(3, 5);
  block(d, 4, 1, 3, 5) = exp(a) + 1;
  const auto block_values = host_evaluate<T>(exp(a) + 1);
  const auto after = host_evaluate<T>(d);
  ASSERT_EQ(d.rows(), 11);
  ASSERT_EQ(d.cols(), 7);
  for (index_t j = 0; j < 7; ++j)
    for (index_t i = 0; i < 11; ++i) {
      const bool inside = i >= 4 && i < 7 && j >= 1 && j < 6;
      const T expected = inside ? block_values(i - 4, j - 1) : before(i, j);
      EXPECT_NEAR(after(i, j), expected, inside ? elementwise_tolerance<T>() * std::abs(expected) : 0)
          << "(" << i << ", " << j << ")";
    }
}

TYPED_TEST(KernelGeneratorStructure, BlockTargetsTakeCompoundAssignmentAndNumbers) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  matrix<T> d = random_matrix<T>(6, 6);
  const auto before = host_evaluate<T>(d);
  block(d, 1, 2, 4, 3) += 10;
  block(d, 0, 0, 2, 2) = T(0);
  block(block(d, 3, 3, 3, 3), 1, 1, 2, 2) *= 2;  // a block of a block: rows and columns 4..5
  const auto after = host_evaluate<T>(d);
  for (index_t j = 0; j < 6; ++j)
    for (index_t i = 0; i < 6; ++i) {
      T expected = before(i, j);
      if (i >= 1 && i < 5 && j >= 2 && j < 5) expected += 10;
      if (i < 2 && j < 2) expected = 0;
      if (i >= 4 && j >= 4) expected *= 2;
      EXPECT_NEAR(after(i, j), expected, elementwise_tolerance<T>() * std::max<T>(1, std::abs(expected)));
    }
}

TEST(KernelGeneratorStructure, BlockTargetOfATriangularMatrixMakesItEntire) {
  // Above the diagonal the stored elements are garbage (5): they must become the zeros the
  // view stood for, and the block's values must be visible.
  matrix<float> d(std::vector<float>(16, 5.0f), 4, 4, matrix_view::lower);
  block(d, 0, 2, 1, 2) = constant(7.0f, 1, 2);
  EXPECT_EQ(d.view(), matrix_view::entire);
  EXPECT_EQ(d.to_host(), (std::vector<float>{5, 5, 5, 5, 0, 5, 5, 5, 7, 0, 5, 5, 7, 0, 0, 5}));
  // A block inside the view leaves it alone.
  matrix<float> e(std::vector<float>(16, 5.0f), 4, 4, matrix_view::lower);
  block(e, 2, 0, 2, 2) = constant(1.0f, 2, 2);
  EXPECT_EQ(e.view(), matrix_view::lower);
}

TEST(KernelGeneratorStructure, BlocksOutOfBoundsAreErrors) {
  matrix<float> a = random_matrix<float>(4, 5);
  try {
    (void)block(a, 2, 1, 3, 2);
    FAIL() << "expected argument_error";
  } catch (const argument_error& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("block"), HasSubstr("2..4"), HasSubstr("4x5")));
  }
  EXPECT_THROW((void)block(a, 0, 4, 1, 2), argument_error);
  EXPECT_THROW((void)block(a, -1, 0, 1, 1), argument_error);
  const auto before = a.to_host();
  try {
    block(a, 0, 0, 2, 2) = random_matrix<float>(3, 3);
    FAIL() << "expected argument_error";
  } catch (const argument_error& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("2x2"), HasSubstr("3x3")));
  }
  EXPECT_EQ(a.to_host(), before);
}

TYPED_TEST(KernelGeneratorStructure, DiagonalIsAColumn) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  for (const auto s : test_shapes()) {
    SCOPED_TRACE(to_string(s));
    const matrix<T> a = random_matrix<T>(s.rows, s.cols);
    matrix<T> d;
    d = diagonal(a) * 3;
    EXPECT_EQ(d.rows(), std::min(s.rows, s.cols));
    EXPECT_EQ(d.cols(), 1);
    EXPECT_TRUE(matches_host(d, host_evaluate<T>(diagonal(a) * 3), elementwise_tolerance<T>()));
  }
}

TYPED_TEST(KernelGeneratorStructure, BroadcastsRepeatVectors) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  for (const auto s : test_shapes()) {
    SCOPED_TRACE(to_string(s));
    const matrix<T> a = random_matrix<T>(s.rows, s.cols);
    const matrix<T> row = random_matrix<T>(1, s.cols), column = random_matrix<T>(s.rows, 1);
    const matrix<T> one = random_matrix<T>(1, 1);
    matrix<T> d;
    d = a + rowwise_broadcast(row);
    EXPECT_TRUE(matches_host(d, host_evaluate<T>(a + rowwise_broadcast(row)), elementwise_tolerance<T>()));
    d = elt_multiply(a, colwise_broadcast(column)) - broadcast(one);
    EXPECT_TRUE(matches_host(d, host_evaluate<T>(elt_multiply(a, colwise_broadcast(column)) - broadcast(one)),
                             elementwise_tolerance<T>()));
    d = rowwise_broadcast(row) + colwise_broadcast(column);  // an outer sum: both broadcasts meet
    EXPECT_EQ(d.rows(), s.rows);
    EXPECT_EQ(d.cols(), s.cols);
    EXPECT_TRUE(matches_host(d, host_evaluate<T>(rowwise_broadcast(row) + colwise_broadcast(column)),
                             elementwise_tolerance<T>()));
  }
}

TEST(KernelGeneratorStructure, BroadcastsNeedVectors) {
  const matrix<float> a = random_matrix<float>(3, 4);
  try {
    (void)rowwise_broadcast(a);
    FAIL() << "expected argument_error";
  } catch (const argument_error& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("rowwise_broadcast"), HasSubstr("3x4")));
  }
  EXPECT_THROW((void)colwise_broadcast(a), argument_error);
  EXPECT_THROW((void)broadcast(block(a, 0, 0, 1, 2)), argument_error);
}

}  // namespace

namespace {

// Beyond 65535 work-groups along the columns, the columns spread over a third launch
// dimension: every element is still written once.
TEST(KernelGeneratorStructure, ColumnsBeyondOneDimensionsWorkGroupLimit) {
  const index_t cols = 65535 * 256 + 7;
  const matrix<float> a = tessera::testing::random_matrix<float>(1, cols);
  matrix<float> d;
  d = a * 2 + tessera::kernel_generator::col_index();
  EXPECT_TRUE(tessera::testing::matches_host(
      d, tessera::kernel_generator::host_evaluate<float>(a * 2 + tessera::kernel_generator::col_index()),
      tessera::testing::elementwise_tolerance<float>()));
}

}  // namespace
