// cuBLAS where CMake found the CUDA toolkit (TESSERA_HAVE_CUBLAS); without it, no cuBLAS row.
#include <tessera/baselines/gemm_implementations.hpp>

#if TESSERA_HAVE_CUBLAS
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <fmt/format.h>
#endif

namespace tessera::baselines {

#if TESSERA_HAVE_CUBLAS
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw baseline_error(fmt::format("{}: {}", what, cudaGetErrorString(e)));
}
void check(cublasStatus_t e, const char* what) {
  if (e != CUBLAS_STATUS_SUCCESS) throw baseline_error(fmt::format("{}: cuBLAS status {}", what, int(e)));
}

// One cuBLAS call's device memory and handle: A and B of Operand copied from the host, C of
// Result, every batch entry. What the call is (enqueue) is the derived class's.
template <typename Operand, typename Result>
class cublas_call : public gemm_implementation<Result> {
 public:
  cublas_call(std::string name, const gemm_shape& shape, const std::vector<Operand>& a,
              const std::vector<Operand>& b)
      : gemm_implementation<Result>(std::move(name), processor::cuda_device), shape_(shape),
        c_elements_(std::size_t(shape.stride_c() * shape.batch)) {
    try {
      check(cudaMalloc(&a_, a.size() * sizeof(Operand)), "cudaMalloc");
      check(cudaMalloc(&b_, b.size() * sizeof(Operand)), "cudaMalloc");
      check(cudaMalloc(&c_, c_elements_ * sizeof(Result)), "cudaMalloc");
      check(cudaMemcpy(a_, a.data(), a.size() * sizeof(Operand), cudaMemcpyHostToDevice), "cudaMemcpy");
      check(cudaMemcpy(b_, b.data(), b.size() * sizeof(Operand), cudaMemcpyHostToDevice), "cudaMemcpy");
      check(cublasCreate(&handle_), "cublasCreate");
    } catch (...) {
      release();
      throw;
    }
  }
  ~cublas_call() override { release(); }

  void finish() override { check(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); }
  // All bits set is a NaN in IEEE binary32 and binary64.
  void poison() override { check(cudaMemset(c_, 0xff, c_elements_ * sizeof(Result)), "cudaMemset"); }
  std::vector<Result> result() override {
    std::vector<Result> out(c_elements_);
    check(cudaMemcpy(out.data(), c_, out.size() * sizeof(Result), cudaMemcpyDeviceToHost), "cudaMemcpy");
    return out;
  }

 protected:
  static cublasOperation_t op(bool transposed) { return transposed ? CUBLAS_OP_T : CUBLAS_OP_N; }

  gemm_shape shape_;
  std::size_t c_elements_;
  Operand *a_ = nullptr, *b_ = nullptr;
  Result* c_ = nullptr;
  cublasHandle_t handle_ = nullptr;

 private:
  void release() {
    if (handle_ != nullptr) cublasDestroy(handle_);
    cudaFree(a_), cudaFree(b_), cudaFree(c_);
    handle_ = nullptr, a_ = b_ = nullptr, c_ = nullptr;
  }
};

// cublasSgemm / cublasDgemm, strided-batched; float in FP32 or (tf32) CUBLAS_TF32_TENSOR_OP_MATH.
template <typename T>
class cublas_implementation final : public cublas_call<T, T> {
 public:
  cublas_implementation(const gemm_shape& shape, const std::vector<T>& a, const std::vector<T>& b, bool tf32)
      : cublas_call<T, T>(tf32 ? "cuBLAS (TF32)" : "cuBLAS (no TF32)", shape, a, b) {
    check(cublasSetMathMode(this->handle_, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH),
          "cublasSetMathMode");
  }

