#pragma once
// What the fused matmul tests share (matmul_test.cpp, matmul_families_test.cpp): shapes,
// operands, the four transposes and launch counting.
#include <gmock/gmock.h>

#include <string>
#include <utility>
#include <vector>

#include <tessera/blas/gemm.hpp>
#include <tessera/runtime/kernel.hpp>

#include "kernel_generator/kernel_generator_support.hpp"

namespace tessera::testing {

using namespace tessera::kernel_generator;

struct gemm_shape {
  index_t m, n, k;
};
inline std::string to_string(gemm_shape s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

/// 1, primes, non-multiples of every tile, an empty inner dimension and empty results.
inline const std::vector<gemm_shape>& gemm_shapes() {
  static const std::vector<gemm_shape> shapes{{1, 1, 1}, {17, 13, 7}, {33, 65, 9}, {70, 37, 41},
                                              {5, 3, 0}, {0, 4, 3},  {4, 0, 3}};
  return shapes;
}

/// The product's tolerance: k terms, then a few elementwise operations.
template <typename T>
double product_tolerance(index_t k) {
  return 4 * static_cast<double>(tolerance<T>(static_cast<std::size_t>(std::max<index_t>(k, 1))));
}

/// The operands of op(A) * op(B) for m x n x k, stored transposed where asked.
template <typename T>
struct operands {
  matrix<T> a, b;
  operands(gemm_shape s, bool ta, bool tb)
      : a(random_matrix<T>(ta ? s.k : s.m, ta ? s.m : s.k)), b(random_matrix<T>(tb ? s.n : s.k, tb ? s.k : s.n)) {}
};

/// Calls f(product) for the four transposes of one shape: f receives matmul(op(a), op(b)).
template <typename T, typename F>
void for_each_transpose(gemm_shape s, F f) {
  for (const bool ta : {false, true})
    for (const bool tb : {false, true}) {
      SCOPED_TRACE(::testing::Message() << to_string(s) << " trans_a " << ta << " trans_b " << tb);
      const operands<T> o(s, ta, tb);
      if (ta && tb) f(matmul(transpose(o.a), transpose(o.b)));
      else if (ta) f(matmul(transpose(o.a), o.b));
      else if (tb) f(matmul(o.a, transpose(o.b)));
      else f(matmul(o.a, o.b));
    }
}

/// Kernels enqueued and GEMMs launched while f runs.
template <typename F>
std::pair<std::size_t, std::size_t> launches_of(F f) {
  const std::size_t kernels = runtime::kernels_enqueued(), gemms = blas::detail::launch_count();
  f();
  return {runtime::kernels_enqueued() - kernels, blas::detail::launch_count() - gemms};
}

}  // namespace tessera::testing
