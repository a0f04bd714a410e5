#pragma once
// cuBLAS as a baseline of the GEMM benchmark: built only when CMake finds the CUDA toolkit
// (TESSERA_HAVE_CUBLAS), used only when a CUDA device is present. Nothing else needs it.
#ifndef TESSERA_HAVE_CUBLAS
#define TESSERA_HAVE_CUBLAS 0
#endif

#if TESSERA_HAVE_CUBLAS
#include <cstdint>
#include <memory>
#include <vector>

namespace tessera::bench {

/// CUDA devices present (0 when the driver or a device is missing).
int cuda_device_count();

/// One (strided-batched) column-major GEMM in FP32/FP64 without tensor-core math
/// (CUBLAS_DEFAULT_MATH, TF32 off), on device copies of the host operands.
template <typename T>
class cublas_gemm {
 public:
  cublas_gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch,
              const std::vector<T>& a, const std::vector<T>& b);
  ~cublas_gemm();
  cublas_gemm(const cublas_gemm&) = delete;
  cublas_gemm& operator=(const cublas_gemm&) = delete;
  void run();   // enqueues C = A B
  void sync();  // waits for it
  std::vector<T> result() const;

 private:
  struct state;
  std::unique_ptr<state> s_;
};

extern template class cublas_gemm<float>;
extern template class cublas_gemm<double>;

}  // namespace tessera::bench
#endif
