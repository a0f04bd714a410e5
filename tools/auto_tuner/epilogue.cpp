#include "epilogue.hpp"

#include <algorithm>
#include <random>

#include <fmt/format.h>

#include <tessera/kernel_generator/kernel_generator.hpp>

namespace tessera::auto_tuner {

namespace kg = tessera::kernel_generator;
using runtime::matrix;

const std::vector<std::string_view>& epilogue_names() {
  static const std::vector<std::string_view> names{"bias_relu", "scale_add"};
  return names;
}

namespace {

std::vector<float> random_floats(std::size_t n) { return baselines::random_values<float>(n, std::random_device{}()); }

/// What every epilogue shares: the operands as matrices and the product expression.
class problem_base : public epilogue_problem {
 protected:
  problem_base(std::string name, const runtime::context& ctx, blas::transpose ta, blas::transpose tb, std::int64_t m,
               std::int64_t n, std::int64_t k, const std::vector<float>& host_a, const std::vector<float>& host_b)
      : a_(host_a, ta == blas::transpose::trans ? k : m, ta == blas::transpose::trans ? m : k,
           runtime::matrix_view::entire, ctx),
        b_(host_b, tb == blas::transpose::trans ? n : k, tb == blas::transpose::trans ? k : n,
           runtime::matrix_view::entire, ctx),
        ta_(ta == blas::transpose::trans), tb_(tb == blas::transpose::trans), m_(m), n_(n) {
    name_ = std::move(name);
    c_ = matrix<float>(m, n, runtime::matrix_view::entire, ctx);
  }

  /// f(matmul(op(A), op(B))) for the problem's transposes.
  template <typename F>
  decltype(auto) with_product(F&& f) {
    if (ta_ && tb_) return f(kg::matmul(kg::transpose(a_), kg::transpose(b_)));
    if (ta_) return f(kg::matmul(kg::transpose(a_), b_));
    if (tb_) return f(kg::matmul(a_, kg::transpose(b_)));
    return f(kg::matmul(a_, b_));
  }
  /// target = expression, fused with params (or the defaults' configuration).
  template <typename E>
  cl::Event run_fused(const blas::gemm_params* params, E&& e) {
    return params != nullptr ? kg::evaluate_fused_with(*params, c_, std::forward<E>(e)) : kg::evaluate(c_, e);
  }

  matrix<float> a_, b_;
  bool ta_, tb_;
  std::int64_t m_, n_;
};

class bias_relu final : public problem_base {
 public:
  template <typename... A>
  explicit bias_relu(const runtime::context& ctx, A&&... a)
      : problem_base("bias_relu", ctx, std::forward<A>(a)...),
        host_bias_(random_floats(static_cast<std::size_t>(m_))),
        bias_(host_bias_, m_, 1, runtime::matrix_view::entire, ctx) {}

  std::vector<float> reference(const std::vector<float>& product) const override {
    std::vector<float> out(product.size());
    for (std::int64_t j = 0; j < n_; ++j)
      for (std::int64_t i = 0; i < m_; ++i) {
        const auto at = static_cast<std::size_t>(i + j * m_);
        out[at] = std::max(product[at] + host_bias_[static_cast<std::size_t>(i)], 0.f);
      }
    return out;
  }
  cl::Event fused(const blas::gemm_params* params) override {
    return with_product([&](const auto& p) { return run_fused(params, kg::relu(p + kg::colwise_broadcast(bias_))); });
  }
  cl::Event separate() override { return kg::evaluate(c_, kg::relu(c_ + kg::colwise_broadcast(bias_))); }
  std::string store_step_source() override {
    return with_product([&](const auto& p) { return kg::store_step_source(c_, kg::relu(p + kg::colwise_broadcast(bias_))); });
  }

 private:
  std::vector<float> host_bias_;
  matrix<float> bias_;
};

class scale_add final : public problem_base {
 public:
  static constexpr float alpha = 1.5f, beta = 0.5f;
  template <typename... A>
  explicit scale_add(const runtime::context& ctx, A&&... a)
      : problem_base("scale_add", ctx, std::forward<A>(a)...),
        host_d_(random_floats(static_cast<std::size_t>(m_ * n_))),
        d_(host_d_, m_, n_, runtime::matrix_view::entire, ctx) {}

