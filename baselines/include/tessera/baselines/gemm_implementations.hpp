#pragma once
// The GEMMs tessera's is compared with, and tessera's own, behind one interface so that every
// row of a comparison is verified and timed by the same code: CLBlast on the same OpenCL device
// and buffers, OpenBLAS on the host, cuBLAS where the CUDA toolkit was found at build time and
// a CUDA device exists at run time (nothing requires it), and tessera's GEMM with a given
// configuration. The tune_* binaries and the GEMM benchmarks use these; nothing else calls the
// baseline libraries.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tessera/baselines/gemm_problem.hpp>
#include <tessera/baselines/timing.hpp>
#include <tessera/blas/gemm.hpp>
#include <tessera/blas/gemm_config.hpp>
#include <tessera/runtime/error.hpp>

namespace tessera::baselines {

/// A baseline library (CLBlast, cuBLAS) reported a failure: what() names the routine and status.
class baseline_error : public runtime::error {
 public:
  using error::error;
};

/// Where an implementation computes: the plausibility of a figure is judged against that
/// processor (the OpenCL device being measured, the host, a CUDA device).
enum class processor { opencl_device, host, cuda_device };

/// One GEMM implementation bound to one problem's operands.
template <typename T>
class gemm_implementation {
 public:
  gemm_implementation(std::string name, processor where) : name_(std::move(name)), where_(where) {}
  virtual ~gemm_implementation() = default;
  gemm_implementation(const gemm_implementation&) = delete;
  gemm_implementation& operator=(const gemm_implementation&) = delete;

  const std::string& name() const noexcept { return name_; }
  processor where() const noexcept { return where_; }
  /// Starts one call of C = op(A) op(B); may return before the call is done.
  virtual void enqueue() = 0;
  /// Returns once every call enqueued so far has finished.
  virtual void finish() = 0;
  /// Fills C with NaN, so that an element a call leaves unwritten shows as wrong.
  virtual void poison() = 0;
  /// C on the host, column-major, every batch entry (call after finish()).
  virtual std::vector<T> result() = 0;

  timed_call call() {
    return {[this] { enqueue(); }, [this] { finish(); }};
  }

 private:
  std::string name_;
  processor where_;
};

/// Fills a device buffer of T with NaN (an implementation's poison()).
template <typename T>
void fill_with_nan(const runtime::context& ctx, const runtime::device_buffer& buffer);

/// How a measurement ended; only ok rows are ranked.
enum class status { ok, build_failed, launch_failed, wrong_result, unsupported, implausible, skipped };
std::string_view to_string(status s);

struct measurement {
  status outcome = status::skipped;
  std::string reason;          // why, when not ok
  std::optional<timing> time;  // when ok
  std::optional<double> max_error;  // max_relative_error of the verified result, when it ran
};

/// C after one call into a poisoned C (NaN where the call writes nothing).
template <typename T>
std::vector<T> result_of_one_call(gemm_implementation<T>& gemm);

/// Poisons C, runs one call and compares C with reference (first_mismatch, and its
/// max_relative_error); when it agrees, times the implementation (time_calls). Never throws: a failure becomes the outcome, with
/// the reason (build_failed: the build log's first lines; unsupported; launch_failed: the
/// error; wrong_result: the element that is off).
template <typename T>
measurement verify_and_time(gemm_implementation<T>& gemm, const std::vector<T>& reference, double tolerance,
                            const timing_options& options);

/// The outcome and reason of an exception thrown while measuring (used by verify_and_time).
measurement failure_of(const std::exception& e);

/// Enqueues CLBlast's GEMM (strided-batched when shape.batch > 1) of the shape's dense layout
/// on queue, each matrix from element 0 of its buffer. Throws baseline_error naming the routine
/// and CLBlast's status (unsupported_error when the device lacks double precision).
template <typename T>
void enqueue_clblast_gemm(const gemm_shape& shape, cl_mem a, cl_mem b, cl_mem c, cl_command_queue queue);

/// CLBlast on ctx's queue, reading a and b, writing c.
template <typename T>
std::unique_ptr<gemm_implementation<T>> clblast_gemm(const runtime::context& ctx, const gemm_shape& shape,
                                                     const runtime::device_buffer& a, const runtime::device_buffer& b,
                                                     const runtime::device_buffer& c);

/// OpenBLAS on the host into a C of its own (a call returns when it is done).
template <typename T>
std::unique_ptr<gemm_implementation<T>> openblas_gemm(const gemm_shape& shape, const std::vector<T>& host_a,
                                                      const std::vector<T>& host_b);

/// Whether cublas_gemm can run: built with the CUDA toolkit and a CUDA device present.
bool cublas_available();

/// cuBLAS on device copies of the host operands, in FP32/FP64 math (TF32 tensor cores off),
/// or for float with math_mode::tf32 in CUBLAS_TF32_TENSOR_OP_MATH; nullptr unless
/// cublas_available().
template <typename T>
std::unique_ptr<gemm_implementation<T>> cublas_gemm(const gemm_shape& shape, const std::vector<T>& host_a,
                                                    const std::vector<T>& host_b,
                                                    blas::math_mode math = blas::math_mode::exact);

/// cuBLAS's cublasGemmStridedBatchedEx with A and B of 16-bit values (operands: float16 or
/// bfloat16, their bits as the host holds them), C in float, FP32 accumulation on tensor cores;
/// nullptr unless cublas_available().
std::unique_ptr<gemm_implementation<float>> cublas_gemm16(const gemm_shape& shape,
                                                          const std::vector<std::uint16_t>& a_bits,
                                                          const std::vector<std::uint16_t>& b_bits,
                                                          blas::operand_type operands);

/// tessera's blas::gemm_with(params, ...) on ctx, reading a and b, writing c, in the math
/// mode given and with A and B of the given type; named name.
template <typename T>
std::unique_ptr<gemm_implementation<T>> tessera_gemm(std::string name, const runtime::context& ctx,
                                                     const blas::gemm_params& params, const gemm_shape& shape,
                                                     const runtime::device_buffer& a, const runtime::device_buffer& b,
                                                     const runtime::device_buffer& c,
                                                     blas::math_mode math = blas::math_mode::exact,
                                                     blas::operand_type operands = blas::operand_type::float32);

/// tessera's blas::gemm on ctx (the defaults' pick, run as a user's call runs it: a chosen split
/// may run as a tail split, chosen_tail_split), exact float32 arithmetic; named name.
template <typename T>
std::unique_ptr<gemm_implementation<T>> tessera_default_gemm(std::string name, const runtime::context& ctx,
                                                             const gemm_shape& shape, const runtime::device_buffer& a,
                                                             const runtime::device_buffer& b,
                                                             const runtime::device_buffer& c);

}  // namespace tessera::baselines
