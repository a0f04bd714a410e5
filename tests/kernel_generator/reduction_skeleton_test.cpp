// The reduction skeleton (reduction_skeleton.hpp, reduction_plan.hpp): work-group cooperation,
// several parts per result with a finishing pass, the GPU's and the CPU's plans, shared passes
// for several results, nested reductions computed once, NaN and infinities, views and blocks,
// and the same bits on every run.
#include <gmock/gmock.h>

#include <bit>
#include <cmath>
#include <limits>

#include "kernel_generator/kernel_generator_support.hpp"

#include <tessera/kernel_generator/reduction_plan.hpp>
#include <tessera/runtime/kernel.hpp>

namespace {

using namespace tessera;
using namespace tessera::testing;
using namespace tessera::kernel_generator;

template <typename T>
class KernelGeneratorReductionSkeleton : public ::testing::Test {};
TYPED_TEST_SUITE(KernelGeneratorReductionSkeleton, value_types);

// The five shapes of issue 14 (8192x8192, 1024x65536, 65536x1024, 1x2^26, 2^26x1), scaled down
// to odd sizes, and the empty ones.
struct shape_case {
  index_t rows, cols;
};
// {131, 5003}: on a CPU, two blocks of 128 rows (the second clamped) with the columns in parts.
const std::vector<shape_case> scaled_shapes{{67, 67},  {13, 2053}, {2053, 13}, {1, 40009}, {40009, 1},
                                             {0, 17},   {17, 0},    {1, 1},     {131, 5003}};

template <typename T, typename F>
void expect_matches_host(F f, const matrix<T>& a, const char* what) {
  SCOPED_TRACE(::testing::Message() << what << " " << a.rows() << "x" << a.cols());
  matrix<T> d;
  d = f(a);
  const index_t terms = std::max<index_t>({a.rows(), a.cols(), 1});
  EXPECT_TRUE(matches_host(d, host_evaluate<T>(f(a)), static_cast<double>(tolerance<T>(terms))));
}

template <typename T>
void check_every_reduction_at_every_shape() {
  for (const shape_case s : scaled_shapes) {
    const matrix<T> a = random_matrix<T>(s.rows, s.cols);
    expect_matches_host<T>([](const auto& x) { return rowwise_sum(x); }, a, "rowwise_sum");
    expect_matches_host<T>([](const auto& x) { return colwise_sum(x); }, a, "colwise_sum");
    expect_matches_host<T>([](const auto& x) { return rowwise_max(x); }, a, "rowwise_max");
    expect_matches_host<T>([](const auto& x) { return colwise_min(x); }, a, "colwise_min");
    // A whole expression reduced in one pass, and an expression of the finished results.
    expect_matches_host<T>([](const auto& x) { return sqrt(rowwise_sum(elt_multiply(x, x))); }, a, "row norms");
    expect_matches_host<T>([](const auto& x) { return 2 * colwise_max(x - 1) + 1; }, a, "scaled column maxima");
  }
}

TYPED_TEST(KernelGeneratorReductionSkeleton, EveryShapeMatchesTheHostWithThisDevicesPlan) {
  TESSERA_SKIP_WITHOUT_PRECISION(TypeParam);
  check_every_reduction_at_every_shape<TypeParam>();
}

TYPED_TEST(KernelGeneratorReductionSkeleton, EveryShapeMatchesTheHostWithAGpusPlan) {
  TESSERA_SKIP_WITHOUT_PRECISION(TypeParam);
  const planned_as gpu(gpu_like(132));  // interleaved lanes, trees, many parts
  check_every_reduction_at_every_shape<TypeParam>();
}

TYPED_TEST(KernelGeneratorReductionSkeleton, EveryShapeMatchesTheHostWithACpusPlan) {
  TESSERA_SKIP_WITHOUT_PRECISION(TypeParam);
  const planned_as cpu(cpu_like(16));  // contiguous runs per work-item, parts over 16 cores
  check_every_reduction_at_every_shape<TypeParam>();
}

TYPED_TEST(KernelGeneratorReductionSkeleton, MaxAndMinSkipNaNAndKeepInfinities) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  const planned_as gpu(gpu_like(4));
  std::vector<T> values(static_cast<std::size_t>(5 * 301));
  for (std::size_t k = 0; k < values.size(); ++k) values[k] = static_cast<T>(std::sin(static_cast<double>(k)));
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  values[7] = nan;             // row 2, column 1
  values[5 * 100 + 3] = inf;   // row 3 holds +inf
  values[5 * 200 + 4] = -inf;  // row 4 holds -inf
  for (std::size_t col = 0; col < 301; ++col) values[5 * col] = nan;  // row 0: only NaN
  const matrix<T> a(values, 5, 301);
  matrix<T> d;
  d = rowwise_max(a);
  const std::vector<T> max = d.to_host();
  EXPECT_EQ(max[0], -inf);  // every element skipped: the identity
  EXPECT_EQ(max[3], inf);
  d = rowwise_min(a);
  const std::vector<T> min = d.to_host();
  EXPECT_EQ(min[0], inf);
  EXPECT_EQ(min[4], -inf);
  for (std::size_t r = 1; r < 5; ++r) {
    EXPECT_FALSE(std::isnan(max[r])) << r;
    EXPECT_FALSE(std::isnan(min[r])) << r;
  }
  expect_matches_host<T>([](const auto& x) { return rowwise_max(x); }, a, "rowwise_max with NaN");
  expect_matches_host<T>([](const auto& x) { return colwise_min(x); }, a, "colwise_min with NaN");
  // A sum meeting NaN is NaN, whatever part and lane met it.
  d = rowwise_sum(a);
  EXPECT_TRUE(std::isnan(d.to_host()[2]));
}

