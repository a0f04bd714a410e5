// The seed's unified kernels and the reductions, written once and run on every executor
// (omp and opencl), each compared with a plain host loop on fresh random data.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include <support/test_data.hpp>
#include <tessera/unified/unified.hpp>
#include <unified/executors.hpp>

namespace {

using namespace tessera::unified;
using tessera::testing::random_values;
using tessera::testing::tolerance;

template <typename Exec>
class unified_kernels : public ::testing::Test {
 protected:
  std::shared_ptr<const Exec> exec = Exec::create();
};
TYPED_TEST_SUITE(unified_kernels, tessera::testing::executors, tessera::testing::executor_names);

// 0, 1, small primes, a prime past a work-group, a large prime.
constexpr std::size_t odd_sizes[] = {0, 1, 2, 7, 31, 257, 1009, 65537, 1000003};
// rows x cols shapes: empty either way, single, primes, tall, wide.
const std::vector<std::pair<std::size_t, std::size_t>> odd_shapes = {
    {0, 0}, {0, 3}, {5, 0}, {1, 1}, {7, 3}, {13, 5}, {257, 2}, {3, 1009}, {1031, 1}, {2, 65537}, {20011, 7}};

/// Row-major rows x cols values stored with stride, padding set to a sentinel kernels must keep.
template <typename T>
struct padded {
  static constexpr T sentinel = T(-12345);
  std::size_t rows, cols, stride;
  std::vector<T> values;  // rows * cols, row-major, no padding

  padded(std::size_t r, std::size_t c, std::size_t s, std::vector<T> v) : rows(r), cols(c), stride(s), values(std::move(v)) {}

  template <typename Exec>
  dense<T> on(const std::shared_ptr<Exec>& exec) const {
    dense<T> m(exec, dim<2>{rows, cols}, stride);
    std::vector<T> stored(rows * stride, sentinel);
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t c = 0; c < cols; ++c) stored[r * stride + c] = values[r * cols + c];
    m.values().write(stored);
    return m;
  }
  T& operator()(std::size_t r, std::size_t c) { return values[r * cols + c]; }
};

template <typename T>
void expect_padding_kept(const dense<T>& m) {
  const auto stored = m.values().to_host();
  for (std::size_t r = 0; r < m.rows(); ++r)
    for (std::size_t c = m.cols(); c < m.stride(); ++c)
      ASSERT_EQ(stored[r * m.stride() + c], padded<T>::sentinel) << "padding at " << r << ", " << c << " was written";
}

template <typename T>
void expect_near_relative(T expected, T actual, T scale, std::size_t terms, const std::string& where) {
  EXPECT_NEAR(actual, expected, tolerance<T>(terms) * std::max(scale, T(1))) << where;
}

// --- the seed's examples ----------------------------------------------------------------

TYPED_TEST(unified_kernels, csr_scale_multiplies_every_stored_value) {
  for (std::size_t nnz : odd_sizes) {
    const auto values = random_values<double>(nnz);
    const auto alpha = random_values<double>(1);
    array<double> x(this->exec, values);
    const array<double> scale(this->exec, alpha);

    run_kernel(this->exec, [](auto nnz, auto alpha, auto x) { x[nnz] *= alpha[0]; }, x.size(), scale, x);

    const auto got = x.to_host();
    for (std::size_t i = 0; i < nnz; ++i) ASSERT_EQ(got[i], values[i] * alpha[0]) << "nnz " << nnz << ", entry " << i;
  }
}

