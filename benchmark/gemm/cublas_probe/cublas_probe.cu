// cublas_probe: which kernels cuBLAS runs for FP32 SGEMM (no TF32: CUBLAS_PEDANTIC_MATH) at given
// shapes, and how fast, to compare tessera's kernels with cuBLAS's own choices (tile, pipeline
// stages, split of K) where a shape reads below cuBLAS. Optional: needs the CUDA toolkit, which
// nothing else in tessera requires; run.sh builds and runs it on the GPU machine.
//
//   cublas_probe MxNxK:TT [MxNxK:TT ...]      (TT: tessera's transposes of A and B, e.g. nn, tt)
//
// Shapes are tessera's row-major C (m x n) = op(A) (m x k) op(B) (k x n); cuBLAS is column-major,
// so each call computes C^T = op(B)^T op(A)^T, the same product tessera times. Prints per shape the
// median over repetitions of the time of one call (CUDA events), and TFLOP/s. The operands hold
// ones: FP32 FFMA timing does not depend on the values.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>

namespace {

struct shape {
  int m, n, k;
  bool a_transposed, b_transposed;
};

bool parse(const char* text, shape& s) {
  char ta = 0, tb = 0;
  if (std::sscanf(text, "%dx%dx%d:%c%c", &s.m, &s.n, &s.k, &ta, &tb) != 5) return false;
  if ((ta != 'n' && ta != 't') || (tb != 'n' && tb != 't') || s.m < 1 || s.n < 1 || s.k < 1) return false;
  s.a_transposed = ta == 't';
  s.b_transposed = tb == 't';
  return true;
}

void check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  std::fprintf(stderr, "cublas_probe: %s: %s\n", what, cudaGetErrorString(status));
  std::exit(1);
}

void check(cublasStatus_t status, const char* what) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  std::fprintf(stderr, "cublas_probe: %s: cuBLAS status %d\n", what, static_cast<int>(status));
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<shape> shapes;
  for (int i = 1; i < argc; ++i) {
    shape s{};
    if (!parse(argv[i], s)) {
      std::fprintf(stderr, "cublas_probe: %s: expected MxNxK:TT, e.g. 1865x462x351:tt\n", argv[i]);
      return 2;
    }
    shapes.push_back(s);
  }
  if (shapes.empty()) {
    std::fprintf(stderr, "usage: cublas_probe MxNxK:TT [MxNxK:TT ...]\n");
    return 2;
  }
  const int repetitions = std::getenv("CUBLAS_PROBE_REPS") ? std::atoi(std::getenv("CUBLAS_PROBE_REPS")) : 20;
  std::size_t largest = 0;
  for (const auto& s : shapes)
    largest = std::max({largest, std::size_t(s.m) * s.k, std::size_t(s.k) * s.n, std::size_t(s.m) * s.n});
  cublasHandle_t handle;
  check(cublasCreate(&handle), "cublasCreate");
  check(cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode");
  float *a, *b, *c;
  check(cudaMalloc(&a, largest * sizeof(float)), "cudaMalloc A");
  check(cudaMalloc(&b, largest * sizeof(float)), "cudaMalloc B");
  check(cudaMalloc(&c, largest * sizeof(float)), "cudaMalloc C");
  std::vector<float> ones(largest, 1.0f);
  check(cudaMemcpy(a, ones.data(), largest * sizeof(float), cudaMemcpyHostToDevice), "copy A");
  check(cudaMemcpy(b, ones.data(), largest * sizeof(float), cudaMemcpyHostToDevice), "copy B");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  const float alpha = 1.0f, beta = 0.0f;
  for (const auto& s : shapes) {
    // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: cuBLAS's first operand is B.
    const auto op_b = s.b_transposed ? CUBLAS_OP_T : CUBLAS_OP_N, op_a = s.a_transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
    const int ldb = s.b_transposed ? s.k : s.n, lda = s.a_transposed ? s.m : s.k;
    auto call = [&] {
      check(cublasSgemm(handle, op_b, op_a, s.n, s.m, s.k, &alpha, b, ldb, a, lda, &beta, c, s.n), "cublasSgemm");
    };
    call();
    check(cudaDeviceSynchronize(), "warm-up");
    std::vector<float> us;
    for (int r = 0; r < repetitions; ++r) {
      check(cudaEventRecord(start), "record");
      call();
      check(cudaEventRecord(stop), "record");
      check(cudaEventSynchronize(stop), "synchronize");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
      us.push_back(ms * 1000.0f);
    }
    std::sort(us.begin(), us.end());
    const double median = us.empty() ? 0.0 : us[us.size() / 2];
    std::printf("%dx%dx%d %c%c: %.1f us, %.1f TFLOP/s\n", s.m, s.n, s.k, s.a_transposed ? 't' : 'n',
                s.b_transposed ? 't' : 'n', median, median > 0 ? 2.0 * s.m * s.n * s.k / median / 1e6 : 0.0);
    std::fflush(stdout);
  }
  return 0;
}