// A CPU reads a row of a 1 x N matrix as consecutive elements (a branch where every matrix is
// one row: the reduction pass, and the elementwise skeleton's row vectors for one-term columns);
// a one-row block of a taller matrix takes the other branch.
TYPED_TEST(KernelGeneratorReductionSkeleton, OneRowMatricesAndOneRowBlocksOnACpu) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  const planned_as cpu(cpu_like(2));
  const matrix<T> row = random_matrix<T>(1, 70001), tall = random_matrix<T>(5, 70001);
  expect_matches_host<T>([](const auto& x) { return rowwise_sum(x); }, row, "one row, rowwise_sum");
  expect_matches_host<T>([](const auto& x) { return rowwise_max(x); }, row, "one row, rowwise_max");
  expect_matches_host<T>([](const auto& x) { return colwise_sum(x); }, row, "one row, colwise_sum");
  // (Short: the host evaluates the nested reduction once per element.)
  expect_matches_host<T>([](const auto& x) { return exp(x) - colwise_broadcast(rowwise_max(x)); },
                         random_matrix<T>(1, 1999), "one row, a reduction nested");
  expect_matches_host<T>([](const auto& x) { return rowwise_sum(block(x, 3, 5, 1, 69990)); }, tall,
                         "a one-row block, rowwise_sum");
  expect_matches_host<T>([](const auto& x) { return colwise_max(block(x, 2, 1, 1, 69999)); }, tall,
                         "a one-row block, colwise_max");
}

TYPED_TEST(KernelGeneratorReductionSkeleton, ViewsAndBlocksAsArgumentsAndTargets) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  const planned_as gpu(gpu_like(8));
  const matrix<T> lower = random_matrix<T>(37, 37, T(-1), T(1), matrix_view::lower);  // zeros above the diagonal
  expect_matches_host<T>([](const auto& x) { return rowwise_sum(x); }, lower, "lower view rowwise");
  expect_matches_host<T>([](const auto& x) { return colwise_max(x); }, lower, "lower view colwise");
  const matrix<T> a = random_matrix<T>(41, 2003);
  expect_matches_host<T>([](const auto& x) { return rowwise_sum(block(x, 3, 5, 31, 1990)); }, a, "block rowwise");
  expect_matches_host<T>([](const auto& x) { return colwise_sum(block(x, 1, 2, 39, 1000)); }, a, "block colwise");
  // Into a block of a larger matrix: the rest stays.
  matrix<T> target = random_matrix<T>(50, 3);
  const std::vector<T> before = target.to_host();
  block(target, 4, 1, 41, 1) = rowwise_sum(a);
  const std::vector<T> after = target.to_host();
  const auto sums = host_evaluate<T>(rowwise_sum(a));
  for (index_t r = 0; r < 50; ++r)
    for (index_t c = 0; c < 3; ++c) {
      const auto k = static_cast<std::size_t>(r + 50 * c);
      if (c == 1 && r >= 4 && r < 45)
        EXPECT_NEAR(static_cast<double>(after[k]), static_cast<double>(sums(r - 4, 0)),
                    static_cast<double>(tolerance<T>(2003)) * 2003);
      else
        EXPECT_EQ(after[k], before[k]) << r << "," << c;
    }
}

TEST(KernelGeneratorReductionSkeleton, TheSameBitsOnEveryRun) {
  const planned_as gpu(gpu_like(132));
  const matrix<float> a = random_matrix<float>(3, 100003, -1.0f, 1.0f);
  const matrix<float> b = random_matrix<float>(20011, 5, -1.0f, 1.0f);
  matrix<float> rows_first, cols_first, rows, cols;
  rows_first = rowwise_sum(a);
  cols_first = colwise_sum(b);
  for (int run = 0; run < 20; ++run) {
    rows = rowwise_sum(a);
    cols = colwise_sum(b);
    ASSERT_EQ(rows.to_host(), rows_first.to_host()) << run;
    ASSERT_EQ(cols.to_host(), cols_first.to_host()) << run;
  }
}

TEST(KernelGeneratorReductionSkeleton, ResultsOfOneShapeShareOnePass) {
  const planned_as gpu(gpu_like(1));  // one part: the pass finishes the results
  const matrix<float> a = random_matrix<float>(300, 129, -1.0f, 1.0f);
  matrix<float> sums, maxima;
  const std::size_t before = runtime::kernels_enqueued();
  results(sums, maxima) = expressions(rowwise_sum(a), rowwise_max(a));
  EXPECT_EQ(runtime::kernels_enqueued() - before, 1u);
  EXPECT_TRUE(matches_host(sums, host_evaluate<float>(rowwise_sum(a)), static_cast<double>(tolerance<float>(129))));
  EXPECT_TRUE(matches_host(maxima, host_evaluate<float>(rowwise_max(a)), 0.0));
}

// ---- Fused levels: every reduction of an elementwise result along its rows (or columns) -------