TYPED_TEST(unified_kernels, cg_step_2_updates_only_columns_that_have_not_stopped) {
  for (auto [rows, cols] : std::vector<std::pair<std::size_t, std::size_t>>{{0, 2}, {1, 1}, {13, 3}, {257, 5}, {1031, 4}}) {
    const std::size_t default_stride_value = cols + 2;
    padded<double> x(rows, cols, cols + 5, random_values<double>(rows * cols));  // its own stride
    padded<double> r(rows, cols, default_stride_value, random_values<double>(rows * cols));
    padded<double> p(rows, cols, default_stride_value, random_values<double>(rows * cols));
    padded<double> q(rows, cols, default_stride_value, random_values<double>(rows * cols));
    auto beta = random_values<double>(cols);
    const auto rho = random_values<double>(cols);
    beta[0] = 0;  // safe_divide: a zero beta gives a zero step
    std::vector<stopping_status> stop(cols);
    if (cols > 1) stop[1].converge(1);
    auto x_d = x.on(this->exec), r_d = r.on(this->exec), p_d = p.on(this->exec), q_d = q.on(this->exec);
    dense<double> beta_d(this->exec, dim<2>{1, cols}, beta), rho_d(this->exec, dim<2>{1, cols}, rho);
    array<stopping_status> stop_d(this->exec, stop);

    run_kernel_solver(
        this->exec,
        [](auto row, auto col, auto x, auto r, auto p, auto q, auto beta, auto rho, auto stop) {
          if_(!stop[col].has_stopped(), [&] {
            auto tmp = safe_divide(rho[col], beta[col]);
            x(row, col) += tmp * p(row, col);
            r(row, col) -= tmp * q(row, col);
          });
        },
        x_d.size(), r_d.stride(), x_d, default_stride(r_d), default_stride(p_d), default_stride(q_d),
        row_vector(beta_d), row_vector(rho_d), stop_d);

    for (std::size_t row = 0; row < rows; ++row)
      for (std::size_t col = 0; col < cols; ++col) {
        if (stop[col].has_stopped()) continue;
        const double tmp = beta[col] == 0 ? 0 : rho[col] / beta[col];
        x(row, col) += tmp * p(row, col);
        r(row, col) -= tmp * q(row, col);
      }
    const auto x_got = x_d.to_host(), r_got = r_d.to_host();
    for (std::size_t i = 0; i < rows * cols; ++i) {
      expect_near_relative(x.values[i], x_got[i], std::abs(x.values[i]), 2, "x");
      expect_near_relative(r.values[i], r_got[i], std::abs(r.values[i]), 2, "r");
    }
    expect_padding_kept(x_d);
    expect_padding_kept(r_d);
  }
}

TYPED_TEST(unified_kernels, count_nonzeros_per_row_counts_exact_zeros_out) {
  for (auto [rows, cols] : odd_shapes) {
    for (std::size_t result_stride : {std::size_t{1}, std::size_t{3}}) {
      auto values = random_values<float>(rows * cols);
      for (auto& v : values)
        if (std::abs(v) < 0.4f) v = 0;  // about 40% exact zeros
      padded<float> mtx(rows, cols, cols + 1, values);
      const auto mtx_d = mtx.on(this->exec);
      constexpr std::int64_t untouched = -7;
      const std::size_t result_size = rows == 0 ? 1 : (rows - 1) * result_stride + 1;
      array<std::int64_t> result(this->exec, std::vector<std::int64_t>(result_size, untouched));

      run_kernel_row_reduction(
          this->exec, [](auto i, auto j, auto mtx) { return select(is_nonzero(mtx(i, j)), 1, 0); },
          TESSERA_KERNEL_REDUCE_SUM(std::int64_t), result, result_stride, mtx_d.size(), mtx_d);

      const auto got = result.to_host();
      for (std::size_t row = 0; row < rows; ++row) {
        std::int64_t expected = 0;
        for (std::size_t col = 0; col < cols; ++col) expected += values[row * cols + col] != 0;
        ASSERT_EQ(got[row * result_stride], expected) << rows << " x " << cols << ", row " << row;
        if (row + 1 < rows) {
          for (std::size_t gap = 1; gap < result_stride; ++gap)
            ASSERT_EQ(got[row * result_stride + gap], untouched) << "the result stride's gap was written";
        }
      }
      if (rows == 0) {
        EXPECT_EQ(got[0], untouched) << "no rows: nothing to write";
      }
    }
  }
}

// --- reductions -----------------------------------------------------------------------

TYPED_TEST(unified_kernels, dot_product_sums_elementwise_products) {
  for (std::size_t n : odd_sizes) {
    const auto x = random_values<double>(n), y = random_values<double>(n);
    const array<double> x_d(this->exec, x), y_d(this->exec, y);
    array<double> result(this->exec, {std::numeric_limits<double>::quiet_NaN()});

    run_kernel_reduction(
        this->exec, [](auto i, auto x, auto y) { return x[i] * y[i]; }, TESSERA_KERNEL_REDUCE_SUM(double), result, n,
        x_d, y_d);

    long double expected = 0, magnitude = 0;
    for (std::size_t i = 0; i < n; ++i) {
      expected += static_cast<long double>(x[i]) * y[i];
      magnitude += std::abs(static_cast<long double>(x[i]) * y[i]);
    }
    EXPECT_NEAR(result.to_host()[0], static_cast<double>(expected),
                tolerance<double>(n) * static_cast<double>(std::max(magnitude, 1.0L)))
        << "n " << n;
  }
}

