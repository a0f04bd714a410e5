#pragma once
// A CSR matrix in unified arrays, its SpMV written with run_kernel and a data-dependent row
// loop, and the 5-point 2-D Poisson matrix: the pieces of the CG test.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <tessera/unified/unified.hpp>

namespace tessera::testing {

template <typename T>
struct host_csr {
  std::size_t rows = 0, cols = 0;
  std::vector<std::int32_t> row_ptrs{0};
  std::vector<std::int32_t> col_idxs;
  std::vector<T> values;
};

template <typename T>
struct csr {
  std::size_t rows, cols;
  unified::array<std::int32_t> row_ptrs;
  unified::array<std::int32_t> col_idxs;
  unified::array<T> values;

  csr(std::shared_ptr<const unified::executor> exec, const host_csr<T>& host)
      : rows(host.rows),
        cols(host.cols),
        row_ptrs(exec, host.row_ptrs),
        col_idxs(exec, host.col_idxs),
        values(exec, host.values) {}
};

/// The 5-point Laplacian of an n x n grid with Dirichlet boundaries (n^2 unknowns).
template <typename T>
host_csr<T> poisson_2d(std::size_t n) {
  host_csr<T> a;
  a.rows = a.cols = n * n;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      auto add = [&](std::size_t col, T v) {
        a.col_idxs.push_back(static_cast<std::int32_t>(col));
        a.values.push_back(v);
      };
      const std::size_t row = i * n + j;
      if (i > 0) add(row - n, T(-1));
      if (j > 0) add(row - 1, T(-1));
      add(row, T(4));
      if (j + 1 < n) add(row + 1, T(-1));
      if (i + 1 < n) add(row + n, T(-1));
      a.row_ptrs.push_back(static_cast<std::int32_t>(a.col_idxs.size()));
    }
  return a;
}

/// y = A x for a single vector, one row per work-item, the row's entries in a for_ loop whose
/// bounds are read from row_ptrs.
template <typename Exec, typename T>
void spmv(const std::shared_ptr<Exec>& exec, const csr<T>& a, const unified::array<T>& x, unified::array<T>& y) {
  using namespace tessera::unified;
  run_kernel(
      exec,
      [](auto row, auto row_ptrs, auto col_idxs, auto values, auto x, auto y) {
        auto sum = var(zero(values));
        for_(row_ptrs[row], row_ptrs[row + 1], [&](auto k) { sum += values[k] * x[col_idxs[k]]; });
        y[row] = sum;
      },
      a.rows, a.row_ptrs, a.col_idxs, a.values, x, y);
}

template <typename T>
std::vector<T> host_spmv(const host_csr<T>& a, const std::vector<T>& x) {
  std::vector<T> y(a.rows, T(0));
  for (std::size_t r = 0; r < a.rows; ++r)
    for (auto k = a.row_ptrs[r]; k < a.row_ptrs[r + 1]; ++k) y[r] += a.values[k] * x[a.col_idxs[k]];
  return y;
}

}  // namespace tessera::testing
