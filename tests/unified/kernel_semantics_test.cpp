// What a kernel lambda means is what the host loop means, on every executor: control flow,
// local variables, snapshots, conversions, math, the stop status and data-dependent loops.
// Each expectation is computed by plain host code.
#include <gtest/gtest.h>

// The integer test compares signed with unsigned on purpose (the kernel must convert as C++ does).
#pragma GCC diagnostic ignored "-Wsign-compare"

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <support/test_data.hpp>
#include <tessera/unified/unified.hpp>
#include <unified/csr.hpp>
#include <unified/executors.hpp>

namespace {

using namespace tessera::unified;
using tessera::testing::random_values;
using tessera::testing::tolerance;

template <typename Exec>
class kernel_semantics : public ::testing::Test {
 protected:
  std::shared_ptr<const Exec> exec = Exec::create();
};
TYPED_TEST_SUITE(kernel_semantics, tessera::testing::executors, tessera::testing::executor_names);

constexpr std::size_t n = 1031;

TYPED_TEST(kernel_semantics, if_chain_takes_exactly_one_branch) {
  const auto x = random_values<float>(n);
  const array<float> x_d(this->exec, x);
  array<std::int32_t> y(this->exec, n);

  run_kernel(
      this->exec,
      [](auto i, auto x, auto y) {
        y[i] = 0;
        if_(x[i] < -0.5f, [&] { y[i] = 1; })
            .else_if_(x[i] < 0.0f, [&] { y[i] = 2; })
            .else_if_(x[i] < 0.5f, [&] { y[i] = 3; })
            .else_([&] { y[i] += 4; });
      },
      n, x_d, y);

  const auto got = y.to_host();
  for (std::size_t i = 0; i < n; ++i) {
    const int expected = x[i] < -0.5f ? 1 : x[i] < 0.0f ? 2 : x[i] < 0.5f ? 3 : 4;
    ASSERT_EQ(got[i], expected) << "x = " << x[i];
  }
}

TYPED_TEST(kernel_semantics, values_are_snapshots_and_var_copies_are_new_variables) {
  const auto x = random_values<double>(n);
  array<double> x_d(this->exec, x), old(this->exec, n), copy(this->exec, n);

  run_kernel(
      this->exec,
      [](auto i, auto x, auto old, auto copy) {
        auto before = value(x[i]);
        auto twice = x[i] * 2;
        auto a = var(x[i]);
        auto b = a;  // a new variable: changing b leaves a alone
        b += 1;
        x[i] = -1;  // after this, before and twice still hold the old element
        old[i] = before + twice;
        copy[i] = a - b;
      },
      n, x_d, old, copy);

  const auto x_got = x_d.to_host(), old_got = old.to_host(), copy_got = copy.to_host();
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(x_got[i], -1.0);
    ASSERT_EQ(old_got[i], x[i] + x[i] * 2);
    ASSERT_EQ(copy_got[i], x[i] - (x[i] + 1));
  }
}

TYPED_TEST(kernel_semantics, for_loops_with_bounds_from_memory_and_from_the_host) {
  std::mt19937 rng(static_cast<unsigned>(tessera::testing::fresh_seed()));
  std::vector<std::int32_t> counts(n);
  for (auto& c : counts) c = static_cast<std::int32_t>(rng() % 5);  // rows of 0..4 terms
  const array<std::int32_t> counts_d(this->exec, counts);
  array<std::int64_t> out(this->exec, n);

  run_kernel(
      this->exec,
      [](auto i, auto counts, auto out) {
        auto sum = var(zero(out));
        for_(0, counts[i], [&](auto k) { sum += k + 1; });  // bound read from memory
        for_(0, 3, [&](auto k) { sum += k * 100; });        // host bounds: unrolled when traced
        out[i] = sum;
      },
      n, counts_d, out);

  const auto got = out.to_host();
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], counts[i] * (counts[i] + 1) / 2 + 300) << "row " << i;
}

TYPED_TEST(kernel_semantics, spmv_with_data_dependent_row_loops_matches_host) {
  for (std::size_t rows : {0u, 1u, 7u, 1009u}) {
    std::mt19937 rng(static_cast<unsigned>(tessera::testing::fresh_seed()));
    tessera::testing::host_csr<double> a;
    a.rows = rows;
    a.cols = rows + 3;
    for (std::size_t r = 0; r < rows; ++r) {
      const std::size_t entries = rng() % 6;  // empty rows included
      for (std::size_t e = 0; e < entries; ++e) a.col_idxs.push_back(static_cast<std::int32_t>(rng() % a.cols));
      a.row_ptrs.push_back(static_cast<std::int32_t>(a.col_idxs.size()));
    }
    a.values = random_values<double>(a.col_idxs.size());
    const auto x = random_values<double>(a.cols);
    const tessera::testing::csr<double> a_d(this->exec, a);
    const array<double> x_d(this->exec, x);
    array<double> y(this->exec, rows);

    tessera::testing::spmv(this->exec, a_d, x_d, y);

    const auto expected = tessera::testing::host_spmv(a, x);
    const auto got = y.to_host();
    for (std::size_t r = 0; r < rows; ++r) ASSERT_NEAR(got[r], expected[r], tolerance<double>(6)) << "row " << r;
  }
}

