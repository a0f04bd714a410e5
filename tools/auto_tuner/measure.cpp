// Verifying and timing one configuration on the tuner's operands.
#include <algorithm>

#include "epilogue.hpp"
#include "tune.hpp"

namespace tessera::auto_tuner {

blas::gemm_arguments<float> tune_args::gemm_call() const {
  const auto& s = shape();
  blas::gemm_arguments<float> call;
  call.trans_a = s.trans_a ? blas::transpose::trans : blas::transpose::none;
  call.trans_b = s.trans_b ? blas::transpose::trans : blas::transpose::none;
  call.m = s.m, call.n = s.n, call.k = s.k, call.alpha = 1.f, call.beta = 0.f;
  call.a = &operands->a, call.lda = s.lda(), call.stride_a = s.stride_a();
  call.b = &operands->b, call.ldb = s.ldb(), call.stride_b = s.stride_b();
  call.c = &operands->c, call.ldc = s.ldc(), call.stride_c = s.stride_c();
  call.batch_count = s.batch;
  call.math = baselines::math_of(precision);
  call.operands = baselines::operands_of(precision);
  return call;
}

std::unique_ptr<baselines::gemm_implementation<float>> config_implementation(const blas::gemm_params& params,
                                                                             const tune_args& args, std::string name) {
  if (args.epilogue != nullptr) return fused_gemm(std::move(name), *args.ctx, *args.epilogue, params);
  baselines::gemm_shape shape = args.shape();
  if (!args.fault_config.empty() && args.fault_config == blas::to_string(params))
    shape.k = std::max<std::int64_t>(shape.k - 1, 0);
  const auto& o = *args.operands;
  return baselines::tessera_gemm<float>(std::move(name), *args.ctx, params, shape, o.a, o.b, o.c,
                                        baselines::math_of(args.precision), baselines::operands_of(args.precision));
}

const std::vector<float>& reference_of(const tune_args& args) {
  return args.epilogue != nullptr ? *args.epilogue_reference : args.operands->reference;
}

double tolerance_of(const tune_args& args) {
  // The epilogue adds a rounding or two to the product's.
  return baselines::gemm_tolerance(args.precision, args.shape().k + (args.epilogue != nullptr ? 2 : 0));
}

tune_result measure_config(const blas::gemm_params& params, const tune_args& args) {
  tune_result result;
  result.name = blas::to_string(params);
  result.params = params;
  result.kind = "config";
  result.flops = args.flops();
  const auto gemm = config_implementation(params, args, result.name);
  const auto m = baselines::verify_and_time(*gemm, reference_of(args), tolerance_of(args), args.timing);
  result.status = m.outcome;
  result.reason = m.reason;
  result.time = m.time;
  result.max_error = m.max_error;
  return result;
}

}  // namespace tessera::auto_tuner
