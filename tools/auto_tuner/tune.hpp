#pragma once
// The tuner's interface between the binaries and the generated per-config sources: each
// generated source instantiates tune<Config> for one configuration and four transposes
// (the definition is in tune_impl.hpp, seen by those sources alone, so every configuration
// compiles in its own translation unit, with the library's own flags).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <tessera/baselines/gemm_implementations.hpp>
#include <tessera/blas/gemm.hpp>

namespace tessera::auto_tuner {

class epilogue_problem;

/// How a configuration (or baseline) fared. Only ok results are ranked.
using tune_status = baselines::status;
using baselines::to_string;

struct tune_result {
  std::string name;           // the configuration's text form, or the baseline's name
  std::string kind;  // "baseline", "default" or "config"
  std::optional<blas::gemm_params> params;  // of a default or config row
  tune_status status = tune_status::skipped;
  std::string reason;                     // why, when not ok
  std::optional<baselines::timing> time;  // set when measured
  std::optional<double> build_seconds;
  std::optional<double> max_error;  // max_relative_error against the FP64 reference, when it ran
  double flops = 0;  // floating-point operations of one call
  baselines::processor where = baselines::processor::opencl_device;
  double median_gflops() const { return time ? flops / time->median_seconds * 1e-9 : 0.0; }
  /// The configuration's text form ("" for a baseline).
  std::string configuration() const { return params ? blas::to_string(*params) : std::string(); }
};

/// One problem: operands on the host and the device (in the precision's format), the reference,
/// how to time.
struct tune_args {
  const runtime::context* ctx = nullptr;
  const baselines::gemm_operands<float>* operands = nullptr;
  baselines::gemm_precision precision = baselines::gemm_precision::fp32;  // --precision
  baselines::timing_options timing;
  /// Self-test of the verification: the configuration with this text form runs with K one
  /// short, a wrong kernel call that must be reported as wrong_result and never ranked.
  std::string fault_config;
  /// --epilogue: configurations run fused with it (verified against epilogue_reference).
  epilogue_problem* epilogue = nullptr;
  const std::vector<float>* epilogue_reference = nullptr;

  const baselines::gemm_shape& shape() const { return operands->shape; }
  blas::gemm_arguments<float> gemm_call() const;
  double flops() const { return shape().flops(); }
};

/// The GEMM with params on args' operands (fused with the epilogue when there is one), named
/// name: what measure_config verifies and times, and what the finalists' round-robin times.
std::unique_ptr<baselines::gemm_implementation<float>> config_implementation(const blas::gemm_params& params,
                                                                             const tune_args& args, std::string name);

/// The reference a row of args is verified against, and its tolerance.
const std::vector<float>& reference_of(const tune_args& args);
double tolerance_of(const tune_args& args);

/// Verifies then times one configuration; never throws (failures become the status).
tune_result measure_config(const blas::gemm_params& params, const tune_args& args);

/// The generated sources define this for each typed configuration.
template <typename KernelConfig>
tune_result tune(const tune_args& args);

/// A configuration the binary may run: its value form and its instantiated tune<>.
struct candidate {
  blas::gemm_params params;
  tune_result (*run)(const tune_args&);
};

}  // namespace tessera::auto_tuner
