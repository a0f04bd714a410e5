#pragma once
// The configurations of generated_combinations.def, for one pair of transposes.
#include "tune.hpp"

namespace tessera::auto_tuner {

template <bool TransA, bool TransB>
std::vector<candidate> generated_candidates() {
  std::vector<candidate> out;
  // The variadic part is VW, CLS, TILE, DB, NBCA, NBCB (TILE has commas of its own).
#define BENCH_PARAMS(MEM, ALG, BATCH, VEC, ...)                                                           \
  {                                                                                                       \
    using config = ::tessera::blas::gemm_kernel_config<                                                   \
        __VA_ARGS__, ::tessera::blas::gemm_config<TransA, TransB, MEM, ALG, BATCH, VEC>, float>;          \
    out.push_back(candidate{config::params, &tune<config>});                                              \
  }
#include "generated_combinations.def"
#undef BENCH_PARAMS
  return out;
}

}  // namespace tessera::auto_tuner