// Shapes of the five, scaled to odd sizes; with one compute unit every one fuses. Both
// kernels are taken in both directions: the one holding its elements (work-groups of 256, at
// most 32 elements of a row or 16 of a column per work-item: 67 x 67, 1 x 4099, 2053 x 13 by
// rows; 67 x 67, 13 x 1999, 2053 x 13 by columns) and the one reading its rows again per level
// (13 x 1999 and 5 x 2311 by rows, 4099 x 1 and 16411 x 3 by columns), within
// max_fused_group_bytes, doubles too.
const std::vector<shape_case> level_shapes{{67, 67}, {13, 1999}, {2053, 13}, {1, 4099},
                                           {4099, 1}, {33, 5},     {5, 2311},  {16411, 3}};

// The expressions hold their nodes by reference: each is built where it is evaluated.
template <typename T, typename E, typename H>
void expect_fused_matches_host(const E& expression, const host_matrix<H>& expected, const char* what, double tol) {
  SCOPED_TRACE(what);
  matrix<T> d;
  const std::size_t before = runtime::kernels_enqueued();
  d = expression;
  EXPECT_EQ(runtime::kernels_enqueued() - before, 1u) << "one kernel: the levels and the result";
  EXPECT_TRUE(matches_host(d, expected, tol));
}

/// The host references, in double, level by level (host_evaluate would compute every nested
/// reduction again for each element: cubic).
enum class along { rows, cols };
template <typename T, typename F>
host_matrix<double> per_line(const matrix<T>& a, along direction, F f) {
  const std::vector<T> v = a.to_host();
  host_matrix<double> out{a.rows(), a.cols(), std::vector<double>(v.begin(), v.end())};
  const index_t lines = direction == along::rows ? a.rows() : a.cols();
  const index_t length = direction == along::rows ? a.cols() : a.rows();
  for (index_t l = 0; l < lines; ++l) {
    std::vector<double*> line;
    for (index_t k = 0; k < length; ++k)
      line.push_back(&out.values[static_cast<std::size_t>(direction == along::rows ? l + k * a.rows()
                                                                                  : k + l * a.rows())]);
    f(line);
  }
  return out;
}
void softmax_line(const std::vector<double*>& line) {
  double max = -INFINITY, sum = 0;
  for (const double* x : line) max = std::max(max, *x);
  for (const double* x : line) sum += std::exp(*x - max);
  for (double* x : line) *x = std::exp(*x - max) / sum;
}
void normalize_line(const std::vector<double*>& line) {
  const double n = static_cast<double>(line.size());
  double mean = 0, squares = 0;
  for (const double* x : line) mean += *x / n;
  for (const double* x : line) squares += (*x - mean) * (*x - mean);
  for (double* x : line) *x = (*x - mean) / std::sqrt(squares / n + 1);
}
void subtract_min_line(const std::vector<double*>& line) {
  double min = INFINITY;
  for (const double* x : line) min = std::min(min, *x);
  for (double* x : line) *x -= min;
}

TYPED_TEST(KernelGeneratorReductionSkeleton, FusedLevelsMatchTheHostAtEveryShape) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  const planned_as gpu(gpu_like(1));
  for (const shape_case s : level_shapes) {
    SCOPED_TRACE(::testing::Message() << s.rows << "x" << s.cols);
    const matrix<T> a = random_matrix<T>(s.rows, s.cols, T(-3), T(3));
    const double tol = static_cast<double>(tolerance<T>(std::max<index_t>({s.rows, s.cols, 1})));
    const auto along_rows = exp(a - colwise_broadcast(rowwise_max(a)));
    expect_fused_matches_host<T>(elt_divide(along_rows, colwise_broadcast(rowwise_sum(along_rows))),
                                 per_line(a, along::rows, softmax_line), "softmax along rows", tol);
    const auto along_cols = exp(a - rowwise_broadcast(colwise_max(a)));
    expect_fused_matches_host<T>(elt_divide(along_cols, rowwise_broadcast(colwise_sum(along_cols))),
                                 per_line(a, along::cols, softmax_line), "softmax along columns", tol);
    // Three levels: the mean, the variance (reading the mean), then the normalized rows.
    const T n = static_cast<T>(std::max<index_t>(s.cols, 1));
    const auto centered = a - colwise_broadcast(rowwise_sum(a) / n);
    expect_fused_matches_host<T>(
        elt_divide(centered, colwise_broadcast(sqrt(rowwise_sum(elt_multiply(centered, centered)) / n + 1))),
        per_line(a, along::rows, normalize_line), "row normalization", 10 * tol);
    expect_fused_matches_host<T>(a - rowwise_broadcast(colwise_min(a)), per_line(a, along::cols, subtract_min_line),
                                 "column minimum subtracted", tol);
  }
}

TEST(KernelGeneratorReductionSkeleton, FusedLevelsAreOneKernelInTheSource) {
  const planned_as gpu(gpu_like(1));
  const matrix<float> a = random_matrix<float>(67, 67);
  const auto shifted = exp(a - colwise_broadcast(rowwise_max(a)));
  const std::string source = kernel_source(elt_divide(shifted, colwise_broadcast(rowwise_sum(shifted))));
  std::size_t kernels = 0;
  for (std::size_t at = source.find("kernel void"); at != std::string::npos; at = source.find("kernel void", at + 1))
    ++kernels;
  EXPECT_EQ(kernels, 1u) << source;
}

