// Rowwise and colwise sum, prod, max, min: finished results, usable inside larger
// expressions, accurate at 10^6 elements.
#include <gmock/gmock.h>

#include <numeric>

#include "kernel_generator/kernel_generator_support.hpp"

namespace {

using namespace tessera;
using namespace tessera::testing;
using namespace tessera::kernel_generator;
using ::testing::HasSubstr;

template <typename T>
class KernelGeneratorReductions : public ::testing::Test {};
TYPED_TEST_SUITE(KernelGeneratorReductions, value_types);

template <typename T, typename F>
void check_reduction(F f, index_t rows, index_t cols, T low, T high) {
  SCOPED_TRACE(::testing::Message() << rows << "x" << cols);
  const matrix<T> a = random_matrix<T>(rows, cols, low, high);
  matrix<T> d;
  d = f(a);
  const index_t terms = std::max<index_t>({rows, cols, 1});
  EXPECT_TRUE(matches_host(d, host_evaluate<T>(f(a)), static_cast<double>(tolerance<T>(terms))));
}

template <typename T, typename F>
void check_at_every_shape(F f, T low = T(-1), T high = T(1)) {
  for (const auto s : test_shapes()) check_reduction<T>(f, s.rows, s.cols, low, high);
}

TYPED_TEST(KernelGeneratorReductions, RowwiseMatchTheHost) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  check_at_every_shape<T>([](const auto& a) { return rowwise_sum(a); });
  check_at_every_shape<T>([](const auto& a) { return rowwise_prod(a); }, T(0.5), T(1.5));
  check_at_every_shape<T>([](const auto& a) { return rowwise_max(a); });
  check_at_every_shape<T>([](const auto& a) { return rowwise_min(a); });
}

TYPED_TEST(KernelGeneratorReductions, ColwiseMatchTheHost) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  check_at_every_shape<T>([](const auto& a) { return colwise_sum(a); });
  check_at_every_shape<T>([](const auto& a) { return colwise_prod(a); }, T(0.5), T(1.5));
  check_at_every_shape<T>([](const auto& a) { return colwise_max(a); });
  check_at_every_shape<T>([](const auto& a) { return colwise_min(a); });
}

TEST(KernelGeneratorReductions, EmptyReductionsGiveTheIdentity) {
  const matrix<float> a(3, 0);
  matrix<float> d;
  d = rowwise_sum(a);
  EXPECT_EQ(d.to_host(), (std::vector<float>{0, 0, 0}));
  d = rowwise_prod(a);
  EXPECT_EQ(d.to_host(), (std::vector<float>{1, 1, 1}));
  d = rowwise_max(a);
  EXPECT_EQ(d.to_host(), (std::vector<float>(3, -INFINITY)));
  d = colwise_min(transpose(a));
  EXPECT_EQ(d.to_host(), (std::vector<float>(3, INFINITY)));
  d = colwise_sum(a);
  EXPECT_EQ(d.rows(), 1);
  EXPECT_EQ(d.cols(), 0);
}

TYPED_TEST(KernelGeneratorReductions, ReductionsComposeInsideExpressions) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  const double tol = static_cast<double>(tolerance<T>(64));
  for (const auto s : {test_shape{7, 13}, test_shape{1, 37}, test_shape{37, 1}}) {
    SCOPED_TRACE(to_string(s));
    const matrix<T> a = random_matrix<T>(s.rows, s.cols);
    const matrix<T> column = random_matrix<T>(s.rows, 1);
    matrix<T> d;
    // softmax along rows: exp(a - max) / sum(exp(a - max))
    const auto shifted = exp(a - colwise_broadcast(rowwise_max(a)));
    d = elt_divide(shifted, colwise_broadcast(rowwise_sum(shifted)));
    EXPECT_TRUE(matches_host(d, host_evaluate<T>(elt_divide(shifted, colwise_broadcast(rowwise_sum(shifted)))), tol));
    d = exp(rowwise_sum(a)) + column;
    EXPECT_TRUE(matches_host(d, host_evaluate<T>(exp(rowwise_sum(a)) + column), tol));
    d = colwise_prod(transpose(a) + 1) * 2 - colwise_min(transpose(a));
    EXPECT_TRUE(matches_host(d, host_evaluate<T>(colwise_prod(transpose(a) + 1) * 2 - colwise_min(transpose(a))), tol));
    d = rowwise_sum(colwise_broadcast(rowwise_max(a)) - a);  // a reduction of a reduction
    EXPECT_TRUE(matches_host(d, host_evaluate<T>(rowwise_sum(colwise_broadcast(rowwise_max(a)) - a)), tol));
  }
}

TEST(KernelGeneratorReductions, ReducingABroadcastIsAnError) {
  const matrix<float> v = random_matrix<float>(1, 4);
  try {
    (void)colwise_sum(rowwise_broadcast(v));
    FAIL() << "expected argument_error";
  } catch (const argument_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("colwise_sum"));
  }
}

