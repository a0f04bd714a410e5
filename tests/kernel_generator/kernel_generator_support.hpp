#pragma once
// Shared by the kernel generator's tests: random device matrices, the shapes every family is
// checked at, and comparison of a device result with the host evaluation of the same
// expression.
#include <tessera/kernel_generator/kernel_generator.hpp>
#include <tessera/kernel_generator/reduction_plan.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "support/test_data.hpp"

namespace tessera::testing {

namespace kg = tessera::kernel_generator;

/// rows x cols of fresh random values in [low, high), never zero.
template <typename T>
matrix<T> random_matrix(index_t rows, index_t cols, T low = T(-1), T high = T(1),
                        matrix_view view = matrix_view::entire) {
  return matrix<T>(random_values<T>(static_cast<std::size_t>(rows * cols), low, high), rows, cols, view);
}

struct test_shape {
  index_t rows, cols;
};
inline std::string to_string(test_shape s) { return std::to_string(s.rows) + "x" + std::to_string(s.cols); }

/// 1x1, a row and a column vector, primes, a shape with more columns than rows, and empties.
inline const std::vector<test_shape>& test_shapes() {
  static const std::vector<test_shape> shapes{{1, 1}, {1, 37}, {37, 1}, {7, 13}, {31, 17}, {0, 5}, {5, 0}};
  return shapes;
}

/// Every element of device equals host within tol relative to max(1, |expected|); NaNs must
/// match NaNs and infinities must match exactly.
template <typename T, typename H>
::testing::AssertionResult matches_host(const matrix<T>& device, const kg::host_matrix<H>& host, double tol) {
  if (device.rows() != host.rows || device.cols() != host.cols)
    return ::testing::AssertionFailure() << "shape " << device.rows() << "x" << device.cols() << ", host "
                                         << host.rows << "x" << host.cols;
  const std::vector<T> values = device.to_host();
  std::size_t wrong = 0;
  std::string first;
  for (index_t j = 0; j < host.cols; ++j)
    for (index_t i = 0; i < host.rows; ++i) {
      const double got = values[static_cast<std::size_t>(i + j * host.rows)];
      const double expected = static_cast<double>(host(i, j));
      const bool ok = std::isnan(expected)   ? std::isnan(got)
                      : std::isinf(expected) ? got == expected
                                             : std::abs(got - expected) <= tol * std::max(1.0, std::abs(expected));
      if (!ok && wrong++ == 0)
        first = "(" + std::to_string(i) + ", " + std::to_string(j) + "): device " + std::to_string(got) +
                ", host " + std::to_string(expected);
    }
  if (wrong == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << wrong << " of " << host.values.size() << " elements differ, first "
                                       << first;
}

/// The relative tolerance of a few elementwise operations in T.
template <typename T>
double elementwise_tolerance() {
  return 4 * static_cast<double>(tolerance<T>(1));
}

}  // namespace tessera::testing

namespace tessera::testing {

/// Typed tests run for float and double; double is skipped on a device without fp64.
using value_types = ::testing::Types<float, double>;

template <typename T>
bool device_lacks_precision() {
  return std::is_same_v<T, double> && !runtime::context::get().device().has_fp64;
}

}  // namespace tessera::testing

namespace tessera::testing {

/// A device described by hand: only its type and compute units matter to a launch plan.
inline runtime::device_info device_like(runtime::device_type type, std::uint32_t units) {
  runtime::device_info d;
  d.type = type;
  d.compute_units = units;
  d.name = std::string(runtime::to_string(type)) + " of " + std::to_string(units) + " compute units";
  return d;
}
inline runtime::device_info gpu_like(std::uint32_t units) { return device_like(runtime::device_type::gpu, units); }
inline runtime::device_info cpu_like(std::uint32_t cores) { return device_like(runtime::device_type::cpu, cores); }

/// Plans launches (reductions, elementwise splits) as for `device` while it lives: a GPU's
/// layout runs on PoCL too.
class planned_as {
 public:
  explicit planned_as(const runtime::device_info& device) : device_(device) {
    kernel_generator::plan_launches_as(&device_);
  }
  ~planned_as() { kernel_generator::plan_launches_as(nullptr); }
  planned_as(const planned_as&) = delete;
  planned_as& operator=(const planned_as&) = delete;

 private:
  runtime::device_info device_;
};

}  // namespace tessera::testing

#define TESSERA_SKIP_WITHOUT_PRECISION(T) \
  if (::tessera::testing::device_lacks_precision<T>()) GTEST_SKIP() << "the device has no fp64"
