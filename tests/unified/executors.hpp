#pragma once
// The executors every unified test runs on: one test source, instantiated per executor.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <type_traits>

#include <tessera/unified/unified.hpp>

namespace tessera::testing {

using executors = ::testing::Types<unified::omp_executor, unified::opencl_executor>;

struct executor_names {
  template <typename Exec>
  static std::string GetName(int) {
    return std::is_same_v<Exec, unified::omp_executor> ? "omp" : "opencl";
  }
};

/// The other executor kind (arrays on it must be rejected).
template <typename Exec>
auto other_executor() {
  if constexpr (std::is_same_v<Exec, unified::omp_executor>) return unified::opencl_executor::create();
  else return unified::omp_executor::create();
}

}  // namespace tessera::testing
