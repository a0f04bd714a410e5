#pragma once
// Shared arrangements of the Tile tests: random inputs, running a program on the device and
// in the reference interpreter, comparing with a direct C++ loop.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <tessera/tile/tile.hpp>

#include "support/test_data.hpp"

namespace tessera::tile::testing {

template <typename T>
host_tensor<T> random_tensor(const shape& dims) {
  const auto n = static_cast<std::size_t>(element_count(dims));
  return host_tensor<T>(dims, tessera::testing::random_values<T>(n));
}

template <typename T>
std::vector<host_tensor<T>> random_inputs(const std::vector<shape>& shapes) {
  std::vector<host_tensor<T>> out;
  for (const auto& s : shapes) out.push_back(random_tensor<T>(s));
  return out;
}

/// Runs f on the device and returns the outputs on the host.
template <typename T>
std::vector<host_tensor<T>> run_on_device(const function& f, const std::vector<host_tensor<T>>& inputs) {
  std::vector<tensor<T>> device;
  for (const auto& h : inputs) device.emplace_back(h);
  std::vector<host_tensor<T>> out;
  for (const auto& t : f.run<T>(device)) out.push_back(t.to_host_tensor());
  return out;
}

/// Element-by-element comparison within tol * max(1, |expected|); reports the first mismatches.
template <typename T, typename U>
void expect_close(const host_tensor<T>& actual, const shape& expected_shape, const std::vector<U>& expected, double tol,
                  const std::string& what) {
  ASSERT_EQ(actual.dims, expected_shape) << what << ": shape";
  ASSERT_EQ(actual.values.size(), expected.size()) << what;
  int reported = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const double a = static_cast<double>(actual.values[i]), e = static_cast<double>(expected[i]);
    if (!(std::abs(a - e) <= tol * std::max(1.0, std::abs(e)))) {
      ADD_FAILURE() << what << ": element " << i << " is " << a << ", expected " << e;
      if (++reported == 5) return;
    }
  }
}

/// The direct computation of a test: the expected outputs from the inputs, in double.
template <typename T>
using direct_loop = std::function<std::vector<std::vector<double>>(const std::vector<host_tensor<T>>&)>;

/// Runs source on fresh random inputs of the given shapes on the device and in the interpreter,
/// and compares both with the direct loop. terms: values summed per output (for the tolerance).
template <typename T>
void expect_all_agree(const std::string& source, const std::vector<shape>& shapes, const direct_loop<T>& loop,
                      std::size_t terms, const function* compiled = nullptr) {
  SCOPED_TRACE(fmt::format("shapes {}", fmt::join([&] {
                                           std::vector<std::string> s;
                                           for (const auto& x : shapes) s.push_back(to_string(x));
                                           return s;
                                         }(),
                                         " ")));
  const function f = compiled ? *compiled : compile(source);
  const auto inputs = random_inputs<T>(shapes);
  const auto reference = interpret<T>(f.checked(), inputs);
  const auto device = run_on_device<T>(f, inputs);
  const auto expected = loop(inputs);
  ASSERT_EQ(reference.size(), expected.size());
  ASSERT_EQ(device.size(), expected.size());
  const double tol = tessera::testing::tolerance<T>(terms);
  for (std::size_t o = 0; o < expected.size(); ++o) {
    expect_close(reference[o], reference[o].dims, expected[o], tol, fmt::format("reference output {}", o));
    expect_close(device[o], reference[o].dims, reference[o].values, tol, fmt::format("device output {}", o));
  }
}

/// Row-major element of a host tensor.
template <typename T>
double at(const host_tensor<T>& t, std::initializer_list<std::int64_t> index) {
  std::int64_t o = 0;
  std::size_t k = 0;
  for (const auto i : index) o = o * t.dims[k++] + i;
  return static_cast<double>(t.values[static_cast<std::size_t>(o)]);
}

}  // namespace tessera::tile::testing
