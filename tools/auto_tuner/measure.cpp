// Verifying and timing one configuration on the tuner's buffers.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include <fmt/format.h>

#include "epilogue.hpp"
#include "tune.hpp"

namespace tessera::auto_tuner {

std::string_view to_string(tune_status status) {
  switch (status) {
    case tune_status::ok: return "ok";
    case tune_status::build_failed: return "build_failed";
    case tune_status::launch_failed: return "launch_failed";
    case tune_status::wrong_result: return "wrong_result";
    case tune_status::unsupported: return "unsupported";
    default: return "skipped";
  }
}

blas::gemm_arguments<float> tune_args::gemm_call(float beta) const {
  blas::gemm_arguments<float> call;
  call.trans_a = trans_a, call.trans_b = trans_b;
  call.m = m, call.n = n, call.k = k, call.alpha = 1.f, call.beta = beta;
  call.a = a, call.lda = lda, call.stride_a = stride_a;
  call.b = b, call.ldb = ldb, call.stride_b = stride_b;
  call.c = c, call.ldc = ldc, call.stride_c = stride_c;
  call.batch_count = batch;
  return call;
}

namespace {

std::string first_lines(std::string_view text, int lines = 3) {
  std::string out;
  for (char ch : text) {
    if (ch == '\n' && --lines == 0) break;
    out += ch == '\n' ? ' ' : ch;
  }
  return out.size() > 300 ? out.substr(0, 300) + "..." : out;
}

// Poisons C, runs once with beta = 0 and compares every element with the reference, so an
// unwritten element (NaN) or a wrong one is caught whatever earlier runs left in C.
std::string verify(const blas::gemm_params& params, const tune_args& args, const blas::gemm_arguments<float>& call) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  runtime::check_cl(args.ctx->queue().enqueueFillBuffer(args.c->handle(), nan, 0, args.c->bytes()), "clEnqueueFillBuffer");
  blas::gemm_with(params, call).wait();
  std::vector<float> got(args.reference->size());
  args.c->read(0, got.size() * sizeof(float), got.data());
  // Values lie in [-1, 1]: a sum of k products is off by at most about k * epsilon.
  const double tolerance = 4.0 * double(std::max<std::int64_t>(args.k, 1)) * std::numeric_limits<float>::epsilon();
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double want = (*args.reference)[i];
    if (!(std::abs(double(got[i]) - want) <= tolerance))
      return fmt::format("element {} is {} instead of {} (tolerance {:.2g})", i, got[i], want, tolerance);
  }
  return {};
}

// The same for the GEMM with the epilogue attached (one kernel), against the host product
// with the epilogue applied.
std::string verify_fused(const blas::gemm_params& params, const tune_args& args) {
  runtime::matrix<float>& c = args.epilogue->c();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  runtime::check_cl(args.ctx->queue().enqueueFillBuffer(c.storage().handle(), nan, 0, c.storage().bytes()),
                    "clEnqueueFillBuffer");
  args.epilogue->fused(&params).wait();
  const std::vector<float> got = c.to_host();
  const double tolerance = 4.0 * double(std::max<std::int64_t>(args.k, 1) + 2) * std::numeric_limits<float>::epsilon();
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double want = (*args.epilogue_reference)[i];
    if (!(std::abs(double(got[i]) - want) <= tolerance * std::max(1.0, std::abs(want))))
      return fmt::format("element {} is {} instead of {} with epilogue {} (tolerance {:.2g})", i, got[i], want,
                         args.epilogue->name(), tolerance);
  }
  return {};
}

}  // namespace

tune_result measure_config(const blas::gemm_params& params, const tune_args& args) {
  tune_result result;
  result.name = blas::to_string(params);
  result.kind = "config";
  result.flops = args.flops();
  auto call = args.gemm_call();
  if (!args.fault_config.empty() && args.fault_config == result.name) call.k = std::max<std::int64_t>(call.k - 1, 0);
  // The GEMM with the epilogue fused, or the plain one: verified, then timed the same way.
  const std::function<cl::Event()> launch = args.epilogue != nullptr
                                                ? std::function<cl::Event()>([&] { return args.epilogue->fused(&params); })
                                                : std::function<cl::Event()>([&] { return blas::gemm_with(params, call); });
  try {
    const auto wrong = args.epilogue != nullptr ? verify_fused(params, args) : verify(params, args, call);
    if (!wrong.empty()) {
      result.status = tune_status::wrong_result;
      result.reason = wrong;
      return result;
    }
    for (int i = 0; i < args.warmups; ++i) launch();
    std::vector<double> seconds;
    for (int i = 0; i < args.repetitions; ++i) seconds.push_back(runtime::elapsed_seconds(launch()));
    std::sort(seconds.begin(), seconds.end());
    result.time = timing{seconds.front(), seconds[seconds.size() / 2], seconds.back()};
    result.status = tune_status::ok;
  } catch (const runtime::build_error& e) {
    result.status = tune_status::build_failed;
    result.reason = first_lines(e.build_log());
  } catch (const runtime::unsupported_error& e) {
    result.status = tune_status::unsupported;
    result.reason = e.what();
  } catch (const std::exception& e) {
    result.status = tune_status::launch_failed;
    result.reason = first_lines(e.what());
  }
  return result;
}

}  // namespace tessera::auto_tuner
