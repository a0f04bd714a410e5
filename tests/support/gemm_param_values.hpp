#pragma once
// Values of the parameter table for tests that change one parameter at a time.
#include <tessera/blas/gemm_config.hpp>

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace tessera::testing {

/// A choice parameter's value names, in order.
inline std::vector<std::string> choice_values(const blas::gemm_param_info& info) {
  std::vector<std::string> out;
  std::istringstream in{std::string(info.values)};
  for (std::string v; std::getline(in, v, ',');) out.push_back(v.substr(v.find_first_not_of(' ')));
  return out;
}

/// Another allowed value of one component of a parameter (a choice: its index).
inline std::int64_t other_value(const blas::gemm_param_info& info, std::int64_t current) {
  switch (info.kind) {
    case blas::gemm_param_kind::boolean: return 1 - current;
    case blas::gemm_param_kind::choice:
      return (current + 1) % static_cast<std::int64_t>(choice_values(info).size());
    case blas::gemm_param_kind::integer:
    case blas::gemm_param_kind::pair: break;
  }
  for (std::int64_t v = current + 1; v < current + 1000; ++v)
    if (blas::gemm_value_allowed(info.allowed, v)) return v;
  ADD_FAILURE() << info.name << ": no other allowed value after " << current;
  return current;
}

}  // namespace tessera::testing