TYPED_TEST(unified_kernels, norm_applies_finalize_once_to_the_sum) {
  for (std::size_t n : odd_sizes) {
    const auto x = random_values<float>(n);
    const array<float> x_d(this->exec, x);
    array<float> result(this->exec, 1);

    run_kernel_reduction(
        this->exec, [](auto i, auto x) { return x[i] * x[i]; }, [](auto a, auto b) { return a + b; },
        [](auto a) { return sqrt(a); }, 0.0f, result, n, x_d);

    double squares = 0;
    for (float v : x) squares += double(v) * v;
    const double expected = std::sqrt(squares);
    EXPECT_NEAR(result.to_host()[0], expected, tolerance<float>(n) * std::max(expected, 1.0)) << "n " << n;
  }
}

TYPED_TEST(unified_kernels, column_sum_reduces_each_column_over_its_rows) {
  for (auto [rows, cols] : odd_shapes) {
    const auto values = random_values<double>(rows * cols);
    padded<double> m(rows, cols, cols + 3, values);
    const auto m_d = m.on(this->exec);
    array<double> result(this->exec, std::max<std::size_t>(cols, 1));
    result.fill(std::numeric_limits<double>::quiet_NaN());

    run_kernel_col_reduction(
        this->exec, [](auto row, auto col, auto m) { return m(row, col); }, TESSERA_KERNEL_REDUCE_SUM(double), result,
        m_d.size(), m_d);

    const auto got = result.to_host();
    for (std::size_t col = 0; col < cols; ++col) {
      double expected = 0, magnitude = 0;
      for (std::size_t row = 0; row < rows; ++row) {
        expected += values[row * cols + col];
        magnitude += std::abs(values[row * cols + col]);
      }
      EXPECT_NEAR(got[col], expected, tolerance<double>(rows) * std::max(magnitude, 1.0))
          << rows << " x " << cols << ", column " << col;
    }
  }
}

TYPED_TEST(unified_kernels, row_sum_of_wide_rows_matches_host) {
  for (auto [rows, cols] : odd_shapes) {
    const auto values = random_values<float>(rows * cols);
    padded<float> m(rows, cols, cols + 1, values);
    const auto m_d = m.on(this->exec);
    array<float> result(this->exec, std::max<std::size_t>(rows, 1));

    run_kernel_row_reduction(
        this->exec, [](auto row, auto col, auto m) { return m(row, col); }, TESSERA_KERNEL_REDUCE_SUM(float), result, 1,
        m_d.size(), m_d);

    const auto got = result.to_host();
    for (std::size_t row = 0; row < rows; ++row) {
      double expected = 0, magnitude = 0;
      for (std::size_t col = 0; col < cols; ++col) {
        expected += values[row * cols + col];
        magnitude += std::abs(values[row * cols + col]);
      }
      EXPECT_NEAR(got[row], expected, tolerance<float>(cols) * std::max(magnitude, 1.0))
          << rows << " x " << cols << ", row " << row;
    }
  }
}

TYPED_TEST(unified_kernels, max_2d_finds_the_largest_element_even_when_all_are_negative) {
  for (auto [rows, cols] : odd_shapes) {
    const auto values = random_values<float>(rows * cols, -3.0f, -1.0f);
    padded<float> m(rows, cols, cols + 2, values);
    const auto m_d = m.on(this->exec);
    array<float> result(this->exec, 1);

    run_kernel_reduction(
        this->exec, [](auto row, auto col, auto m) { return m(row, col); }, TESSERA_KERNEL_REDUCE_MAX(float), result,
        m_d.size(), m_d);

    const float expected =
        values.empty() ? std::numeric_limits<float>::lowest() : *std::max_element(values.begin(), values.end());
    EXPECT_EQ(result.to_host()[0], expected) << rows << " x " << cols;
  }
}

