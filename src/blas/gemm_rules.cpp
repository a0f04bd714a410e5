#include <tessera/blas/gemm_config.hpp>

namespace tessera::blas {

std::vector<gemm_rule_violation> check_gemm_rules(const gemm_params& params, int element_size,
                                                  const gemm_limits& limits) {
  std::vector<gemm_rule_violation> broken;
  if (element_size <= 0) {  // the one divisor of the table; keep the run-time check defined
    broken.push_back({"element_size", "elements are float (4 bytes) or double (8 bytes)"});
    return broken;
  }
  const gemm_rule_inputs inputs = make_rule_inputs(params, element_size, limits);
#define TESSERA_GEMM_INPUT(name, meaning) [[maybe_unused]] const std::int64_t name = inputs.name;
#define TESSERA_GEMM_DERIVED(name, expression) [[maybe_unused]] const std::int64_t name = (expression);
#define TESSERA_GEMM_RULE(name, expression, message) \
  if (!(expression)) broken.push_back({#name, message});
#include <tessera/blas/gemm_rules.def>
#undef TESSERA_GEMM_INPUT
#undef TESSERA_GEMM_DERIVED
#undef TESSERA_GEMM_RULE
  return broken;
}

gemm_derived derive(const gemm_params& params, int element_size) {
  const gemm_rule_inputs inputs = make_rule_inputs(params, element_size > 0 ? element_size : 1, compile_time_limits);
#define TESSERA_GEMM_INPUT(name, meaning) [[maybe_unused]] const std::int64_t name = inputs.name;
#define TESSERA_GEMM_DERIVED(name, expression) const std::int64_t name = (expression);
#define TESSERA_GEMM_RULE(name, expression, message)
#include <tessera/blas/gemm_rules.def>
#undef TESSERA_GEMM_INPUT
#undef TESSERA_GEMM_DERIVED
#undef TESSERA_GEMM_RULE
  return {k_tile, block_rows, block_cols, work_group_size, pad_a, pad_b, local_memory_bytes};
}

}  // namespace tessera::blas
