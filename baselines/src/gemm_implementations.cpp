#include <tessera/baselines/gemm_implementations.hpp>

#include <limits>
#include <optional>

#include <clblast_c.h>
#include <fmt/format.h>

#include <tessera/blas/gemm.hpp>

namespace tessera::baselines {

std::string_view to_string(status s) {
  switch (s) {
    case status::ok: return "ok";
    case status::build_failed: return "build_failed";
    case status::launch_failed: return "launch_failed";
    case status::wrong_result: return "wrong_result";
    case status::unsupported: return "unsupported";
    case status::implausible: return "implausible";
    default: return "skipped";
  }
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

template <typename T>
std::vector<T> read_back(const runtime::device_buffer& c) {
  std::vector<T> out(c.bytes() / sizeof(T));
  c.read(0, c.bytes(), out.data());
  return out;
}

std::string clblast_status_name(CLBlastStatusCode code) {
  // -3 to -63 are OpenCL's own codes.
  if (code > -1000) return std::string(runtime::cl_error_name(code));
  switch (code) {
    case CLBlastNotImplemented: return "CLBlastNotImplemented";
    case CLBlastInvalidMatrixA: return "CLBlastInvalidMatrixA";
    case CLBlastInvalidMatrixB: return "CLBlastInvalidMatrixB";
    case CLBlastInvalidMatrixC: return "CLBlastInvalidMatrixC";
    case CLBlastInvalidDimension: return "CLBlastInvalidDimension";
    case CLBlastInvalidLeadDimA: return "CLBlastInvalidLeadDimA";
    case CLBlastInvalidLeadDimB: return "CLBlastInvalidLeadDimB";
    case CLBlastInvalidLeadDimC: return "CLBlastInvalidLeadDimC";
    case CLBlastInsufficientMemoryA: return "CLBlastInsufficientMemoryA";
    case CLBlastInsufficientMemoryB: return "CLBlastInsufficientMemoryB";
    case CLBlastInsufficientMemoryC: return "CLBlastInsufficientMemoryC";
    case CLBlastInvalidBatchCount: return "CLBlastInvalidBatchCount";
    case CLBlastInvalidLocalMemUsage: return "CLBlastInvalidLocalMemUsage";
    case CLBlastNoDoublePrecision: return "CLBlastNoDoublePrecision";
    case CLBlastDatabaseError: return "CLBlastDatabaseError";
    default: return fmt::format("CLBlast status {}", int(code));
  }
}

/// An implementation on ctx's queue writing C into a device buffer.
template <typename T>
class on_opencl_device : public gemm_implementation<T> {
 public:
  on_opencl_device(std::string name, const runtime::context& ctx, const runtime::device_buffer& c)
      : gemm_implementation<T>(std::move(name), processor::opencl_device), ctx_(ctx), c_(c) {}
  void finish() override { ctx_.finish(); }
  void poison() override { fill_with_nan<T>(ctx_, c_); }
  std::vector<T> result() override { return read_back<T>(c_); }

 protected:
  const runtime::context& ctx_;
  const runtime::device_buffer& c_;
};

template <typename T>
class clblast_implementation final : public on_opencl_device<T> {
 public:
  clblast_implementation(const runtime::context& ctx, const gemm_shape& shape, const runtime::device_buffer& a,
                         const runtime::device_buffer& b, const runtime::device_buffer& c)
      : on_opencl_device<T>("CLBlast", ctx, c), shape_(shape), a_(a), b_(b) {}
  void enqueue() override {
    enqueue_clblast_gemm<T>(shape_, a_.handle()(), b_.handle()(), this->c_.handle()(), this->ctx_.queue()());
  }

 private:
  gemm_shape shape_;
  const runtime::device_buffer &a_, &b_;
};

template <typename T>
class openblas_implementation final : public gemm_implementation<T> {
 public:
  openblas_implementation(const gemm_shape& shape, const std::vector<T>& a, const std::vector<T>& b)
      : gemm_implementation<T>("OpenBLAS (host)", processor::host), shape_(shape), a_(a), b_(b),
        c_(std::size_t(shape.stride_c() * shape.batch)) {}
  void enqueue() override { host_gemm(shape_, a_.data(), b_.data(), c_.data()); }
  void finish() override {}
  void poison() override { std::fill(c_.begin(), c_.end(), std::numeric_limits<T>::quiet_NaN()); }
  std::vector<T> result() override { return c_; }

 private:
  gemm_shape shape_;
  const std::vector<T>&a_, &b_;
  std::vector<T> c_;
};

template <typename T>
class tessera_implementation final : public on_opencl_device<T> {
 public:
  tessera_implementation(std::string name, const runtime::context& ctx, std::optional<blas::gemm_params> params,
                         const gemm_shape& shape, const runtime::device_buffer& a, const runtime::device_buffer& b,
                         const runtime::device_buffer& c, blas::math_mode math, blas::operand_type operands)
      : on_opencl_device<T>(std::move(name), ctx, c), params_(params) {
    call_.math = math;
    call_.operands = operands;
    call_.trans_a = shape.trans_a ? blas::transpose::trans : blas::transpose::none;
    call_.trans_b = shape.trans_b ? blas::transpose::trans : blas::transpose::none;
    call_.m = shape.m, call_.n = shape.n, call_.k = shape.k, call_.alpha = T(1), call_.beta = T(0);
    call_.a = &a, call_.lda = shape.lda(), call_.stride_a = shape.stride_a();
    call_.b = &b, call_.ldb = shape.ldb(), call_.stride_b = shape.stride_b();
    call_.c = &c, call_.ldc = shape.ldc(), call_.stride_c = shape.stride_c();
    call_.batch_count = shape.batch;
    // finish() waits for everything on the queue, so no event is made: the terms CLBlast's row is
    // called on (a null event pointer), and cuBLAS makes none.
    call_.event = runtime::launch_event::none;
  }
  void enqueue() override {
    if (params_) blas::gemm_with(*params_, call_);
    else blas::gemm(call_);
  }

 private:
  std::optional<blas::gemm_params> params_;  // none: the defaults' pick, as blas::gemm runs it
  blas::gemm_arguments<T> call_;
};

}  // namespace

template <typename T>
void fill_with_nan(const runtime::context& ctx, const runtime::device_buffer& buffer) {
  if (buffer.bytes() == 0) return;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  runtime::check_cl(ctx.queue().enqueueFillBuffer(buffer.handle(), nan, 0, buffer.bytes()), "clEnqueueFillBuffer");
}

measurement failure_of(const std::exception& e) {
  measurement m;
  if (const auto* build = dynamic_cast<const runtime::build_error*>(&e)) {
    m.outcome = status::build_failed;
    m.reason = first_lines(build->build_log());
  } else if (dynamic_cast<const runtime::unsupported_error*>(&e) != nullptr) {
    m.outcome = status::unsupported;
    m.reason = e.what();
  } else {
    m.outcome = status::launch_failed;
    m.reason = first_lines(e.what());
  }
  return m;
}

template <typename T>
std::vector<T> result_of_one_call(gemm_implementation<T>& gemm) {
  gemm.poison();
  gemm.enqueue();
  gemm.finish();
  return gemm.result();
}

template <typename T>
measurement verify_and_time(gemm_implementation<T>& gemm, const std::vector<T>& reference, double tolerance,
                            const timing_options& options) {
  try {
    measurement m;
    const auto got = result_of_one_call(gemm);
    m.max_error = max_relative_error(got, reference);
    m.reason = first_mismatch(got, reference, tolerance);
    if (!m.reason.empty()) {
      m.outcome = status::wrong_result;
      return m;
    }
    m.time = time_calls(gemm.call(), options);
    m.outcome = status::ok;
    return m;
  } catch (const std::exception& e) {
    return failure_of(e);
  }
}

template <typename T>
void enqueue_clblast_gemm(const gemm_shape& s, cl_mem a, cl_mem b, cl_mem c, cl_command_queue queue) {
  const auto op = [](bool t) { return t ? CLBlastTransposeYes : CLBlastTransposeNo; };
  const auto layout = CLBlastLayoutColMajor;
  const std::size_t lda = std::size_t(s.lda()), ldb = std::size_t(s.ldb()), ldc = std::size_t(s.ldc());
  const std::size_t m = std::size_t(s.m), n = std::size_t(s.n), k = std::size_t(s.k);
  CLBlastStatusCode code{};
  const char* routine = nullptr;
  constexpr bool single = std::is_same_v<T, float>;
  if (s.batch == 1) {
    routine = single ? "CLBlastSgemm" : "CLBlastDgemm";
    if constexpr (single)
      code = CLBlastSgemm(layout, op(s.trans_a), op(s.trans_b), m, n, k, 1.f, a, 0, lda, b, 0, ldb, 0.f, c, 0, ldc,
                          &queue, nullptr);
    else
      code = CLBlastDgemm(layout, op(s.trans_a), op(s.trans_b), m, n, k, 1.0, a, 0, lda, b, 0, ldb, 0.0, c, 0, ldc,
                          &queue, nullptr);
  } else {
    routine = single ? "CLBlastSgemmStridedBatched" : "CLBlastDgemmStridedBatched";
    const std::size_t sa = std::size_t(s.stride_a()), sb = std::size_t(s.stride_b()), sc = std::size_t(s.stride_c());
    const std::size_t batch = std::size_t(s.batch);
    if constexpr (single)
      code = CLBlastSgemmStridedBatched(layout, op(s.trans_a), op(s.trans_b), m, n, k, 1.f, a, 0, lda, sa, b, 0, ldb,
                                        sb, 0.f, c, 0, ldc, sc, batch, &queue, nullptr);
    else
      code = CLBlastDgemmStridedBatched(layout, op(s.trans_a), op(s.trans_b), m, n, k, 1.0, a, 0, lda, sa, b, 0, ldb,
                                        sb, 0.0, c, 0, ldc, sc, batch, &queue, nullptr);
  }
  if (code == CLBlastSuccess) return;
  const auto what = fmt::format("{} ({}): {}", routine, s.name(), clblast_status_name(code));
  if (code == CLBlastNoDoublePrecision) throw unsupported_error(what);
  throw baseline_error(what);
}

template <typename T>
std::unique_ptr<gemm_implementation<T>> clblast_gemm(const runtime::context& ctx, const gemm_shape& shape,
                                                     const runtime::device_buffer& a, const runtime::device_buffer& b,
                                                     const runtime::device_buffer& c) {
  return std::make_unique<clblast_implementation<T>>(ctx, shape, a, b, c);
}

template <typename T>
std::unique_ptr<gemm_implementation<T>> openblas_gemm(const gemm_shape& shape, const std::vector<T>& host_a,
                                                      const std::vector<T>& host_b) {
  return std::make_unique<openblas_implementation<T>>(shape, host_a, host_b);
}

template <typename T>
std::unique_ptr<gemm_implementation<T>> tessera_gemm(std::string name, const runtime::context& ctx,
                                                     const blas::gemm_params& params, const gemm_shape& shape,
                                                     const runtime::device_buffer& a, const runtime::device_buffer& b,
                                                     const runtime::device_buffer& c, blas::math_mode math,
                                                     blas::operand_type operands) {
  return std::make_unique<tessera_implementation<T>>(std::move(name), ctx, params, shape, a, b, c, math, operands);
}

template <typename T>
std::unique_ptr<gemm_implementation<T>> tessera_default_gemm(std::string name, const runtime::context& ctx,
                                                             const gemm_shape& shape, const runtime::device_buffer& a,
                                                             const runtime::device_buffer& b,
                                                             const runtime::device_buffer& c) {
  return std::make_unique<tessera_implementation<T>>(std::move(name), ctx, std::nullopt, shape, a, b, c,
                                                     blas::math_mode::exact, blas::operand_type::float32);
}

#define TESSERA_BASELINES_INSTANTIATE(T)                                                                           \
  template void fill_with_nan<T>(const runtime::context&, const runtime::device_buffer&);                          \
  template std::vector<T> result_of_one_call<T>(gemm_implementation<T>&);                                          \
  template measurement verify_and_time<T>(gemm_implementation<T>&, const std::vector<T>&, double,                 \
                                          const timing_options&);                                                  \
  template void enqueue_clblast_gemm<T>(const gemm_shape&, cl_mem, cl_mem, cl_mem, cl_command_queue);              \
  template std::unique_ptr<gemm_implementation<T>> clblast_gemm<T>(                                                \
      const runtime::context&, const gemm_shape&, const runtime::device_buffer&, const runtime::device_buffer&,   \
      const runtime::device_buffer&);                                                                              \
  template std::unique_ptr<gemm_implementation<T>> openblas_gemm<T>(const gemm_shape&, const std::vector<T>&,     \
                                                                    const std::vector<T>&);                        \
  template std::unique_ptr<gemm_implementation<T>> tessera_gemm<T>(                                                \
      std::string, const runtime::context&, const blas::gemm_params&, const gemm_shape&,                           \
      const runtime::device_buffer&, const runtime::device_buffer&, const runtime::device_buffer&, blas::math_mode, \
      blas::operand_type);                                                                                         \
  template std::unique_ptr<gemm_implementation<T>> tessera_default_gemm<T>(                                        \
      std::string, const runtime::context&, const gemm_shape&, const runtime::device_buffer&,                      \
      const runtime::device_buffer&, const runtime::device_buffer&);
TESSERA_BASELINES_INSTANTIATE(float)
TESSERA_BASELINES_INSTANTIATE(double)
#undef TESSERA_BASELINES_INSTANTIATE

}  // namespace tessera::baselines