// Where the fused kernel does not apply, the materializing path still gives the right values:
// reductions of both directions, one not over the whole row, too few rows to fill the device.
TEST(KernelGeneratorReductionSkeleton, FusedLevelsOnlyWhereTheyApply) {
  const matrix<float> a = random_matrix<float>(67, 67, -3.0f, 3.0f);
  const double tol = static_cast<double>(tolerance<float>(67));
  {
    const planned_as gpu(gpu_like(1));
    matrix<float> d;
    const auto both = a - colwise_broadcast(rowwise_max(a)) - rowwise_broadcast(colwise_max(a));
    std::size_t before = runtime::kernels_enqueued();
    d = both;
    EXPECT_GT(runtime::kernels_enqueued() - before, 1u);
    EXPECT_TRUE(matches_host(d, host_evaluate<float>(both), tol));
    const auto of_a_block = block(a, 0, 0, 67, 30) - colwise_broadcast(rowwise_sum(block(a, 0, 30, 67, 37)));
    before = runtime::kernels_enqueued();
    d = of_a_block;
    EXPECT_GT(runtime::kernels_enqueued() - before, 1u);
    EXPECT_TRUE(matches_host(d, host_evaluate<float>(of_a_block), tol));
  }
  {
    const planned_as big_gpu(gpu_like(132));  // 3 groups of rows for 132 compute units
    matrix<float> d;
    const auto shifted = exp(a - colwise_broadcast(rowwise_max(a)));
    const std::size_t before = runtime::kernels_enqueued();
    d = shifted;
    EXPECT_GT(runtime::kernels_enqueued() - before, 1u);
    EXPECT_TRUE(matches_host(d, host_evaluate<float>(shifted), tol));
  }
  // Rows too long for a group to read them again from the cache: 32 rows of 2100 floats.
  const planned_as gpu(gpu_like(1));
  const matrix<float> wide = random_matrix<float>(33, 2100, -3.0f, 3.0f);
  matrix<float> d;
  const auto shifted = wide - colwise_broadcast(rowwise_max(wide));
  const std::size_t before = runtime::kernels_enqueued();
  d = shifted;
  EXPECT_GT(runtime::kernels_enqueued() - before, 1u);
  EXPECT_TRUE(matches_host(d, host_evaluate<float>(shifted), 0.0));
}

TEST(KernelGeneratorReductionSkeleton, FusedLevelsGiveTheSameBitsOnEveryRunAndMayReadTheirTarget) {
  const planned_as gpu(gpu_like(1));
  matrix<float> a = random_matrix<float>(97, 4111, -3.0f, 3.0f);
  const auto shifted = exp(a - colwise_broadcast(rowwise_max(a)));
  const auto softmax = elt_divide(shifted, colwise_broadcast(rowwise_sum(shifted)));
  matrix<float> first, again;
  first = softmax;
  for (int run = 0; run < 20; ++run) {
    again = softmax;
    ASSERT_EQ(again.to_host(), first.to_host()) << run;
  }
  a = softmax;  // reads its own target's rows: through a temporary
  EXPECT_EQ(a.to_host(), first.to_host());
}

TEST(KernelGeneratorReductionSkeleton, AReductionReadingItsOwnTargetGoesThroughATemporary) {
  matrix<float> a = random_matrix<float>(1, 999, -1.0f, 1.0f);
  const auto expected = host_evaluate<float>(a - colwise_broadcast(rowwise_sum(a)));
  a = a - colwise_broadcast(rowwise_sum(a));
  EXPECT_TRUE(matches_host(a, expected, static_cast<double>(tolerance<float>(999))));
}

// ---- The online maximum and sum: softmax and log-sum-exp in one pass over the terms -----------

/// The log-sum-exp of every row (column), host reference in double.
void log_sum_exp_line(const std::vector<double*>& line) {
  double max = -INFINITY, sum = 0;
  for (const double* x : line) max = std::max(max, *x);
  for (const double* x : line) sum += std::exp(*x - max);
  for (double* x : line) *x = max + std::log(sum);
}
/// The first element of each row (column) of a per_line result: a log-sum-exp's results.
host_matrix<double> first_of_each(const host_matrix<double>& m, along direction) {
  const index_t lines = direction == along::rows ? m.rows : m.cols;
  host_matrix<double> out{direction == along::rows ? lines : 1, direction == along::rows ? 1 : lines,
                          std::vector<double>(static_cast<std::size_t>(lines))};
  for (index_t l = 0; l < lines; ++l)
    out.values[static_cast<std::size_t>(l)] = m(direction == along::rows ? l : 0, direction == along::rows ? 0 : l);
  return out;
}

/// Random values in [-30, 30) with what changes a maximum or a softmax: in the first rows (and
/// columns) a line of -inf only, one NaN, one +inf, -inf among finite values, two +inf; in a
/// matrix of one line, -inf at every 7th element.
template <typename T>
matrix<T> with_special_lines(index_t rows, index_t cols) {
  std::vector<T> v = random_matrix<T>(rows, cols, T(-30), T(30)).to_host();
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  const auto at = [&](index_t i, index_t j) -> T& { return v[static_cast<std::size_t>(i + j * rows)]; };
  if (rows <= 4 || cols <= 4) {
    for (std::size_t k = 3; k < v.size(); k += 7) v[k] = -inf;
  } else {
    for (index_t j = 0; j < cols; ++j) at(0, j) = -inf;
    for (index_t i = 0; i < rows; ++i) at(i, 0) = -inf;
    at(1, cols / 2) = nan;
    at(2, cols - 1) = inf;
    at(3, 1) = -inf;
    at(3, cols - 2) = -inf;
    at(4, 2) = inf;
    at(4, cols - 3) = inf;
    at(rows / 2, 1) = nan;
  }
  return matrix<T>(v, rows, cols);
}

