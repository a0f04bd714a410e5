#pragma once
// The definition of tune<Config>, for the generated per-config sources alone.
#include "tune.hpp"

namespace tessera::auto_tuner {

template <typename KernelConfig>
tune_result tune(const tune_args& args) {
  // KernelConfig's instantiation has checked every rule of gemm_params.def and gemm_rules.def.
  static_assert(std::is_same_v<typename KernelConfig::value_type, float>, "the tuner tunes float GEMM");
  return measure_config(KernelConfig::params, args);
}

}  // namespace tessera::auto_tuner
