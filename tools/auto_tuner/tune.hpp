#pragma once
// The tuner's interface between the binaries and the generated per-config sources: each
// generated source instantiates tune<Config> for one configuration and four transposes
// (the definition is in tune_impl.hpp, seen by those sources alone, so every configuration
// compiles in its own translation unit, with the library's own flags).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <tessera/blas/gemm.hpp>

namespace tessera::auto_tuner {

class epilogue_problem;

/// How a configuration (or baseline) fared. Only ok results are ranked.
enum class tune_status { ok, build_failed, launch_failed, wrong_result, unsupported, skipped };
std::string_view to_string(tune_status status);

struct timing {
  double min_seconds = 0, median_seconds = 0, max_seconds = 0;
};

struct tune_result {
  std::string name;  // the configuration's text form, or the baseline's name
  std::string kind;  // "baseline", "default" or "config"
  tune_status status = tune_status::skipped;
  std::string reason;              // why, when not ok
  std::optional<timing> time;      // set when ok
  std::optional<double> build_seconds;
  double flops = 0;                // floating-point operations of one call
  double median_gflops() const { return time ? flops / time->median_seconds * 1e-9 : 0.0; }
};

/// One problem: buffers on the device, the host reference, how to time.
struct tune_args {
  const runtime::context* ctx = nullptr;
  blas::transpose trans_a = blas::transpose::none, trans_b = blas::transpose::none;
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  std::int64_t lda = 0, ldb = 0, ldc = 0, stride_a = 0, stride_b = 0, stride_c = 0;
  const runtime::device_buffer* a = nullptr;
  const runtime::device_buffer* b = nullptr;
  const runtime::device_buffer* c = nullptr;
  const std::vector<float>* reference = nullptr;  // column-major C = op(A) op(B), every batch entry
  int warmups = 1;
  int repetitions = 5;
  /// Self-test of the verification: the configuration with this text form runs with K one
  /// short, a wrong kernel call that must be reported as wrong_result and never ranked.
  std::string fault_config;
  /// --epilogue: configurations run fused with it (verified against epilogue_reference).
  epilogue_problem* epilogue = nullptr;
  const std::vector<float>* epilogue_reference = nullptr;

  blas::gemm_arguments<float> gemm_call(float beta = 0.f) const;
  double flops() const { return 2.0 * double(m) * double(n) * double(k) * double(batch); }
};

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