// Shapes that materialize (too few rows or columns per compute unit to fuse their levels on a
// GPU of 132 units; a CPU always materializes): one part and many, odd lengths, one line.
const std::vector<shape_case> online_shapes{{67, 67}, {13, 2053}, {2053, 13}, {1, 4099}, {4099, 1}, {131, 509}};

template <typename T>
void check_online_softmax_and_log_sum_exp() {
  for (const shape_case s : online_shapes) {
    SCOPED_TRACE(::testing::Message() << s.rows << "x" << s.cols);
    const matrix<T> a = with_special_lines<T>(s.rows, s.cols);
    const double tol = static_cast<double>(tolerance<T>(std::max(s.rows, s.cols)));
    matrix<T> d;
    {
      const auto shifted = exp(a - colwise_broadcast(rowwise_max(a)));
      d = elt_divide(shifted, colwise_broadcast(rowwise_sum(shifted)));
      EXPECT_TRUE(matches_host(d, per_line(a, along::rows, softmax_line), tol)) << "softmax along rows";
      const auto m = rowwise_max(a);
      d = m + log(rowwise_sum(exp(a - colwise_broadcast(m))));
      EXPECT_TRUE(matches_host(d, first_of_each(per_line(a, along::rows, log_sum_exp_line), along::rows), tol))
          << "log-sum-exp along rows";
    }
    {
      const auto shifted = exp(a - rowwise_broadcast(colwise_max(a)));
      d = elt_divide(shifted, rowwise_broadcast(colwise_sum(shifted)));
      EXPECT_TRUE(matches_host(d, per_line(a, along::cols, softmax_line), tol)) << "softmax along columns";
      const auto m = colwise_max(a);
      d = m + log(colwise_sum(exp(a - rowwise_broadcast(m))));
      EXPECT_TRUE(matches_host(d, first_of_each(per_line(a, along::cols, log_sum_exp_line), along::cols), tol))
          << "log-sum-exp along columns";
    }
  }
}

TYPED_TEST(KernelGeneratorReductionSkeleton, OnlineMaxAndSumMatchTheHostWithAGpusPlan) {
  TESSERA_SKIP_WITHOUT_PRECISION(TypeParam);
  const planned_as gpu(gpu_like(132));
  check_online_softmax_and_log_sum_exp<TypeParam>();
}

// A CPU keeps the two passes (online_rule_pays); the same values.
TEST(KernelGeneratorReductionSkeleton, SoftmaxAndLogSumExpMatchTheHostWithACpusPlan) {
  const planned_as cpu(cpu_like(16));
  check_online_softmax_and_log_sum_exp<float>();
}

// The maximum and the sum share one pass (and its finishing pass when the terms are in parts),
// the same bits on every run; the special lines of with_special_lines are NaN where two passes
// give NaN, the others finite.
TEST(KernelGeneratorReductionSkeleton, OnlineMaxAndSumShareOnePassWithTheSameBitsOnEveryRun) {
  const planned_as gpu(gpu_like(132));
  const matrix<float> a = with_special_lines<float>(13, 2053);
  const auto shifted = exp(a - colwise_broadcast(rowwise_max(a)));
  const auto softmax = elt_divide(shifted, colwise_broadcast(rowwise_sum(shifted)));
  matrix<float> first, again;
  std::size_t before = runtime::kernels_enqueued();
  first = softmax;
  EXPECT_EQ(runtime::kernels_enqueued() - before, 3u) << "the pairs, their parts finished, the quotient";
  const auto bits = [](const matrix<float>& m) {  // NaN compares unequal to itself: bits do not
    std::vector<std::uint32_t> out;
    for (const float x : m.to_host()) out.push_back(std::bit_cast<std::uint32_t>(x));
    return out;
  };
  for (int run = 0; run < 20; ++run) {
    again = softmax;
    ASSERT_EQ(bits(again), bits(first)) << run;
  }
  const std::vector<float> values = first.to_host();
  for (index_t i = 0; i < 13; ++i) {
    const bool nan_line = i <= 2 || i == 4 || i == 6;  // -inf only, a NaN, a +inf, two +inf, a NaN
    EXPECT_EQ(std::isnan(values[static_cast<std::size_t>(i + 13 * 5)]), nan_line) << i;
  }
  const auto m = rowwise_max(a);
  matrix<float> lse;
  before = runtime::kernels_enqueued();
  lse = m + log(rowwise_sum(exp(a - colwise_broadcast(m))));
  EXPECT_EQ(runtime::kernels_enqueued() - before, 2u) << "the pairs and their finishing pass";
  const std::string source = kernel_source(softmax);
  EXPECT_THAT(source, ::testing::HasSubstr("maximum and sum of exp(x - maximum), in one pass"));
  EXPECT_THAT(source, ::testing::HasSubstr("tessera_online_merge_float"));
}

