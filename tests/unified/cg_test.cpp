// A conjugate-gradient solver written only with unified kernels (the seed's step_2 among them,
// a CSR SpMV with a data-dependent row loop), solving a 2-D Poisson problem on both executors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <utility>
#include <vector>

#include <support/test_data.hpp>
#include <tessera/unified/unified.hpp>
#include <unified/csr.hpp>

namespace {

using namespace tessera::unified;
using tessera::testing::csr;
using tessera::testing::host_csr;

struct cg_outcome {
  std::size_t iterations;
  bool converged;
  std::vector<double> x;
};

/// col_result[col] = sum over rows of a(row, col) * b(row, col).
template <typename Exec>
void dot(const std::shared_ptr<const Exec>& exec, const dense<double>& a, const dense<double>& b, dense<double>& result) {
  run_kernel_col_reduction(
      exec, [](auto row, auto col, auto a, auto b) { return a(row, col) * b(row, col); },
      TESSERA_KERNEL_REDUCE_SUM(double), result.values(), a.size(), a, b);
}

template <typename Exec>
void norm(const std::shared_ptr<const Exec>& exec, const dense<double>& a, dense<double>& result) {
  run_kernel_col_reduction(
      exec, [](auto row, auto col, auto a) { return a(row, col) * a(row, col); }, [](auto x, auto y) { return x + y; },
      [](auto x) { return sqrt(x); }, 0.0, result.values(), a.size(), a);
}

/// Unpreconditioned CG from x = 0 until ||r|| <= tolerance * ||b|| for every right-hand side.
template <typename Exec>
cg_outcome solve_cg(const std::shared_ptr<const Exec>& exec, const host_csr<double>& a_host,
                    const std::vector<double>& b_host, double tolerance, std::size_t max_iterations) {
  const std::size_t n = a_host.rows;
  const dim<2> size{n, 1};
  const csr<double> a(exec, a_host);
  const dense<double> b(exec, size, b_host);
  dense<double> x(exec, size), r(exec, size), p(exec, size), q(exec, size);
  dense<double> rho(exec, dim<2>{1, 1}), prev_rho(exec, dim<2>{1, 1}), beta(exec, dim<2>{1, 1});
  dense<double> residual_norm(exec, dim<2>{1, 1}), b_norm(exec, dim<2>{1, 1});
  array<stopping_status> stop(exec, 1);

  run_kernel_solver(
      exec,
      [](auto row, auto col, auto b, auto r, auto x, auto p, auto q, auto prev_rho, auto stop) {
        r(row, col) = b(row, col);
        x(row, col) = 0;
        p(row, col) = 0;
        q(row, col) = 0;
        if_(row == 0, [&] {
          prev_rho[col] = 1;
          stop[col].reset();
        });
      },
      size, r.stride(), b, default_stride(r), default_stride(x), default_stride(p), default_stride(q),
      row_vector(prev_rho), stop);
  norm(exec, b, b_norm);

  std::size_t iteration = 0;
  bool converged = false;
  for (;; ++iteration) {
    norm(exec, r, residual_norm);
    run_kernel(
        exec,
        [](auto col, auto residual, auto b_norm, auto tolerance, auto stop) {
          if_(residual[col] <= tolerance * b_norm[col], [&] { stop[col].converge(1); });
        },
        1, residual_norm.values(), b_norm.values(), tolerance, stop);
    converged = stop.to_host()[0].has_converged();
    if (converged || iteration == max_iterations) break;

    dot(exec, r, r, rho);  // no preconditioner: z = r
    run_kernel_solver(
        exec,
        [](auto row, auto col, auto z, auto p, auto rho, auto prev_rho, auto stop) {
          if_(!stop[col].has_stopped(), [&] {
            auto tmp = safe_divide(rho[col], prev_rho[col]);
            p(row, col) = z(row, col) + tmp * p(row, col);
          });
        },
        size, p.stride(), default_stride(r), default_stride(p), row_vector(rho), row_vector(prev_rho), stop);
    tessera::testing::spmv(exec, a, p.values(), q.values());
    dot(exec, p, q, beta);
    // The seed's step_2.
    run_kernel_solver(
        exec,
        [](auto row, auto col, auto x, auto r, auto p, auto q, auto beta, auto rho, auto stop) {
          if_(!stop[col].has_stopped(), [&] {
            auto tmp = safe_divide(rho[col], beta[col]);
            x(row, col) += tmp * p(row, col);
            r(row, col) -= tmp * q(row, col);
          });
        },
        x.size(), r.stride(), x, default_stride(r), default_stride(p), default_stride(q), row_vector(beta),
        row_vector(rho), stop);
    std::swap(rho, prev_rho);
  }
  return {iteration, converged, x.to_host()};
}

double relative_residual(const host_csr<double>& a, const std::vector<double>& x, const std::vector<double>& b) {
  const auto ax = tessera::testing::host_spmv(a, x);
  long double residual = 0, rhs = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    residual += (static_cast<long double>(b[i]) - ax[i]) * (static_cast<long double>(b[i]) - ax[i]);
    rhs += static_cast<long double>(b[i]) * b[i];
  }
  return static_cast<double>(std::sqrt(residual / rhs));
}

TEST(unified_cg, poisson_256x256_converges_on_both_executors_with_iteration_counts_within_one) {
  const auto a = tessera::testing::poisson_2d<double>(256);
  const auto b = tessera::testing::random_values<double>(a.rows);
  constexpr double tolerance = 1e-6;

  const auto on_host = solve_cg(omp_executor::create(), a, b, tolerance, 3000);
  const auto on_device = solve_cg(opencl_executor::create(), a, b, tolerance, 3000);

  ASSERT_TRUE(on_host.converged) << on_host.iterations << " iterations";
  ASSERT_TRUE(on_device.converged) << on_device.iterations << " iterations";
  EXPECT_LE(relative_residual(a, on_host.x, b), tolerance);
  EXPECT_LE(relative_residual(a, on_device.x, b), tolerance);
  EXPECT_LE(std::abs(static_cast<long>(on_host.iterations) - static_cast<long>(on_device.iterations)), 1)
      << "omp: " << on_host.iterations << ", opencl: " << on_device.iterations;
  RecordProperty("iterations_omp", std::to_string(on_host.iterations));
  RecordProperty("iterations_opencl", std::to_string(on_device.iterations));
}

}  // namespace