TYPED_TEST(unified_kernels, empty_reductions_return_the_identity) {
  const array<double> none(this->exec, 0);
  const dense<double> no_rows(this->exec, dim<2>{0, 4}), no_cols(this->exec, dim<2>{3, 0});
  array<double> result(this->exec, 4);
  auto term = [](auto i, auto x) { return x[i]; };
  auto element = [](auto row, auto col, auto m) { return m(row, col); };

  run_kernel_reduction(this->exec, term, TESSERA_KERNEL_REDUCE_SUM(double), result, 0, none);
  EXPECT_EQ(result.to_host()[0], 0.0);
  run_kernel_reduction(this->exec, term, TESSERA_KERNEL_REDUCE_MAX(double), result, 0, none);
  EXPECT_EQ(result.to_host()[0], std::numeric_limits<double>::lowest());
  run_kernel_reduction(this->exec, element, TESSERA_KERNEL_REDUCE_MAX(double), result, no_rows.size(), no_rows);
  EXPECT_EQ(result.to_host()[0], std::numeric_limits<double>::lowest());
  run_kernel_reduction(this->exec, term, [](auto a, auto b) { return a + b; }, [](auto a) { return sqrt(a); }, 0.0,
                       result, 0, none);
  EXPECT_EQ(result.to_host()[0], 0.0);

  result.fill(1.5);
  run_kernel_col_reduction(this->exec, element, TESSERA_KERNEL_REDUCE_MAX(double), result, no_rows.size(), no_rows);
  EXPECT_EQ(result.to_host(), std::vector<double>(4, std::numeric_limits<double>::lowest()));
  result.fill(1.5);
  run_kernel_row_reduction(this->exec, element, TESSERA_KERNEL_REDUCE_SUM(double), result, 1, no_cols.size(), no_cols);
  EXPECT_EQ(result.to_host(), (std::vector<double>{0, 0, 0, 1.5}));
}

TYPED_TEST(unified_kernels, reductions_give_the_same_bits_every_run) {
  const std::size_t n = 300007;
  const array<float> x(this->exec, random_values<float>(n));
  array<float> first(this->exec, 1), again(this->exec, 1);
  auto square = [](auto i, auto x) { return x[i] * x[i]; };
  run_kernel_reduction(this->exec, square, TESSERA_KERNEL_REDUCE_SUM(float), first, n, x);
  for (int run = 0; run < 3; ++run) {
    run_kernel_reduction(this->exec, square, TESSERA_KERNEL_REDUCE_SUM(float), again, n, x);
    ASSERT_EQ(first.to_host(), again.to_host()) << "run " << run;
  }
}

// --- plain kernels: sizes and strides -------------------------------------------------

TYPED_TEST(unified_kernels, one_d_kernel_covers_exactly_the_size) {
  for (std::size_t n : odd_sizes) {
    constexpr std::int64_t untouched = -1;
    array<std::int64_t> out(this->exec, std::vector<std::int64_t>(n + 3, untouched));
    run_kernel(this->exec, [](auto i, auto out) { out[i] = i * 3; }, n, out);
    const auto got = out.to_host();
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], std::int64_t(i) * 3) << "n " << n;
    for (std::size_t i = n; i < n + 3; ++i) ASSERT_EQ(got[i], untouched) << "n " << n << ": wrote past the size";
  }
}

TYPED_TEST(unified_kernels, two_d_kernel_visits_every_element_once_and_keeps_padding) {
  for (auto [rows, cols] : odd_shapes) {
    for (std::size_t extra : {std::size_t{0}, std::size_t{5}}) {
      const auto initial = random_values<double>(rows * cols);
      padded<double> m(rows, cols, cols + extra, initial);
      auto m_d = m.on(this->exec);
      run_kernel(this->exec, [](auto row, auto col, auto m) { m(row, col) += cast<double>(row * 1000 + col); },
                 m_d.size(), m_d);
      const auto got = m_d.to_host();
      for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c)
          ASSERT_EQ(got[r * cols + c], initial[r * cols + c] + double(r * 1000 + c)) << r << ", " << c;
      expect_padding_kept(m_d);
    }
  }
}