/// 10^6 elements in one row and in one column. Values in [1, 2): the sum is ~1.5e6, where
/// float's spacing is 0.125; a plain running sum drifts by tens, a lost element moves the
/// sum by at least 1, and the compensated sum stays within 8 epsilon of the sum of |x|.
template <typename T>
void check_long_sums(index_t rows, index_t cols) {
  const std::vector<T> values = random_values<T>(static_cast<std::size_t>(rows * cols), T(1), T(2));
  const matrix<T> a(values, rows, cols);
  long double exact = 0, magnitude = 0;
  for (const T v : values) {
    exact += v;
    magnitude += std::abs(v);
  }
  matrix<T> d;
  if (rows == 1) d = rowwise_sum(a);
  else d = colwise_sum(a);
  const T got = d.to_host().at(0);
  EXPECT_NEAR(static_cast<double>(got), static_cast<double>(exact),
              static_cast<double>(tolerance<T>(1)) * static_cast<double>(magnitude));
  // max and min are exact
  if (rows == 1) d = rowwise_max(a);
  else d = colwise_max(a);
  EXPECT_EQ(d.to_host().at(0), *std::max_element(values.begin(), values.end()));
  if (rows == 1) d = rowwise_min(a);
  else d = colwise_min(a);
  EXPECT_EQ(d.to_host().at(0), *std::min_element(values.begin(), values.end()));
}

/// A product of 10^6 values in [0.99, 1.01] stays in range; rounding errors grow like
/// sqrt(n) epsilon, while dropping one element changes the product by up to 1%.
template <typename T>
void check_long_products(index_t rows, index_t cols) {
  const std::vector<T> values = random_values<T>(static_cast<std::size_t>(rows * cols), T(0.99), T(1.01));
  const matrix<T> a(values, rows, cols);
  long double exact = 1;
  for (const T v : values) exact *= v;
  matrix<T> d;
  if (rows == 1) d = rowwise_prod(a);
  else d = colwise_prod(a);
  const double n = static_cast<double>(values.size());
  EXPECT_NEAR(static_cast<double>(d.to_host().at(0)), static_cast<double>(exact),
              8 * std::sqrt(n) * static_cast<double>(std::numeric_limits<T>::epsilon()) * static_cast<double>(exact));
}

TYPED_TEST(KernelGeneratorReductions, MillionElementRowsAndColumnsStayAccurate) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  check_long_sums<T>(1, 1'000'000);
  check_long_sums<T>(1'000'000, 1);
  check_long_products<T>(1, 1'000'000);
  check_long_products<T>(1'000'000, 1);
}

// A reduction over one term (the columns of a 1 x n matrix, the rows of an n x 1 one) reads its
// term without a loop, so a work-item's elements load side by side; the same expression type
// over more terms runs a kernel with the loop (the analysis is part of the kernel's key).
TYPED_TEST(KernelGeneratorReductions, OneTermReductionsReadTheirTermWithoutALoop) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  const auto sum_by_columns = [](const auto& a) { return colwise_sum(a); };
  const auto max_by_rows = [](const auto& a) { return rowwise_max(a) + 1; };
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  for (const index_t n : {index_t{1}, index_t{37}, index_t{70001}}) {  // past 2^16: four elements per item
    SCOPED_TRACE(::testing::Message() << "n = " << n);
    std::vector<T> values = random_values<T>(static_cast<std::size_t>(n), T(-1), T(1));
    values[0] = nan;  // one term: the result is what the host's one step gives
    if (n > 2) values[2] = -inf;
    const matrix<T> row(values, 1, n), column(values, n, 1);
    matrix<T> d;
    EXPECT_THAT(kernel_source(d, sum_by_columns(row)), ::testing::Not(HasSubstr("for (")));
    EXPECT_THAT(kernel_source(d, max_by_rows(column)), ::testing::Not(HasSubstr("for (")));
    d = sum_by_columns(row);
    EXPECT_TRUE(matches_host(d, host_evaluate<T>(sum_by_columns(row)), static_cast<double>(tolerance<T>(1))));
    d = max_by_rows(column);
    EXPECT_TRUE(matches_host(d, host_evaluate<T>(max_by_rows(column)), static_cast<double>(tolerance<T>(1))));
    // Three terms, the same types: the kernels with the loop.
    const matrix<T> rows3 = random_matrix<T>(3, n, T(-1), T(1)), columns3 = random_matrix<T>(n, 3, T(-1), T(1));
    EXPECT_THAT(kernel_source(d, sum_by_columns(rows3)), HasSubstr("for ("));
    d = sum_by_columns(rows3);
    EXPECT_TRUE(matches_host(d, host_evaluate<T>(sum_by_columns(rows3)), static_cast<double>(tolerance<T>(3))));
    d = max_by_rows(columns3);
    EXPECT_TRUE(matches_host(d, host_evaluate<T>(max_by_rows(columns3)), static_cast<double>(tolerance<T>(3))));
    d = sum_by_columns(row);  // and back
    EXPECT_TRUE(matches_host(d, host_evaluate<T>(sum_by_columns(row)), static_cast<double>(tolerance<T>(1))));
  }
}

TYPED_TEST(KernelGeneratorReductions, ManyShortReductionsOfAMillionElements) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  check_reduction<T>([](const auto& a) { return rowwise_sum(a); }, 1000, 1000, T(-1), T(1));
  check_reduction<T>([](const auto& a) { return colwise_sum(a); }, 1000, 1000, T(-1), T(1));
  check_reduction<T>([](const auto& a) { return colwise_max(a); }, 997, 1009, T(-1), T(1));
}

}  // namespace
