// pretranspose (gemm_params::pretranspose): operands stored along K are copied transposed into
// workspace, and the product reads the copies as in NT. Against OpenBLAS at odd sizes, every
// transpose, float and double, batched, with split-K; which operands a call copies; the launches
// it makes; the kernel it builds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "blas/gemm_check.hpp"

namespace blas = tessera::blas;
namespace rt = tessera::runtime;
using tessera::testing::check_gemm;
using tessera::testing::gemm_case;

namespace {

using tessera::testing::every_transpose;

template <typename T>
blas::gemm_params pretranspose_config(std::string_view more = "") {
  return tessera::testing::small_local_config<T>(fmt::format("pretranspose=1 {}", more));
}

template <typename T>
void matches_openblas_at_odd_sizes() {
  // 1, primes, sizes across the copy's 32 x 32 tiles and the product's 32 x 32 blocks.
  const std::int64_t sizes[][3] = {{1, 1, 1}, {7, 5, 3}, {33, 17, 67}, {64, 61, 45}, {131, 3, 37}, {2, 97, 129}};
  for (auto ta : every_transpose)
    for (auto tb : every_transpose)
      for (const auto& s : sizes) {
        gemm_case c;
        c.trans_a = ta, c.trans_b = tb, c.m = s[0], c.n = s[1], c.k = s[2];
        c.lda_pad = 1, c.ldb_pad = 2, c.ldc_pad = 1, c.odd_ld = true, c.offset = 3;
        check_gemm<T>(pretranspose_config<T>(), c);
      }
  // Batched, with gaps between the entries, offsets, beta = 0 on a NaN-filled C; k = 0.
  for (auto ta : every_transpose)
    for (auto tb : every_transpose) {
      gemm_case batched;
      batched.trans_a = ta, batched.trans_b = tb;
      batched.m = 19, batched.n = 23, batched.k = 41, batched.batch = 5, batched.stride_gap = 3, batched.offset = 1;
      batched.beta = 0, batched.nan_in_c = true;
      check_gemm<T>(pretranspose_config<T>(), batched);
    }
  gemm_case no_k;
  no_k.trans_a = blas::transpose::trans, no_k.m = 9, no_k.n = 11, no_k.k = 0;
  check_gemm<T>(pretranspose_config<T>(), no_k);
}

TEST(GemmPretranspose, FloatMatchesOpenBlasAtOddSizesAndEveryTranspose) { matches_openblas_at_odd_sizes<float>(); }
TEST(GemmPretranspose, DoubleMatchesOpenBlasAtOddSizesAndEveryTranspose) { matches_openblas_at_odd_sizes<double>(); }

// With split-K, the partial tiles' workspace and the copies' are separate buffers of one lease.
TEST(GemmPretranspose, WithSplitKMatchesOpenBlas) {
  for (auto ta : every_transpose)
    for (auto tb : every_transpose) {
      gemm_case c;
      c.trans_a = ta, c.trans_b = tb, c.m = 13, c.n = 29, c.k = 1003, c.lda_pad = 3, c.batch = 2, c.stride_gap = 1;
      check_gemm<float>(pretranspose_config<float>("split_k=4"), c);
    }
}

// A copy's columns beyond 65535 tiles of 32 (grid dimension 1's limit on some devices): the
// work-groups step over the rest.
TEST(GemmPretranspose, ManyColumnTilesMatchOpenBlas) {
  gemm_case c;
  c.trans_b = blas::transpose::none, c.m = 1, c.n = 65536 * 32 + 77, c.k = 2;
  check_gemm<float>(pretranspose_config<float>(), c);
}

// A fused epilogue (gemm_common.cl's GEMM_EPILOGUE, as the kernel generator's fused GEMM
// attaches it) runs in the product's store when both operands are copies:
// relu(A^T B + bias[row]) in TN.
TEST(GemmPretranspose, AFusedEpilogueRunsInTheStore) {
  const std::size_t launches = tessera::testing::check_bias_relu_epilogue(
      pretranspose_config<float>(), true, false, 45, 37, 53, blas::math_mode::exact, 1e-5f);
  EXPECT_EQ(launches, 3u) << "two copies, then the product";
}

// One copy per operand stored along K, launched before the product; none for NT.
TEST(GemmPretranspose, CopiesEachOperandStoredAlongKOnce) {
  for (auto ta : every_transpose)
    for (auto tb : every_transpose) {
      gemm_case c;
      c.trans_a = ta, c.trans_b = tb, c.m = 5, c.n = 6, c.k = 7;
      const auto before = blas::detail::launch_count();
      check_gemm<float>(pretranspose_config<float>(), c);
      const std::size_t copies = (ta == blas::transpose::trans ? 1 : 0) + (tb == blas::transpose::none ? 1 : 0);
      EXPECT_EQ(blas::detail::launch_count() - before, 1 + copies) << c.describe();
    }
}

// The product kernel is NT's: built with TRANS_A=0 and TRANS_B=1 whatever the call's
// transposes, and with PRETRANSPOSE=1 only where the call copies (an NT call builds NT's kernel).
TEST(GemmPretranspose, TheProductIsBuiltAsNt) {
  auto& ctx = rt::context::get();
  rt::device_buffer buffer(ctx, 64 * sizeof(float));
  for (auto ta : every_transpose)
    for (auto tb : every_transpose) {
      blas::gemm_arguments<float> args;
      args.trans_a = ta, args.trans_b = tb, args.m = 4, args.n = 4, args.k = 4;
      args.a = &buffer, args.b = &buffer, args.c = &buffer, args.lda = 4, args.ldb = 4, args.ldc = 4;
      const std::string options = blas::detail::program_text(pretranspose_config<float>(), args, ctx).options;
      const bool copies = ta == blas::transpose::trans || tb == blas::transpose::none;
      EXPECT_NE(options.find("-DTRANS_A=0"), std::string::npos) << options;
      EXPECT_NE(options.find("-DTRANS_B=1"), std::string::npos) << options;
      EXPECT_NE(options.find(copies ? "-DPRETRANSPOSE=1" : "-DPRETRANSPOSE=0"), std::string::npos) << options;
    }
}

// Which operands a call copies: those stored along K, unless nothing is read (k = 0), the
// configuration is not local or does not ask, or a copy exceeds the limit or the device's
// largest allocation.
TEST(GemmPretranspose, CopiesWhatIsStoredAlongKWithinTheLimits) {
  const blas::gemm_params p = pretranspose_config<float>();
  const auto copies = [&](const blas::gemm_params& params, std::int64_t m, std::int64_t n, std::int64_t k, bool ta,
                          bool tb, std::uint64_t max_allocation = 0) {
    const auto c = blas::pretransposed(params, 4, m, n, k, ta, tb, max_allocation);
    return std::string(c.a ? "a" : "") + (c.b ? "b" : "");
  };
  EXPECT_EQ(copies(p, 100, 200, 300, false, false), "b");
  EXPECT_EQ(copies(p, 100, 200, 300, false, true), "");
  EXPECT_EQ(copies(p, 100, 200, 300, true, false), "ab");
  EXPECT_EQ(copies(p, 100, 200, 300, true, true), "a");
  EXPECT_EQ(copies(p, 100, 200, 0, true, false), "");
  EXPECT_EQ(copies(blas::parse_gemm_params("local item=4x4 wg=8x8"), 100, 200, 300, true, false), "");
  EXPECT_EQ(copies(blas::parse_gemm_params("naive wg=8x8"), 100, 200, 300, true, false), "");
  // 512 MiB of float: 2^27 elements. Rows are padded to 32: 4065 rows take 4096.
  EXPECT_EQ(copies(p, 4096, 8, std::int64_t(1) << 15, true, true), "a");
  EXPECT_EQ(copies(p, 4097, 8, std::int64_t(1) << 15, true, true), "");
  EXPECT_EQ(copies(p, 4065, 8, std::int64_t(1) << 15, true, true), "a");
  // Either copy too large: neither is made (the product reads both as they are).
  EXPECT_EQ(copies(p, 8, 4097, std::int64_t(1) << 15, true, false), "");
  EXPECT_EQ(copies(p, 100, 200, 300, true, false, 100 * 300 * 4), "");
  EXPECT_EQ(copies(p, 100, 200, 300, true, false, 224 * 300 * 4), "ab");
}

// The text form names the parameter; it applies to the local family alone.
TEST(GemmPretranspose, TextFormRoundTrips) {
  const blas::gemm_params p = pretranspose_config<float>();
  EXPECT_NE(blas::to_string(p).find("pretranspose=1"), std::string::npos) << blas::to_string(p);
  EXPECT_EQ(blas::parse_gemm_params(blas::to_string(p)), p);
  // Elsewhere it holds 0: a rule generated from the table says so.
  const auto broken = blas::check_gemm_rules(blas::parse_gemm_params("naive wg=8x8 pretranspose=1"), 4);
  ASSERT_EQ(broken.size(), 1u);
  EXPECT_EQ(broken[0].rule, "pretranspose_applies");
}

}  // namespace
