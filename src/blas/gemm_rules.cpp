#include <tessera/blas/gemm_config.hpp>

namespace tessera::blas {

std::vector<gemm_rule_violation> check_gemm_rules(const gemm_params& params, int element_size,
                                                  const gemm_limits& limits) {
  std::vector<gemm_rule_violation> broken;
  if (element_size <= 0) {  // the one divisor of the table; keep the run-time check defined
    broken.push_back({"element_size", "elements are float (4 bytes) or double (8 bytes)"});
    return broken;
  }
  const gemm_rule_values v(make_rule_inputs(params, element_size, limits));
#define TESSERA_GEMM_CHECK(name, condition, message) \
  if (!(condition)) broken.push_back({#name, message});
#include <tessera/blas/detail/gemm_checks.inc>
#undef TESSERA_GEMM_CHECK
  return broken;
}

}  // namespace tessera::blas
