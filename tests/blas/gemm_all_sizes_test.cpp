// All 125 combinations of m, n, k in {1, 7, 64, 127, 257} for each pair of transposes,
// float, on the most involved family (local memory with vectors, double buffering, padding
// and a sub-group tile), with lda > rows and beta = 0 on NaN every fifth case. One kernel
// build per pair of transposes: about 5 s each on PoCL.
#include <gtest/gtest.h>

#include "blas/gemm_check.hpp"
#include "support/sanitizers.hpp"

namespace blas = tessera::blas;
using tessera::testing::check_gemm;
using tessera::testing::gemm_case;

namespace {

// The most involved family in float, for every pair of transposes (fast suite).
class GemmAllSizes : public ::testing::TestWithParam<std::pair<blas::transpose, blas::transpose>> {};

// Under AddressSanitizer every family's sweep (the test at the end) took 155 s of that run (27 s in
// the release build with the kernels cached, as they are there): the host code at -O0, random data
// and the checks of each case, repeating one path. There it keeps the sizes 1, 7 and 127 (27
// combinations: below a tile, and a prime past several tiles, in each dimension).
template <typename T>
void check_all_sizes(const blas::gemm_params& params, blas::transpose ta, blas::transpose tb,
                     bool fewer_sizes = false) {
  const std::vector<std::int64_t> sizes =
      fewer_sizes ? std::vector<std::int64_t>{1, 7, 127} : std::vector<std::int64_t>{1, 7, 64, 127, 257};
  int i = 0;
  for (auto m : sizes)
    for (auto n : sizes)
      for (auto k : sizes) {
        gemm_case c;
        c.trans_a = ta, c.trans_b = tb;
        c.m = m, c.n = n, c.k = k;
        c.lda_pad = 1 + i % 4, c.ldb_pad = 3, c.ldc_pad = 2 + i % 3, c.odd_ld = true;
        c.beta = (i % 5 == 0) ? 0.0 : -0.5;
        c.nan_in_c = c.beta == 0.0;
        ++i;
        check_gemm<T>(params, c);
      }
}

TEST_P(GemmAllSizes, EverySizeCombinationMatchesOpenBlas) {
  const auto params = blas::parse_gemm_params(
      "local vector_width=4 cache_line_bytes=64 item=4x4 wg=8x8 sg=2x4 double_buffer=1 no_bank_conflict_a=1 "
      "no_bank_conflict_b=1");
  check_all_sizes<float>(params, GetParam().first, GetParam().second);
}

INSTANTIATE_TEST_SUITE_P(Blas, GemmAllSizes,
                         ::testing::Values(std::pair{blas::transpose::none, blas::transpose::none},
                                           std::pair{blas::transpose::none, blas::transpose::trans},
                                           std::pair{blas::transpose::trans, blas::transpose::none},
                                           std::pair{blas::transpose::trans, blas::transpose::trans}),
                         [](const auto& info) {
                           return std::string(1, blas::to_char(info.param.first)) + blas::to_char(info.param.second);
                         });

// Every family x transposes x float and double at all 125 size combinations: 8000 GEMMs, 140 s
// on PoCL's 2 cores here with a cold kernel cache (64 kernels to build; then only sizes change),
// 27 s with a warm one; under AddressSanitizer 27 combinations of each.
TEST(GemmAllSizesEveryFamily, EveryFamilyTransposeAndTypeMatchesOpenBlas) {
  constexpr bool fewer_sizes = tessera::testing::under_address_sanitizer;
  for (auto ta : {blas::transpose::none, blas::transpose::trans})
    for (auto tb : {blas::transpose::none, blas::transpose::trans}) {
      for (const auto& params : tessera::testing::family_configs<float>()) {
        SCOPED_TRACE("float " + blas::to_string(params));
        check_all_sizes<float>(params, ta, tb, fewer_sizes);
      }
      for (const auto& params : tessera::testing::family_configs<double>()) {
        SCOPED_TRACE("double " + blas::to_string(params));
        check_all_sizes<double>(params, ta, tb, fewer_sizes);
      }
    }
}

}  // namespace
