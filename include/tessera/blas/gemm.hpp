#pragma once
// GEMM on OpenCL devices: C = alpha * op(A) * op(B) + beta * C, column-major, for float and
// double, on device buffers with offsets, on matrix<T>, and strided-batched. A float call may
// also run on tensor cores: in TF32 where its math_mode allows, or from 16-bit A and B
// (operand_type), C in float or in their 16-bit type.
//
// Every call checks its arguments before anything is enqueued (argument_error names the
// argument), picks a kernel configuration from the defaults table for the device and the
// problem (gemm_defaults.hpp) unless one is given, checks it against the device's limits,
// builds the kernel once (kept in a runtime::kernel_cache) and launches it on the context's
// queue. The call returns without waiting; the event completes when C is written, and it
// covers every launch of the call (a batch beyond 65535 work-groups takes several):
// runtime::elapsed_seconds on it spans them all (runtime/covering_event.hpp). A configuration
// with pretranspose = 1 first copies each operand stored along K, transposed, into the context's
// kept scratch memory (runtime/workspace.hpp; at most max_pretranspose_bytes a copy), a launch
// each, and the returned event covers them too. A call with
// gemm_arguments::event = launch_event::none makes no event (an empty one is returned): a
// caller that waits with clFinish or a later command saves the driver's cost of making one.
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include <tessera/blas/gemm_config.hpp>
#include <tessera/runtime/buffer.hpp>
#include <tessera/runtime/context.hpp>
#include <tessera/runtime/kernel.hpp>
#include <tessera/runtime/matrix.hpp>
#include <tessera/runtime/opencl.hpp>

