// Every reduction (row, column, 1-D and 2-D) at the benchmark's shapes scaled down and at odd
// ones, float and double, against a host loop: on each executor, and on the OpenCL executor
// both with its device's own split of the work and with a GPU's (132 compute units), so that
// the kernels a GPU runs are checked on the CPU device tests have.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <support/test_data.hpp>
#include <tessera/unified/unified.hpp>
#include <unified/executors.hpp>

namespace {

using namespace tessera::unified;
using tessera::testing::random_values;
using tessera::testing::tolerance;
namespace rt = tessera::runtime;

// rows x cols: the benchmark's shapes at 2^14 elements (square, few long rows, many short
// rows, 1 x N, N x 1), odd sizes either way, long single rows and columns, empty ones, and
// short rows and columns numerous enough that work-items take several each.
const std::vector<std::pair<std::size_t, std::size_t>> shapes = {
    {128, 128}, {16, 1024}, {1024, 16}, {1, 16384}, {16384, 1}, {67, 1031}, {1031, 67},
    {1, 100003}, {100003, 1}, {3, 50021}, {20011, 3}, {0, 1031}, {1031, 0},
    // Past a GPU's one wave of groups with short rows or columns (several per item).
    {300007, 3}, {3, 300007}};

/// How the work is split: the executor's own device, or a GPU's split on it.
enum class split { own, gpu };

rt::device_info gpu_like() {
  rt::device_info d;
  d.type = rt::device_type::gpu;
  d.compute_units = 132;
  return d;
}

/// The combination of x's elements in order by `max` (a unless a < b, from lowest) or a sum
/// in long double: the host reference.
template <typename T>
T host_max(const std::vector<T>& x) {
  T acc = std::numeric_limits<T>::lowest();
  for (T v : x) acc = acc < v ? v : acc;
  return acc;
}

struct sum_check {
  long double value = 0, magnitude = 0;
  std::size_t terms = 0;
  void add(long double v) { value += v, magnitude += std::abs(v), ++terms; }
};

template <typename T>
void expect_sum(T got, const sum_check& want, const std::string& where) {
  if (std::isnan(want.value)) {  // a NaN term, or +inf and -inf
    EXPECT_TRUE(std::isnan(got)) << where << ": " << got;
    return;
  }
  if (std::isinf(want.value)) {
    EXPECT_EQ(static_cast<long double>(got), want.value) << where;
    return;
  }
  const long double slack =
      static_cast<long double>(tolerance<T>(want.terms)) * std::max<long double>(want.magnitude, 1);
  EXPECT_LE(std::abs(static_cast<long double>(got) - want.value), slack) << where;
}

/// A rows x cols matrix with the given stride (padding holds a value larger than any element,
/// so a kernel reading it shows in every max), its values row-major without padding.
template <typename T>
struct matrix_case {
  std::size_t rows, cols, stride;
  std::vector<T> values;
  std::vector<T> stored() const {
    std::vector<T> out(rows * stride, T(1000));
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t c = 0; c < cols; ++c) out[r * stride + c] = values[r * cols + c];
    return out;
  }
  std::string name() const {
    return std::to_string(rows) + " x " + std::to_string(cols) + " (stride " + std::to_string(stride) + ")";
  }
};

template <typename Exec, typename T>
dense<T> on(const std::shared_ptr<const Exec>& exec, const matrix_case<T>& m) {
  dense<T> d(exec, dim<2>{m.rows, m.cols}, m.stride);
  d.values().write(m.stored());
  return d;
}

template <typename Exec, typename T>
struct results {
  std::vector<T> row_sum, col_sum, row_max, col_max;
  T sum, max;
};

/// Every reduction of m on exec.
template <typename Exec, typename T>
results<Exec, T> reduce_all(const std::shared_ptr<const Exec>& exec, const matrix_case<T>& m) {
  const auto d = on(exec, m);
  const auto element = [](auto row, auto col, auto m) { return m(row, col); };
  array<T> per_row(exec, std::max<std::size_t>(m.rows, 1)), per_col(exec, std::max<std::size_t>(m.cols, 1)),
      one(exec, 1);
  results<Exec, T> out;
  run_kernel_row_reduction(exec, element, TESSERA_KERNEL_REDUCE_SUM(T), per_row, 1, d.size(), d);
  out.row_sum = per_row.to_host();
  run_kernel_row_reduction(exec, element, TESSERA_KERNEL_REDUCE_MAX(T), per_row, 1, d.size(), d);
  out.row_max = per_row.to_host();
  run_kernel_col_reduction(exec, element, TESSERA_KERNEL_REDUCE_SUM(T), per_col, d.size(), d);
  out.col_sum = per_col.to_host();
  run_kernel_col_reduction(exec, element, TESSERA_KERNEL_REDUCE_MAX(T), per_col, d.size(), d);
  out.col_max = per_col.to_host();
  run_kernel_reduction(exec, element, TESSERA_KERNEL_REDUCE_SUM(T), one, d.size(), d);
  out.sum = one.to_host()[0];
  run_kernel_reduction(exec, element, TESSERA_KERNEL_REDUCE_MAX(T), one, d.size(), d);
  out.max = one.to_host()[0];
  return out;
}

