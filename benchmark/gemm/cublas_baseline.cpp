#include "cublas_baseline.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace tessera::bench {

namespace {
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
void check(cublasStatus_t e, const char* what) {
  if (e != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": cuBLAS status " + std::to_string(int(e)));
}
}  // namespace

int cuda_device_count() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

template <typename T>
struct cublas_gemm<T>::state {
  bool ta, tb;
  std::int64_t m, n, k, batch;
  T *a = nullptr, *b = nullptr, *c = nullptr;
  cublasHandle_t handle = nullptr;
};

template <typename T>
cublas_gemm<T>::cublas_gemm(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch,
                            const std::vector<T>& a, const std::vector<T>& b)
    : s_(new state{ta, tb, m, n, k, batch}) {
  check(cudaMalloc(&s_->a, a.size() * sizeof(T)), "cudaMalloc");
  check(cudaMalloc(&s_->b, b.size() * sizeof(T)), "cudaMalloc");
  check(cudaMalloc(&s_->c, static_cast<std::size_t>(m * n * batch) * sizeof(T)), "cudaMalloc");
  check(cudaMemcpy(s_->a, a.data(), a.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
  check(cudaMemcpy(s_->b, b.data(), b.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
  check(cublasCreate(&s_->handle), "cublasCreate");
  check(cublasSetMathMode(s_->handle, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");  // no TF32
}

template <typename T>
cublas_gemm<T>::~cublas_gemm() {
  cublasDestroy(s_->handle);
  cudaFree(s_->a), cudaFree(s_->b), cudaFree(s_->c);
}

template <typename T>
void cublas_gemm<T>::run() {
  const T one = 1, zero = 0;
  const auto op = [](bool t) { return t ? CUBLAS_OP_T : CUBLAS_OP_N; };
  const int lda = int(s_->ta ? s_->k : s_->m), ldb = int(s_->tb ? s_->n : s_->k), ldc = int(s_->m);
  const long long sa = (long long)lda * (s_->ta ? s_->m : s_->k), sb = (long long)ldb * (s_->tb ? s_->k : s_->n),
                  sc = (long long)s_->m * s_->n;
  if constexpr (std::is_same_v<T, float>)
    check(cublasSgemmStridedBatched(s_->handle, op(s_->ta), op(s_->tb), int(s_->m), int(s_->n), int(s_->k), &one,
                                    s_->a, lda, sa, s_->b, ldb, sb, &zero, s_->c, ldc, sc, int(s_->batch)),
          "cublasSgemmStridedBatched");
  else
    check(cublasDgemmStridedBatched(s_->handle, op(s_->ta), op(s_->tb), int(s_->m), int(s_->n), int(s_->k), &one,
                                    s_->a, lda, sa, s_->b, ldb, sb, &zero, s_->c, ldc, sc, int(s_->batch)),
          "cublasDgemmStridedBatched");
}

template <typename T>
void cublas_gemm<T>::sync() {
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

template <typename T>
std::vector<T> cublas_gemm<T>::result() const {
  std::vector<T> out(static_cast<std::size_t>(s_->m * s_->n * s_->batch));
  check(cudaMemcpy(out.data(), s_->c, out.size() * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
  return out;
}

template class cublas_gemm<float>;
template class cublas_gemm<double>;

}  // namespace tessera::bench