// Where the rule does not hold, the two passes run: another matrix's maximum, a maximum read
// elsewhere too, a maximum of other elements.
TEST(KernelGeneratorReductionSkeleton, OnlineMaxAndSumOnlyWhereTheRuleHolds) {
  const planned_as gpu(gpu_like(132));
  const matrix<float> a = random_matrix<float>(13, 613, -3.0f, 3.0f);  // host_evaluate: 13 x 613^2 terms
  const matrix<float> b = random_matrix<float>(13, 613, -3.0f, 3.0f);
  const double tol = static_cast<double>(tolerance<float>(613));
  matrix<float> d;
  {
    const auto of_b = rowwise_sum(exp(a - colwise_broadcast(rowwise_max(b))));
    EXPECT_THAT(kernel_source(of_b), ::testing::Not(::testing::HasSubstr("tessera_online")));
    d = of_b;
    EXPECT_TRUE(matches_host(d, host_evaluate<float>(of_b), tol));
  }
  {
    const auto m = rowwise_max(a);
    const auto read_twice = rowwise_sum(exp(a - colwise_broadcast(m))) + rowwise_sum(a - colwise_broadcast(m));
    EXPECT_THAT(kernel_source(read_twice), ::testing::Not(::testing::HasSubstr("tessera_online")));
    d = read_twice;
    EXPECT_TRUE(matches_host(d, host_evaluate<float>(read_twice), tol));
  }
  {
    const auto shifted_block =
        rowwise_sum(exp(block(a, 0, 1, 13, 612) - colwise_broadcast(rowwise_max(block(a, 0, 0, 13, 612)))));
    EXPECT_THAT(kernel_source(shifted_block), ::testing::Not(::testing::HasSubstr("tessera_online")));
    d = shifted_block;
    EXPECT_TRUE(matches_host(d, host_evaluate<float>(shifted_block), tol));
  }
}

// A GPU's row reductions in groups of 1024 (ReductionPlan.LargeGroupsWhereTheySaveAGpusFinishingPass):
// 4 units, 307 rows (10 groups of 32, the last partly empty), 2111 columns (32 lanes of 65 or 66
// terms; too long for the softmax's fused levels): one pass, against the host, the same bits on
// every run; the softmax's pairs in one.
template <typename T>
void check_rows_in_large_groups() {
  const planned_as gpu(gpu_like(4));
  const matrix<T> a = random_matrix<T>(307, 2111, T(-3), T(3));
  const double tol = static_cast<double>(tolerance<T>(2111));
  matrix<T> sums, maxima, again;
  std::size_t before = runtime::kernels_enqueued();
  sums = rowwise_sum(a);
  EXPECT_EQ(runtime::kernels_enqueued() - before, 1u) << "no finishing pass";
  EXPECT_TRUE(matches_host(sums, host_evaluate<T>(rowwise_sum(a)), tol));
  maxima = rowwise_max(a);
  EXPECT_TRUE(matches_host(maxima, host_evaluate<T>(rowwise_max(a)), 0.0));
  for (int run = 0; run < 20; ++run) {
    again = rowwise_sum(a);
    ASSERT_EQ(again.to_host(), sums.to_host()) << run;
  }
  const auto shifted = exp(a - colwise_broadcast(rowwise_max(a)));
  matrix<T> softmax;
  before = runtime::kernels_enqueued();
  softmax = elt_divide(shifted, colwise_broadcast(rowwise_sum(shifted)));
  const std::size_t kernels = runtime::kernels_enqueued() - before;
  if constexpr (std::is_same_v<T, float>) {
    EXPECT_EQ(kernels, 2u) << "the pairs in one pass, the quotient";
  } else {
    // An H200 refuses the double pairs' pass in groups of 1024 (its registers): the groups of
    // 256 in parts, and their finishing pass.
    EXPECT_TRUE(kernels == 2u || kernels == 3u) << kernels;
  }
  EXPECT_TRUE(matches_host(softmax, per_line(a, along::rows, softmax_line), 1e-5));
}

TEST(KernelGeneratorReductionSkeleton, RowsInLargeGroupsFloat) { check_rows_in_large_groups<float>(); }

TEST(KernelGeneratorReductionSkeleton, RowsInLargeGroupsDouble) {
  if (device_lacks_precision<double>()) GTEST_SKIP() << "no fp64 on this device";
  check_rows_in_large_groups<double>();
}

TEST(KernelGeneratorReductionSkeleton, ANestedReductionIsComputedOnce) {
  // A CPU's plan materializes each reduction (a GPU's fuses them: FusedLevels above); one part
  // per reduction: one kernel each.
  const planned_as cpu(cpu_like(1));
  const matrix<float> a = random_matrix<float>(257, 131, -3.0f, 3.0f);
  const auto shifted = exp(a - colwise_broadcast(rowwise_max(a)));
  const auto softmax = elt_divide(shifted, colwise_broadcast(rowwise_sum(shifted)));
  matrix<float> d;
  const std::size_t before = runtime::kernels_enqueued();
  d = softmax;
  // The maximum, the sums of the shifted exponentials (reading the maximum), the quotient.
  EXPECT_EQ(runtime::kernels_enqueued() - before, 3u);
  // References line by line (host_evaluate would compute the nested reductions per element).
  EXPECT_TRUE(matches_host(d, per_line(a, along::rows, softmax_line), 1e-5));
  const auto log_sum_exp = colwise_broadcast(rowwise_max(a)) + log(rowwise_sum(shifted));
  d = log_sum_exp;
  EXPECT_TRUE(matches_host(d, first_of_each(per_line(a, along::rows, log_sum_exp_line), along::rows), 1e-5));
}