TYPED_TEST(kernel_semantics, math_functions_match_the_host) {
  const auto x = random_values<double>(n, -4.0, 4.0);
  const array<double> x_d(this->exec, x);
  dense<double> out(this->exec, dim<2>{n, 8});

  run_kernel(
      this->exec,
      [](auto i, auto x, auto out) {
        out(i, 0) = sqrt(abs(x[i]));
        out(i, 1) = exp(x[i]);
        out(i, 2) = log(abs(x[i]) + 1);
        out(i, 3) = pow(abs(x[i]), 1.5);
        out(i, 4) = max(x[i], 0.25) + min(x[i], -0.25);
        out(i, 5) = tanh(x[i]) + floor(x[i]) + round(x[i]);
        out(i, 6) = select(x[i] > 0, x[i], -x[i]);
        out(i, 7) = safe_divide(x[i], select(x[i] > 1, 0.0, x[i] + 8));
      },
      n, x_d, out);

  const auto got = out.to_host();
  for (std::size_t i = 0; i < n; ++i) {
    const double v = x[i];
    const double expected[8] = {std::sqrt(std::abs(v)),
                                std::exp(v),
                                std::log(std::abs(v) + 1),
                                std::pow(std::abs(v), 1.5),
                                std::max(v, 0.25) + std::min(v, -0.25),
                                std::tanh(v) + std::floor(v) + std::round(v),
                                v > 0 ? v : -v,
                                v > 1 ? 0.0 : v / (v + 8)};
    for (int f = 0; f < 8; ++f)
      ASSERT_NEAR(got[i * 8 + f], expected[f], 64 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(expected[f])))
          << "function " << f << " of " << v;
  }
}

TYPED_TEST(kernel_semantics, integer_arithmetic_and_conversions_follow_cpp_rules) {
  std::mt19937 rng(static_cast<unsigned>(tessera::testing::fresh_seed()));
  std::vector<std::int32_t> a(n), b(n);
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = static_cast<std::int32_t>(rng() % 2001) - 1000;
    b[i] = static_cast<std::int32_t>(rng() % 50) + 1;  // never zero: C++ division by zero is undefined
  }
  const array<std::int32_t> a_d(this->exec, a), b_d(this->exec, b);
  dense<std::int64_t> out(this->exec, dim<2>{n, 7});

  run_kernel(
      this->exec,
      [](auto i, auto a, auto b, auto out, auto shift) {
        out(i, 0) = a[i] / b[i] + a[i] % b[i];
        out(i, 1) = (a[i] << shift) ^ (b[i] >> 1);
        out(i, 2) = (a[i] & 0xff) | (b[i] & 3);
        out(i, 3) = select(a[i] < 2u, 1, 0);  // -5 < 2u is false in C++: -5 converts to unsigned
        out(i, 4) = cast<std::int32_t>(a[i] * 0.37) + cast<std::int64_t>(-a[i]);
        out(i, 5) = abs(a[i]) + max(a[i], b[i]) - min(a[i], 7);
        out(i, 6) = select((a[i] > 0) & (b[i] > 10), 1, 0) + select((a[i] > 0) | (b[i] > 10), 10, 0);
      },
      n, a_d, b_d, out, 3);

  const auto got = out.to_host();
  for (std::size_t i = 0; i < n; ++i) {
    const std::int32_t x = a[i], y = b[i];
    const std::int64_t expected[7] = {x / y + x % y,
                                      (x << 3) ^ (y >> 1),
                                      (x & 0xff) | (y & 3),
                                      x < 2u ? 1 : 0,
                                      static_cast<std::int32_t>(x * 0.37) + static_cast<std::int64_t>(-x),
                                      std::abs(x) + std::max(x, y) - std::min(x, 7),
                                      ((x > 0) & (y > 10) ? 1 : 0) + ((x > 0) | (y > 10) ? 10 : 0)};
    for (int f = 0; f < 7; ++f) ASSERT_EQ(got[i * 7 + f], expected[f]) << "expression " << f << " of " << x << ", " << y;
  }
}

TYPED_TEST(kernel_semantics, scalars_of_each_type_reach_the_kernel) {
  array<double> out(this->exec, 5);
  run_kernel(
      this->exec,
      [](auto i, auto out, auto a, auto b, auto c, auto d, auto e) {
        out[i] = select(i == 0, cast<double>(a), select(i == 1, cast<double>(b), select(i == 2, cast<double>(c),
                                                                               select(i == 3, cast<double>(d), e))));
      },
      5, out, std::int32_t{-7}, std::int64_t{1} << 40, std::uint32_t{4000000000u}, 2.5f, -0.125);
  EXPECT_EQ(out.to_host(), (std::vector<double>{-7, double(std::int64_t{1} << 40), 4000000000.0, 2.5, -0.125}));
}

TYPED_TEST(kernel_semantics, stop_status_updates_are_seen_by_the_host) {
  const std::size_t cols = 9;
  const auto residual = random_values<double>(cols, 0.0, 1.0);
  dense<double> residual_d(this->exec, dim<2>{1, cols}, residual);
  std::vector<stopping_status> initial(cols);
  initial[2].stop(5);  // already stopped: converge() must leave it as it is
  array<stopping_status> stop(this->exec, initial);

  run_kernel(
      this->exec,
      [](auto col, auto residual, auto threshold, auto stop) {
        if_(residual(0, col) < threshold, [&] { stop[col].converge(1); });
      },
      cols, residual_d, 0.5, stop);

  const auto got = stop.to_host();
  for (std::size_t c = 0; c < cols; ++c) {
    if (c == 2) {
      EXPECT_EQ(got[c], initial[2]);
      continue;
    }
    EXPECT_EQ(got[c].has_converged(), residual[c] < 0.5) << "column " << c;
    EXPECT_EQ(got[c].has_stopped(), residual[c] < 0.5) << "column " << c;
    if (residual[c] < 0.5) {
      EXPECT_EQ(got[c].stopping_id(), 1);
      EXPECT_TRUE(got[c].is_finalized());
    }
  }
}

}  // namespace