  void enqueue() override {
    const T one = 1, zero = 0;
    const auto& s = this->shape_;
    const int m = int(s.m), n = int(s.n), k = int(s.k), batch = int(s.batch);
    const int lda = int(s.lda()), ldb = int(s.ldb()), ldc = int(s.ldc());
    const long long sa = s.stride_a(), sb = s.stride_b(), sc = s.stride_c();
    const auto ta = this->op(s.trans_a), tb = this->op(s.trans_b);
    if constexpr (std::is_same_v<T, float>)
      check(cublasSgemmStridedBatched(this->handle_, ta, tb, m, n, k, &one, this->a_, lda, sa, this->b_, ldb, sb, &zero,
                                      this->c_, ldc, sc, batch),
            "cublasSgemmStridedBatched");
    else
      check(cublasDgemmStridedBatched(this->handle_, ta, tb, m, n, k, &one, this->a_, lda, sa, this->b_, ldb, sb, &zero,
                                      this->c_, ldc, sc, batch),
            "cublasDgemmStridedBatched");
  }
};

// A and B of 16-bit values (cublasGemmStridedBatchedEx), C in float, FP32 accumulation.
class cublas16_implementation final : public cublas_call<std::uint16_t, float> {
 public:
  cublas16_implementation(const gemm_shape& shape, const std::vector<std::uint16_t>& a,
                          const std::vector<std::uint16_t>& b, bool bf16)
      : cublas_call(bf16 ? "cuBLAS (BF16)" : "cuBLAS (FP16)", shape, a, b), type_(bf16 ? CUDA_R_16BF : CUDA_R_16F) {}

  void enqueue() override {
    const float one = 1, zero = 0;
    const auto& s = shape_;
    check(cublasGemmStridedBatchedEx(handle_, op(s.trans_a), op(s.trans_b), int(s.m), int(s.n), int(s.k), &one, a_,
                                     type_, int(s.lda()), s.stride_a(), b_, type_, int(s.ldb()), s.stride_b(), &zero,
                                     c_, CUDA_R_32F, int(s.ldc()), s.stride_c(), int(s.batch), CUBLAS_COMPUTE_32F,
                                     CUBLAS_GEMM_DEFAULT_TENSOR_OP),
          "cublasGemmStridedBatchedEx");
  }

 private:
  cudaDataType_t type_;
};

}  // namespace

bool cublas_available() {
  int devices = 0;
  return cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
}

template <typename T>
std::unique_ptr<gemm_implementation<T>> cublas_gemm(const gemm_shape& shape, const std::vector<T>& host_a,
                                                    const std::vector<T>& host_b, blas::math_mode math) {
  if (!cublas_available()) return nullptr;
  return std::make_unique<cublas_implementation<T>>(shape, host_a, host_b,
                                                    std::is_same_v<T, float> && math == blas::math_mode::tf32);
}
std::unique_ptr<gemm_implementation<float>> cublas_gemm16(const gemm_shape& shape,
                                                          const std::vector<std::uint16_t>& a_bits,
                                                          const std::vector<std::uint16_t>& b_bits,
                                                          blas::operand_type operands) {
  if (!cublas_available() || operands == blas::operand_type::float32) return nullptr;
  return std::make_unique<cublas16_implementation>(shape, a_bits, b_bits, operands == blas::operand_type::bfloat16);
}
#else
bool cublas_available() { return false; }

std::unique_ptr<gemm_implementation<float>> cublas_gemm16(const gemm_shape&, const std::vector<std::uint16_t>&,
                                                          const std::vector<std::uint16_t>&, blas::operand_type) {
  return nullptr;
}

template <typename T>
std::unique_ptr<gemm_implementation<T>> cublas_gemm(const gemm_shape&, const std::vector<T>&, const std::vector<T>&,
                                                    blas::math_mode) {
  return nullptr;
}
#endif

template std::unique_ptr<gemm_implementation<float>> cublas_gemm<float>(const gemm_shape&, const std::vector<float>&,
                                                                        const std::vector<float>&, blas::math_mode);
template std::unique_ptr<gemm_implementation<double>> cublas_gemm<double>(const gemm_shape&,
                                                                          const std::vector<double>&,
                                                                          const std::vector<double>&,
                                                                          blas::math_mode);

}  // namespace tessera::baselines