// ---- The plan ---------------------------------------------------------------------------------

struct plan_case {
  bool rowwise;
  index_t outputs, length;
};

void expect_plan_covers(const runtime::device_info& device, const plan_case& c, std::size_t large_group) {
  SCOPED_TRACE(::testing::Message() << device.name << (c.rowwise ? " rowwise " : " colwise ") << c.outputs
                                    << " results of " << c.length << ", large groups " << large_group);
  const reduction_plan p = plan_reduction(device, c.rowwise, c.outputs, c.length, 256, large_group);
  EXPECT_TRUE(std::has_single_bit(p.local0) && std::has_single_bit(p.local1));
  EXPECT_LE(p.local0 * p.local1, std::max<std::size_t>(256, large_group));
  EXPECT_LE(p.groups1, 65535u);
  EXPECT_LE(p.groups2, 65535u);
  const std::size_t result_groups = c.rowwise ? p.groups0 : p.groups1 * p.groups2;
  const std::size_t part_groups = c.rowwise ? p.groups1 : p.groups0;
  EXPECT_EQ(static_cast<index_t>(part_groups), p.parts);
  EXPECT_GE(static_cast<index_t>(result_groups * p.results_per_group(c.rowwise)), c.outputs);
  EXPECT_TRUE(std::has_single_bit(p.finish_lanes) && std::has_single_bit(p.finish_results));
  EXPECT_LE(p.finish_lanes * p.finish_results, 256u);
  EXPECT_GE(p.parts * p.part_length, c.length);
  EXPECT_LT((p.parts - 1) * p.part_length, std::max<index_t>(c.length, 1));  // no empty part
  // The lanes of a part take every term of it, each once.
  const auto lanes = static_cast<index_t>(p.lanes(c.rowwise));
  if (p.lane_step == 1) EXPECT_GE(p.lane_chunk * lanes, p.part_length);
  else EXPECT_EQ(p.lane_step, lanes);
}

TEST(ReductionPlan, EveryResultAndTermIsCovered) {
  const std::vector<plan_case> cases{{true, 8192, 8192},  {false, 8192, 8192}, {true, 1024, 65536},
                                     {false, 65536, 1024}, {true, 65536, 1024}, {false, 1024, 65536},
                                     {true, 1, 1 << 26},   {false, 1 << 26, 1}, {true, 1 << 26, 1},
                                     {false, 1, 1 << 26},  {true, 3, 7},        {false, 0, 5},
                                     {true, 5, 0},         {true, 1, 1},         {true, 5000, 3001},
                                     {true, 16896, 8192},  {true, 4225, 129}};
  for (const auto& device : {gpu_like(132), gpu_like(1), cpu_like(2), cpu_like(64)})
    for (const plan_case& c : cases)
      for (const std::size_t large_group : {std::size_t{0}, std::size_t{1024}}) expect_plan_covers(device, c, large_group);
}

TEST(ReductionPlan, LargeGroupsWhereTheySaveAGpusFinishingPass) {
  const runtime::device_info h200 = gpu_like(132);
  // 8192 rows: 256 groups of 32 rows, too few for 132 units in groups of 256 (8 a unit), enough
  // in groups of 1024 (2 a unit): one pass.
  const reduction_plan small = plan_reduction(h200, true, 8192, 8192, 256);
  EXPECT_GT(small.parts, 1);
  const reduction_plan large = plan_reduction(h200, true, 8192, 8192, 256, 1024);
  EXPECT_EQ(large.parts, 1);
  EXPECT_EQ(large.local0, 32u);
  EXPECT_EQ(large.local1, 32u);
  EXPECT_EQ(large.lane_step, 32);
  // From just over a group of 32 rows per unit to four.
  EXPECT_EQ(plan_reduction(h200, true, 132 * 32 + 1, 8192, 256, 1024).local1, 32u);
  EXPECT_EQ(plan_reduction(h200, true, 4 * 132 * 32, 8192, 256, 1024).local1, 32u);
  // Where large groups need parts too, or the small ones none, or the terms run down the
  // columns, or the device is a CPU: the groups of 256.
  for (const plan_case c : {plan_case{true, 132 * 32, 8192}, plan_case{true, 1024, 65536}, plan_case{true, 1, 1 << 26},
                            plan_case{true, 65536, 1024}, plan_case{false, 8192, 8192}, plan_case{false, 1, 1 << 26}}) {
    const reduction_plan p = plan_reduction(h200, c.rowwise, c.outputs, c.length, 256, 1024);
    const reduction_plan q = plan_reduction(h200, c.rowwise, c.outputs, c.length, 256);
    EXPECT_EQ(p.local0 * p.local1, q.local0 * q.local1) << c.outputs << " x " << c.length;
    EXPECT_EQ(p.parts, q.parts) << c.outputs << " x " << c.length;
  }
  EXPECT_LE(plan_reduction(cpu_like(2), true, 8192, 8192, 256, 1024).local0 *
                plan_reduction(cpu_like(2), true, 8192, 8192, 256, 1024).local1,
            256u);
}

