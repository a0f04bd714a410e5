#pragma once
// --epilogue NAME: tuning a GEMM with an elementwise epilogue attached. The epilogue is a
// kernel-generator expression around matmul(A, B), so the fused kernel is exactly the one the
// library runs for it (the GEMM with the expression in its store step); the same expression
// on C alone is the separate kernel of the unfused paths measured beside it.
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <tessera/baselines/gemm_implementations.hpp>
#include <tessera/blas/gemm.hpp>
#include <tessera/runtime/matrix.hpp>

namespace tessera::auto_tuner {

/// The epilogues --epilogue accepts:
///   bias_relu: C = relu(A * B + bias), bias an m x 1 column broadcast along the rows of C;
///   scale_add: C = 1.5 * A * B + 0.5 * D, D an m x n input.
const std::vector<std::string_view>& epilogue_names();

/// One epilogue on one problem (batch 1): its inputs, C, and the host reference.
class epilogue_problem {
 public:
  virtual ~epilogue_problem() = default;
  const std::string& name() const noexcept { return name_; }
  runtime::matrix<float>& c() noexcept { return c_; }
  /// The epilogue of the host product (column-major m x n) on the host.
  virtual std::vector<float> reference(const std::vector<float>& product) const = 0;
  /// The fused kernel: with params, or the defaults table's configuration (null).
  virtual cl::Event fused(const blas::gemm_params* params) = 0;
  /// The separate elementwise kernel: C holds the product; applies the epilogue in place.
  virtual cl::Event separate() = 0;
  /// The fused kernel's store step (for building its programs ahead).
  virtual std::string store_step_source() = 0;

 protected:
  std::string name_;
  runtime::matrix<float> c_;
};

/// The named epilogue for C = op(A) op(B), A and B given column-major on the host (lda, ldb
/// their rows). Throws argument_error for an unknown name.
std::unique_ptr<epilogue_problem> make_epilogue(std::string_view name, const runtime::context& ctx,
                                                blas::transpose trans_a, blas::transpose trans_b, std::int64_t m,
                                                std::int64_t n, std::int64_t k, const std::vector<float>& host_a,
                                                const std::vector<float>& host_b);

/// The GEMM with the epilogue fused (one kernel, configuration params) writing the epilogue's C.
std::unique_ptr<baselines::gemm_implementation<float>> fused_gemm(std::string name, const runtime::context& ctx,
                                                                  epilogue_problem& epilogue,
                                                                  const blas::gemm_params& params);

/// An unfused path: gemm (which writes the epilogue's C), then the epilogue as a separate kernel
/// on ctx's queue; verified and timed as one.
std::unique_ptr<baselines::gemm_implementation<float>> with_separate_epilogue(
    std::string name, const runtime::context& ctx, epilogue_problem& epilogue,
    std::unique_ptr<baselines::gemm_implementation<float>> gemm);

}  // namespace tessera::auto_tuner
