#pragma once
// The configurations of generated_combinations.def, for one pair of transposes.
#include <stdexcept>

#include <fmt/format.h>

#include "tune.hpp"

namespace tessera::auto_tuner {

template <bool TransA, bool TransB>
std::vector<candidate> generated_candidates() {
  std::vector<candidate> out;
  // TEXT is the generator's text form of the configuration; the rest are the designated
  // initializers of its gemm_params. The two languages must agree on the text form (results,
  // defaults and select_defaults.py identify a configuration by it): a mismatch stops the tuner.
#define BENCH_PARAMS(TEXT, ...)                                                                                \
  {                                                                                                            \
    using config = ::tessera::blas::gemm_kernel_config<::tessera::blas::gemm_params{__VA_ARGS__}, TransA,      \
                                                       TransB, float>;                                         \
    if (::tessera::blas::to_string(config::params) != TEXT)                                                    \
      throw std::logic_error(fmt::format("generated configuration '{}' is '{}' in C++: gen/gemm_params.py and " \
                                         "gemm_config.hpp read gemm_params.def differently",                   \
                                         TEXT, ::tessera::blas::to_string(config::params)));                   \
    out.push_back(candidate{config::params, &tune<config>});                                                   \
  }
#include "generated_combinations.def"
#undef BENCH_PARAMS
  return out;
}

}  // namespace tessera::auto_tuner