namespace tessera::blas {

using runtime::device_buffer;
using runtime::device_scalar;
using runtime::index_t;

/// op(X) = X (none) or X^T (trans).
enum class transpose { none, trans };

constexpr char to_char(transpose t) { return t == transpose::none ? 'N' : 'T'; }

/// The arithmetic a float GEMM may use: the caller's explicit choice, as cuBLAS's math modes
/// (CUBLAS_TF32_TENSOR_OP_MATH) and PyTorch's allow_tf32 are.
///  - exact: products and sums in FP32 (the default).
///  - tf32: the products may run on tensor cores (the mma family: NVIDIA, compute capability
///    8.0 and up) from A and B cut to TF32 (the top 10 of float's 23 mantissa bits, rounded
///    toward zero: a relative error below 2^-10 per operand), summed in FP32. Where the device
///    has none, the call is exact. double is always exact.
enum class math_mode { exact, tf32 };

std::string_view to_string(math_mode mode);

/// How A and B are stored in a float GEMM (cublasGemmEx's types of A and B; C stays float):
///  - float32: float (the default);
///  - float16, bfloat16: 16-bit values (runtime::float16, runtime::bfloat16 in device buffers;
///    offsets, leading dimensions and strides count them). Tensor cores multiply them exactly
///    and sum in FP32 (the mma family, NVIDIA compute capability 8.0 and up); a device without
///    tensor cores refuses such a call with unsupported_error. The math mode does not apply.
enum class operand_type { float32, float16, bfloat16 };

std::string_view to_string(operand_type type);

/// Bytes of one element of A or B.
constexpr int operand_bytes(operand_type type, int element_bytes) {
  return type == operand_type::float32 ? element_bytes : 2;
}

/// Everything one (batched) GEMM call names. Offsets and strides count elements.
template <device_scalar T>
struct gemm_arguments {
  transpose trans_a = transpose::none, trans_b = transpose::none;
  index_t m = 0, n = 0, k = 0;
  T alpha = T(1), beta = T(0);
  const device_buffer* a = nullptr;
  std::size_t a_offset = 0;
  index_t lda = 1, stride_a = 0;
  const device_buffer* b = nullptr;
  std::size_t b_offset = 0;
  index_t ldb = 1, stride_b = 0;
  const device_buffer* c = nullptr;
  std::size_t c_offset = 0;
  index_t ldc = 1, stride_c = 0;
  index_t batch_count = 1;
  math_mode math = math_mode::exact;
  operand_type operands = operand_type::float32;  // A and B (float calls only)
  /// C: float32, or with 16-bit A and B their own type (cublasGemmEx's Ctype): C is read (beta)
  /// and written in 16 bits, rounded to nearest even once from the FP32 result; offsets and
  /// strides count its 16-bit elements. alpha and beta stay float.
  operand_type result = operand_type::float32;
  /// launch_event::none: no event is made and gemm returns an empty one; the work is enqueued in
  /// order all the same. An event cost 7 us of host time a launch on an H200 (runtime/kernel.hpp),
  /// as much as the rest of a small call.
  runtime::launch_event event = runtime::launch_event::returned;
};

/// Throws argument_error, naming the argument, unless the call is well-formed: sizes and
/// the batch count >= 0, each leading dimension at least the rows of its stored matrix,
/// strides >= 0 (C's at least one matrix when batched), every buffer present and large
/// enough (in its own element size), all in one context; C in 16 bits only with A and B of the
/// same type.
template <device_scalar T>
void validate(const gemm_arguments<T>& args);

/// The configuration gemm() uses for these arguments on ctx's device (gemm_defaults.hpp). A
/// float call in math_mode::tf32 takes the table's TF32 entry where one fits the device and its
/// blocks give at least half the compute units one (else the smallest TF32 blocks where they give
/// every unit one, else the exact entry); 16-bit operands take their own precision's entries.
template <device_scalar T>
gemm_params default_params_for(const gemm_arguments<T>& args, const runtime::context& ctx);

/// Runs a validated call with the given configuration. Throws unsupported_error when the
/// configuration breaks a rule of gemm_rules.def on this device (work-group size, local
/// memory, tensor cores, ...) or the built kernel cannot run a work-group of its size, and
/// argument_error when it computes in another arithmetic than the call's math mode allows (the
/// mma family needs math_mode::tf32).
template <device_scalar T>
cl::Event gemm_with(const gemm_params& params, const gemm_arguments<T>& args);

/// Runs a call with the configuration the defaults table picks.
template <device_scalar T>
cl::Event gemm(const gemm_arguments<T>& args);

/// C = alpha * op(A) * op(B) + beta * C on device buffers; op(A) is m x k, op(B) k x n,
/// C m x n, each column-major with its leading dimension, starting at its offset.
template <device_scalar T>
cl::Event gemm(transpose trans_a, transpose trans_b, index_t m, index_t n, index_t k, T alpha,
               const device_buffer& a, std::size_t a_offset, index_t lda,
               const device_buffer& b, std::size_t b_offset, index_t ldb, T beta,
               device_buffer& c, std::size_t c_offset, index_t ldc) {
  gemm_arguments<T> args;
  args.trans_a = trans_a, args.trans_b = trans_b, args.m = m, args.n = n, args.k = k;
  args.alpha = alpha, args.beta = beta;
  args.a = &a, args.a_offset = a_offset, args.lda = lda;
  args.b = &b, args.b_offset = b_offset, args.ldb = ldb;
  args.c = &c, args.c_offset = c_offset, args.ldc = ldc;
  return gemm(args);
}

/// The same on matrix<T>: each matrix must be exactly op's shape (A is m x k, or k x m when
/// transposed, ...) and each leading dimension its row count.
template <device_scalar T>
cl::Event gemm(transpose trans_a, transpose trans_b, index_t m, index_t n, index_t k, T alpha,
               const runtime::matrix<T>& a, index_t lda, const runtime::matrix<T>& b, index_t ldb,
               T beta, runtime::matrix<T>& c, index_t ldc);

/// C = alpha * op(A) * op(B) + beta * C with m, n, k taken from the shapes of A, B, C, in the
/// arithmetic math allows.
template <device_scalar T>
cl::Event gemm(transpose trans_a, transpose trans_b, T alpha, const runtime::matrix<T>& a,
               const runtime::matrix<T>& b, T beta, runtime::matrix<T>& c, math_mode math = math_mode::exact);

/// batch_count GEMMs; entry i uses A at a_offset + i * stride_a, and so on.
template <device_scalar T>
cl::Event gemm_strided_batched(transpose trans_a, transpose trans_b, index_t m, index_t n, index_t k,
                               T alpha, const device_buffer& a, std::size_t a_offset, index_t lda,
                               index_t stride_a, const device_buffer& b, std::size_t b_offset,
                               index_t ldb, index_t stride_b, T beta, device_buffer& c,
                               std::size_t c_offset, index_t ldc, index_t stride_c,
                               index_t batch_count) {
  gemm_arguments<T> args;
  args.trans_a = trans_a, args.trans_b = trans_b, args.m = m, args.n = n, args.k = k;
  args.alpha = alpha, args.beta = beta;
  args.a = &a, args.a_offset = a_offset, args.lda = lda, args.stride_a = stride_a;
  args.b = &b, args.b_offset = b_offset, args.ldb = ldb, args.stride_b = stride_b;
  args.c = &c, args.c_offset = c_offset, args.ldc = ldc, args.stride_c = stride_c;
  args.batch_count = batch_count;
  return gemm(args);
}

/// A typed configuration (gemm_kernel_config<...>): its rules were checked when it was
/// instantiated; its transposes must agree with the arguments'.
template <typename KernelConfig>
cl::Event gemm_with(const gemm_arguments<typename KernelConfig::value_type>& args) {
  if ((args.trans_a == transpose::trans) != KernelConfig::trans_a ||
      (args.trans_b == transpose::trans) != KernelConfig::trans_b)
    throw argument_error("tessera::blas::gemm_with: the configuration's transposes differ from trans_a/trans_b");
  return gemm_with(KernelConfig::params, args);
}

namespace detail {
/// Kernels enqueued by this library so far (tests use it to prove that bad input
/// enqueues nothing).
std::size_t launch_count();

/// The OpenCL source and build options gemm_with(params, args) builds on ctx's device
/// (for tools that inspect the compiled kernel, e.g. its register use).
struct gemm_program_text {
  std::string source;
  std::string options;
};
template <device_scalar T>
gemm_program_text program_text(const gemm_params& params, const gemm_arguments<T>& args,
                               const runtime::context& ctx);

/// Work fused into the store of a GEMM through gemm_common.cl's hooks. source goes before the
/// kernels and defines GEMM_EPILOGUE or GEMM_STORE_STEP, and GEMM_EPILOGUE_PARAMETERS and
/// GEMM_EPILOGUE_ARGUMENTS when it reads inputs of its own; arguments are their values, in
/// order (they follow the GEMM's own parameters). The kernel is cached by source and options,
/// like every GEMM kernel.
struct gemm_epilogue {
  std::string_view name;  // names the program in the program cache's messages
  std::string_view source;
  std::span<const runtime::kernel_argument> arguments;
};

/// gemm_with(params, args) with an epilogue attached (one kernel).
template <device_scalar T>
cl::Event gemm_with_epilogue(const gemm_params& params, const gemm_arguments<T>& args, const gemm_epilogue& epilogue);
/// The same with the configuration gemm() would pick.
template <device_scalar T>
cl::Event gemm_with_epilogue(const gemm_arguments<T>& args, const gemm_epilogue& epilogue);
/// program_text with an epilogue attached.
template <device_scalar T>
gemm_program_text program_text(const gemm_params& params, const gemm_arguments<T>& args, const runtime::context& ctx,
                               std::string_view epilogue_source);
}  // namespace detail

}  // namespace tessera::blas