TEST(ReductionPlan, FewResultsFillAGpuWithParts) {
  const runtime::device_info h200 = gpu_like(132);
  for (const plan_case c : {plan_case{true, 1024, 65536}, plan_case{false, 1024, 65536}, plan_case{true, 1, 1 << 26},
                            plan_case{false, 1, 1 << 24}, plan_case{true, 8192, 8192}}) {
    const reduction_plan p = plan_reduction(h200, c.rowwise, c.outputs, c.length, 256);
    // Between half a wave and one (8 groups per unit): a second, mostly empty wave would cost
    // as much as the first.
    const std::size_t groups = p.groups0 * p.groups1 * p.groups2;
    EXPECT_GE(groups, 4u * 132u) << c.outputs << " x " << c.length;
    EXPECT_LE(groups, 8u * 132u) << c.outputs << " x " << c.length;
  }
  EXPECT_GT(plan_reduction(h200, true, 1, 1 << 26, 256).parts, 1);
  EXPECT_GT(plan_reduction(h200, true, 1024, 65536, 256).parts, 1);
  // Many results fill it without: one pass.
  EXPECT_EQ(plan_reduction(h200, true, 65536, 1024, 256).parts, 1);
  EXPECT_EQ(plan_reduction(h200, false, 8192, 8192, 256).parts, 1);
}

TEST(ReductionPlan, AGpuReadsCoalesced) {
  const runtime::device_info h200 = gpu_like(132);
  // Rowwise: 32 consecutive rows per column (128 bytes of floats); colwise: lanes down a column.
  EXPECT_EQ(plan_reduction(h200, true, 8192, 8192, 256).local0, 32u);
  EXPECT_GE(plan_reduction(h200, false, 8192, 8192, 256).local0, 32u);
  EXPECT_EQ(plan_reduction(h200, true, 8192, 8192, 256).lane_step, 8);
}

TEST(ReductionPlan, FusedLevelsCoverEveryRowOrColumnAndReadCoalesced) {
  for (const bool rowwise : {true, false})
    for (const auto& [rows, cols] : std::vector<std::pair<index_t, index_t>>{
             {8192, 8192}, {65536, 1024}, {1024, 65536}, {1, 1 << 26}, {1 << 26, 1}, {67, 5}, {1, 1}})
      for (const std::size_t work_group : {std::size_t{1024}, std::size_t{256}, std::size_t{1}}) {
        SCOPED_TRACE(::testing::Message() << (rowwise ? "rowwise " : "colwise ") << rows << "x" << cols << " in "
                                          << work_group);
        const fused_levels_plan p = plan_fused_levels(rowwise, rows, cols, work_group);
        EXPECT_TRUE(std::has_single_bit(p.local0) && std::has_single_bit(p.local1));
        EXPECT_LE(p.local0 * p.local1, work_group);
        EXPECT_LE(p.groups1, 65535u);
        EXPECT_LE(p.groups2, 65535u);
        if (rowwise) {
          EXPECT_GE(static_cast<index_t>(p.groups0 * p.local0), rows);
        } else {
          EXPECT_GE(static_cast<index_t>(p.groups1 * p.groups2 * p.local1), cols);
        }
        if (work_group >= 32 && rows >= 32) {
          EXPECT_GE(p.local0, 32u) << "a 128-byte read per column";
        }
      }
}

// A CPU's blocks of 4096 rows add blocked_columns_per_step columns a step, then the columns
// left one by one: parts whose lengths leave every remainder, a clamped last block, fewer
// columns than a step.
TYPED_TEST(KernelGeneratorReductionSkeleton, ACpusLargestBlocksStepSeveralColumnsAtATime) {
  using T = TypeParam;
  TESSERA_SKIP_WITHOUT_PRECISION(T);
  const planned_as cpu(cpu_like(2));
  ASSERT_GT(blocked_columns_per_step(blocked_rows_per_item(4099)), 1);
  for (const shape_case s : std::vector<shape_case>{{4099, 611}, {8197, 23}, {4096, 4}, {4096, 3}}) {
    const matrix<T> a = random_matrix<T>(s.rows, s.cols);
    expect_matches_host<T>([](const auto& x) { return rowwise_sum(x); }, a, "rowwise_sum");
    expect_matches_host<T>([](const auto& x) { return rowwise_max(x); }, a, "rowwise_max");
    expect_matches_host<T>([](const auto& x) { return sqrt(rowwise_sum(elt_multiply(x, x))); }, a, "row norms");
  }
}

TEST(ReductionPlan, ACpuTakesBlocksOfRowsAndKeepsItsCoresBusy) {
  const runtime::device_info cpu = cpu_like(2);
  EXPECT_TRUE(reduction_rows_blocked(cpu, true, 4096));
  EXPECT_FALSE(reduction_rows_blocked(cpu, true, 63));   // a few rows: one per work-item
  EXPECT_FALSE(reduction_rows_blocked(cpu, false, 4096));  // columns are contiguous already
  EXPECT_FALSE(reduction_rows_blocked(gpu_like(132), true, 4096));
  for (const index_t rows : {64, 67, 4096, 65536, 1 << 24}) {
    const reduction_plan p = plan_reduction(cpu, true, rows, 4096, 256);
    EXPECT_EQ(p.results_per_item, blocked_rows_per_item(rows));
    EXPECT_EQ(p.results_per_item, std::min<std::size_t>(std::bit_floor(static_cast<std::size_t>(rows)), 4096));
    EXPECT_GE(static_cast<index_t>(p.groups0 * p.results_per_group(true)), rows);
    if (rows >= 4096) {
      EXPECT_GE(p.groups0 * p.groups1, 8u) << rows << ": four groups per core";
    }
  }
}

}  // namespace