template <typename Exec, typename T>
void expect_matches_host(const results<Exec, T>& got, const matrix_case<T>& m) {
  const std::string name = m.name();
  sum_check all;
  std::vector<sum_check> cols(m.cols);
  std::vector<std::vector<T>> col_values(m.cols);
  for (std::size_t r = 0; r < m.rows; ++r) {
    sum_check row;
    const std::vector<T> row_values(m.values.begin() + r * m.cols, m.values.begin() + (r + 1) * m.cols);
    for (std::size_t c = 0; c < m.cols; ++c) {
      const T v = row_values[c];
      row.add(v), all.add(v), cols[c].add(v);
      col_values[c].push_back(v);
    }
    expect_sum(got.row_sum[r], row, name + ", row " + std::to_string(r));
    const T want = host_max(row_values);
    EXPECT_TRUE(got.row_max[r] == want || (std::isnan(want) && std::isnan(got.row_max[r])))
        << name << ", max of row " << r << ": " << got.row_max[r] << ", expected " << want;
  }
  for (std::size_t c = 0; c < m.cols; ++c) {
    expect_sum(got.col_sum[c], cols[c], name + ", column " + std::to_string(c));
    const T want = host_max(col_values[c]);
    EXPECT_TRUE(got.col_max[c] == want) << name << ", max of column " << c << ": " << got.col_max[c] << ", expected "
                                        << want;
  }
  expect_sum(got.sum, all, name + ", sum");
  EXPECT_EQ(got.max, host_max(m.values)) << name << ", max";
}

template <typename Config>
class reduction_shapes : public ::testing::Test {};

template <typename Exec, typename T, split Split>
struct config {
  using exec_type = Exec;
  using value_type = T;
  static constexpr split how = Split;
};

using configs = ::testing::Types<config<omp_executor, float, split::own>, config<omp_executor, double, split::own>,
                                 config<opencl_executor, float, split::own>, config<opencl_executor, double, split::own>,
                                 config<opencl_executor, float, split::gpu>, config<opencl_executor, double, split::gpu>>;

struct config_names {
  template <typename C>
  static std::string GetName(int) {
    std::string name = std::is_same_v<typename C::exec_type, omp_executor> ? "omp" : "opencl";
    name += std::is_same_v<typename C::value_type, float> ? "_float" : "_double";
    if (C::how == split::gpu) name += "_gpu_split";
    return name;
  }
};
TYPED_TEST_SUITE(reduction_shapes, configs, config_names);

/// The executor of C, and the layout override its split needs while the object lives.
template <typename C>
struct setting {
  std::optional<layout_device_override> override_split;
  std::shared_ptr<const typename C::exec_type> exec = C::exec_type::create();
  setting() {
    if (C::how == split::gpu) override_split.emplace(gpu_like());
  }
};

TYPED_TEST(reduction_shapes, every_reduction_matches_the_host_at_every_shape_and_stride) {
  using T = typename TypeParam::value_type;
  setting<TypeParam> s;
  for (auto [rows, cols] : shapes)
    for (std::size_t padding : {0, 3}) {
      const matrix_case<T> m{rows, cols, cols + padding, random_values<T>(rows * cols)};
      expect_matches_host(reduce_all(s.exec, m), m);
    }
}

// A GPU's 2-D reductions divide each term's index by the columns when every index fits 32 bits,
// else step the row and column along: the stepping walk, forced, at the shapes that stress it
// (one column, few columns, a step of several rows).
TYPED_TEST(reduction_shapes, two_d_reductions_that_step_their_rows_and_columns_match_the_host) {
  using T = typename TypeParam::value_type;
  setting<TypeParam> s;
  stepping_indices_override steps;
  for (auto [rows, cols] : std::vector<std::pair<std::size_t, std::size_t>>{
           {67, 1031}, {1031, 67}, {20011, 3}, {3, 20011}, {16384, 1}, {1, 16384}, {0, 5}})
    for (std::size_t padding : {0, 3}) {
      const matrix_case<T> m{rows, cols, cols + padding, random_values<T>(rows * cols)};
      const auto d = on(s.exec, m);
      const auto element = [](auto row, auto col, auto m) { return m(row, col); };
      array<T> one(s.exec, 1);
      sum_check want;
      for (T v : m.values) want.add(v);
      run_kernel_reduction(s.exec, element, TESSERA_KERNEL_REDUCE_SUM(T), one, d.size(), d);
      expect_sum(one.to_host()[0], want, m.name() + ", sum");
      run_kernel_reduction(s.exec, element, TESSERA_KERNEL_REDUCE_MAX(T), one, d.size(), d);
      EXPECT_EQ(one.to_host()[0], host_max(m.values)) << m.name() << ", max";
    }
}