TYPED_TEST(unified_kernels, arrays_copy_between_executors) {
  const auto values = random_values<float>(1009);
  const array<float> here(this->exec, values);
  const auto other = tessera::testing::other_executor<TypeParam>();
  const array<float> there(other, here);
  const array<float> back(this->exec, there);
  EXPECT_EQ(there.to_host(), values);
  EXPECT_EQ(back.to_host(), values);

  padded<double> m(7, 3, 8, random_values<double>(21));
  const auto m_d = m.on(this->exec);
  const dense<double> m_other(other, m_d);
  EXPECT_EQ(m_other.stride(), 8u);
  EXPECT_EQ(m_other.to_host(), m.values);
}

// --- bad input --------------------------------------------------------------------------

template <typename F>
void expect_argument_error(F&& f, const std::string& fragment) {
  try {
    f();
    ADD_FAILURE() << "expected an argument_error mentioning '" << fragment << "'";
  } catch (const tessera::argument_error& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TYPED_TEST(unified_kernels, an_array_of_another_executor_is_rejected_by_position) {
  array<float> mine(this->exec, 4);
  array<float> theirs(tessera::testing::other_executor<TypeParam>(), 4);
  expect_argument_error(
      [&] { run_kernel(this->exec, [](auto i, auto x, auto y) { x[i] = y[i]; }, 4, mine, theirs); }, "argument 2");
}

TYPED_TEST(unified_kernels, solver_markers_are_checked) {
  dense<double> x(this->exec, dim<2>{4, 2}, 2), r(this->exec, dim<2>{4, 2}, 3), v(this->exec, dim<2>{2, 2});
  auto kernel = [](auto row, auto col, auto x, auto r) { x(row, col) = r(row, col); };
  expect_argument_error([&] { run_kernel_solver(this->exec, kernel, x.size(), 2, x, default_stride(r)); },
                        "has stride 3, not the default stride 2");
  auto by_col = [](auto row, auto col, auto x, auto v) { x(row, col) = v[col]; };
  expect_argument_error([&] { run_kernel_solver(this->exec, by_col, x.size(), 2, x, row_vector(v)); },
                        "row_vector but has 2 rows");
  expect_argument_error([&] { run_kernel(this->exec, kernel, x.size(), x, default_stride(r)); },
                        "only run_kernel_solver takes");
}

TYPED_TEST(unified_kernels, sizes_that_wrapped_and_short_results_are_rejected) {
  array<float> x(this->exec, 4), small(this->exec, 2);
  const dense<float> m(this->exec, dim<2>{3, 4});
  auto term = [](auto i, auto x) { return x[i]; };
  auto element = [](auto row, auto col, auto m) { return m(row, col); };
  expect_argument_error([&] { run_kernel(this->exec, [](auto i, auto x) { x[i] = 0; }, std::size_t(-1), x); },
                        "run_kernel: size = 18446744073709551615 is 2^63 or more");
  expect_argument_error([&] { (void)dim<2>(-1, 3); }, "negative extent");
  expect_argument_error(
      [&] { run_kernel_col_reduction(this->exec, element, TESSERA_KERNEL_REDUCE_SUM(float), small, m.size(), m); },
      "has 2 elements, the reduction writes 4");
  expect_argument_error(
      [&] { run_kernel_row_reduction(this->exec, element, TESSERA_KERNEL_REDUCE_SUM(float), small, 1, m.size(), m); },
      "has 2 elements, the reduction writes 3");
  expect_argument_error(
      [&] { run_kernel_row_reduction(this->exec, element, TESSERA_KERNEL_REDUCE_SUM(float), x, 0, m.size(), m); },
      "result stride 0");
  // (5 - 1) * 2^62 wraps to 0 in size_t: the results' extent looked like one element (issue 15).
  const dense<float> five(this->exec, dim<2>{5, 4});
  expect_argument_error(
      [&] {
        run_kernel_row_reduction(this->exec, element, TESSERA_KERNEL_REDUCE_SUM(float), x, std::size_t{1} << 62,
                                 five.size(), five);
      },
      "(rows - 1) * result stride = 4 * 4611686018427387904 overflows");
  array<float> none(this->exec, 0);
  expect_argument_error([&] { run_kernel_reduction(this->exec, term, TESSERA_KERNEL_REDUCE_SUM(float), none, 4, x); },
                        "has 0 elements");
  expect_argument_error([&] { (void)dense<float>(this->exec, dim<2>{2, 5}, 3); }, "stride 3 is smaller than the 5 columns");
  expect_argument_error([&] { x.write(std::vector<float>(3)); }, "3 values for an array of 4");
}

}  // namespace