  std::vector<float> reference(const std::vector<float>& product) const override {
    std::vector<float> out(product.size());
    for (std::size_t at = 0; at < out.size(); ++at) out[at] = alpha * product[at] + beta * host_d_[at];
    return out;
  }
  cl::Event fused(const blas::gemm_params* params) override {
    return with_product([&](const auto& p) { return run_fused(params, alpha * p + beta * d_); });
  }
  cl::Event separate() override { return kg::evaluate(c_, alpha * c_ + beta * d_); }
  std::string store_step_source() override {
    return with_product([&](const auto& p) { return kg::store_step_source(c_, alpha * p + beta * d_); });
  }

 private:
  std::vector<float> host_d_;
  matrix<float> d_;
};

/// C of an epilogue as an implementation's result.
class epilogue_output : public baselines::gemm_implementation<float> {
 public:
  epilogue_output(std::string name, const runtime::context& ctx, epilogue_problem& epilogue)
      : gemm_implementation(std::move(name), baselines::processor::opencl_device), ctx_(ctx), epilogue_(epilogue) {}
  void finish() override { ctx_.finish(); }
  void poison() override { baselines::fill_with_nan<float>(ctx_, epilogue_.c().storage()); }
  std::vector<float> result() override { return epilogue_.c().to_host(); }

 protected:
  const runtime::context& ctx_;
  epilogue_problem& epilogue_;
};

class fused final : public epilogue_output {
 public:
  fused(std::string name, const runtime::context& ctx, epilogue_problem& epilogue, const blas::gemm_params& params)
      : epilogue_output(std::move(name), ctx, epilogue), params_(params) {}
  void enqueue() override { epilogue_.fused(&params_); }

 private:
  blas::gemm_params params_;
};

class unfused final : public epilogue_output {
 public:
  unfused(std::string name, const runtime::context& ctx, epilogue_problem& epilogue,
          std::unique_ptr<baselines::gemm_implementation<float>> gemm)
      : epilogue_output(std::move(name), ctx, epilogue), gemm_(std::move(gemm)) {}
  void enqueue() override {
    gemm_->enqueue();
    epilogue_.separate();
  }
  void finish() override {
    gemm_->finish();
    epilogue_output::finish();
  }

 private:
  std::unique_ptr<baselines::gemm_implementation<float>> gemm_;
};

}  // namespace

std::unique_ptr<baselines::gemm_implementation<float>> fused_gemm(std::string name, const runtime::context& ctx,
                                                                  epilogue_problem& epilogue,
                                                                  const blas::gemm_params& params) {
  return std::make_unique<fused>(std::move(name), ctx, epilogue, params);
}

std::unique_ptr<baselines::gemm_implementation<float>> with_separate_epilogue(
    std::string name, const runtime::context& ctx, epilogue_problem& epilogue,
    std::unique_ptr<baselines::gemm_implementation<float>> gemm) {
  return std::make_unique<unfused>(std::move(name), ctx, epilogue, std::move(gemm));
}

std::unique_ptr<epilogue_problem> make_epilogue(std::string_view name, const runtime::context& ctx,
                                                blas::transpose trans_a, blas::transpose trans_b, std::int64_t m,
                                                std::int64_t n, std::int64_t k, const std::vector<float>& host_a,
                                                const std::vector<float>& host_b) {
  if (name == "bias_relu") return std::make_unique<bias_relu>(ctx, trans_a, trans_b, m, n, k, host_a, host_b);
  if (name == "scale_add") return std::make_unique<scale_add>(ctx, trans_a, trans_b, m, n, k, host_a, host_b);
  throw argument_error(fmt::format("unknown epilogue '{}'; valid names: {}", name, fmt::join(epilogue_names(), ", ")));
}

}  // namespace tessera::auto_tuner