TYPED_TEST(reduction_shapes, max_skips_nan_terms_and_keeps_infinities) {
  using T = typename TypeParam::value_type;
  constexpr T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  setting<TypeParam> s;
  for (auto [rows, cols] : std::vector<std::pair<std::size_t, std::size_t>>{{67, 1031}, {1031, 67}, {1, 5003}, {5003, 1}}) {
    matrix_case<T> m{rows, cols, cols + 1, random_values<T>(rows * cols)};
    // NaN in the first, a middle and the last element; +inf and -inf in others.
    const std::size_t n = rows * cols;
    m.values[0] = nan, m.values[n / 2] = nan, m.values[n - 1] = nan;
    m.values[n / 3] = inf, m.values[n / 5] = -inf;
    // A row (or the column, for one column) of nothing but NaN and -inf: its max is the identity.
    if (rows > 2)
      for (std::size_t c = 0; c < cols; ++c) m.values[1 * cols + c] = c % 2 ? nan : -inf;
    const auto got = reduce_all(s.exec, m);
    expect_matches_host(got, m);
    EXPECT_EQ(got.max, inf) << m.name();
  }
}

TYPED_TEST(reduction_shapes, every_reduction_gives_the_same_bits_in_twenty_runs) {
  using T = typename TypeParam::value_type;
  setting<TypeParam> s;
  for (auto [rows, cols] : std::vector<std::pair<std::size_t, std::size_t>>{{3, 20011}, {20011, 3}, {67, 1031}}) {
    const matrix_case<T> m{rows, cols, cols + 2, random_values<T>(rows * cols)};
    const auto first = reduce_all(s.exec, m);
    for (int run = 1; run < 20; ++run) {
      const auto again = reduce_all(s.exec, m);
      ASSERT_EQ(again.row_sum, first.row_sum) << m.name() << ", run " << run;
      ASSERT_EQ(again.col_sum, first.col_sum) << m.name() << ", run " << run;
      ASSERT_EQ(again.row_max, first.row_max) << m.name() << ", run " << run;
      ASSERT_EQ(again.col_max, first.col_max) << m.name() << ", run " << run;
      ASSERT_EQ(again.sum, first.sum) << m.name() << ", run " << run;
      ASSERT_EQ(again.max, first.max) << m.name() << ", run " << run;
    }
  }
}

TYPED_TEST(reduction_shapes, one_d_reductions_match_the_host) {
  using T = typename TypeParam::value_type;
  setting<TypeParam> s;
  for (std::size_t n : {0, 1, 7, 257, 100003}) {
    const auto values = random_values<T>(n);
    const array<T> x(s.exec, values);
    array<T> result(s.exec, 1);
    run_kernel_reduction(s.exec, [](auto i, auto x) { return x[i]; }, TESSERA_KERNEL_REDUCE_SUM(T), result, n, x);
    sum_check want;
    for (T v : values) want.add(v);
    expect_sum(result.to_host()[0], want, "n " + std::to_string(n));
    run_kernel_reduction(s.exec, [](auto i, auto x) { return x[i]; }, TESSERA_KERNEL_REDUCE_MAX(T), result, n, x);
    EXPECT_EQ(result.to_host()[0], host_max(values)) << "n " << n;
  }
}

TYPED_TEST(reduction_shapes, row_results_land_at_their_stride_and_leave_the_rest) {
  using T = typename TypeParam::value_type;
  setting<TypeParam> s;
  for (auto [rows, cols] : std::vector<std::pair<std::size_t, std::size_t>>{{1031, 1}, {5, 20011}}) {
    const matrix_case<T> m{rows, cols, cols, random_values<T>(rows * cols)};
    const auto d = on(s.exec, m);
    array<T> result(s.exec, rows * 3);
    result.fill(T(-7));
    run_kernel_row_reduction(s.exec, [](auto row, auto col, auto m) { return m(row, col); },
                             TESSERA_KERNEL_REDUCE_SUM(T), result, 3, d.size(), d);
    const auto got = result.to_host();
    for (std::size_t r = 0; r < rows; ++r) {
      sum_check want;
      for (std::size_t c = 0; c < cols; ++c) want.add(m.values[r * cols + c]);
      expect_sum(got[r * 3], want, m.name() + ", row " + std::to_string(r));
      EXPECT_EQ(got[r * 3 + 1], T(-7));
      EXPECT_EQ(got[r * 3 + 2], T(-7));
    }
  }
}

}  // namespace
