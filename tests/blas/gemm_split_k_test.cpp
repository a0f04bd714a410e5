// Split-K (gemm_params::split_k): several work-groups share an output tile along K, a second
// kernel sums their partial tiles in a fixed order. Against OpenBLAS at odd sizes with long K,
// every transpose, float and double; and the same bits on every run.
#include <gtest/gtest.h>

#include <cstring>

#include "blas/gemm_check.hpp"

namespace blas = tessera::blas;
namespace rt = tessera::runtime;
using tessera::testing::check_gemm;
using tessera::testing::gemm_case;

namespace {

const blas::transpose transposes[] = {blas::transpose::none, blas::transpose::trans};

template <typename T>
blas::gemm_params split_config(int split) {
  const int s = sizeof(T) / 4;  // cache_line_bytes is in bytes: the same K tile for both types
  return blas::parse_gemm_params(fmt::format(
      "local vector_width=2 cache_line_bytes={} item=4x4 wg=8x8 double_buffer=1 split_k={}", 32 * s, split));
}

template <typename T>
void matches_openblas_at_odd_sizes() {
  // Few output tiles and long, odd K (slices that end mid-tile and, at k = 1003 with 16 slices
  // of 8-element tiles, a last slice shorter than the others); m, n of 1 and primes.
  const std::int64_t sizes[][3] = {{1, 1, 1003}, {7, 5, 4099}, {33, 17, 1003}, {64, 61, 2053}, {13, 1, 257}};
  for (int split : {4, 16})
    for (auto ta : transposes)
      for (auto tb : transposes)
        for (const auto& s : sizes) {
          gemm_case c;
          c.trans_a = ta, c.trans_b = tb, c.m = s[0], c.n = s[1], c.k = s[2];
          c.lda_pad = 1, c.ldb_pad = 2, c.ldc_pad = 1, c.odd_ld = true;
          check_gemm<T>(split_config<T>(split), c);
        }
  // Batched, with the epilogue-free store of beta = 0 on a NaN-filled C, and k = 0.
  gemm_case batched;
  batched.m = 19, batched.n = 23, batched.k = 777, batched.batch = 5, batched.stride_gap = 3, batched.offset = 1;
  batched.beta = 0, batched.nan_in_c = true;
  check_gemm<T>(split_config<T>(8), batched);
  gemm_case no_k;
  no_k.m = 9, no_k.n = 11, no_k.k = 0;
  check_gemm<T>(split_config<T>(4), no_k);
}

TEST(GemmSplitK, FloatMatchesOpenBlasAtOddSizesAndEveryTranspose) { matches_openblas_at_odd_sizes<float>(); }
TEST(GemmSplitK, DoubleMatchesOpenBlasAtOddSizesAndEveryTranspose) { matches_openblas_at_odd_sizes<double>(); }

// The partial tiles are summed in slice order, whatever order the work-groups ran in: ten runs
// of the same call give the same bits (and a different split gives a result within rounding).
TEST(GemmSplitK, GivesTheSameBitsOnEveryRun) {
  auto& ctx = rt::context::get();
  const std::int64_t m = 37, n = 29, k = 6151;
  const auto a = tessera::testing::random_values<float>(m * k);
  const auto b = tessera::testing::random_values<float>(k * n);
  rt::device_buffer da(ctx, a.size() * sizeof(float)), db(ctx, b.size() * sizeof(float)), dc(ctx, m * n * sizeof(float));
  da.write(0, da.bytes(), a.data());
  db.write(0, db.bytes(), b.data());
  blas::gemm_arguments<float> args;
  args.m = m, args.n = n, args.k = k, args.alpha = 1.0f, args.beta = 0.0f;
  args.a = &da, args.lda = m, args.b = &db, args.ldb = k, args.c = &dc, args.ldc = m;
  const auto run = [&](int split) {
    blas::gemm_with(split_config<float>(split), args).wait();
    std::vector<float> out(m * n);
    dc.read(0, dc.bytes(), out.data());
    return out;
  };
  const auto first = run(16);
  for (int i = 0; i < 10; ++i) {
    const auto again = run(16);
    ASSERT_EQ(std::memcmp(first.data(), again.data(), first.size() * sizeof(float)), 0) << "run " << i;
  }
  const auto unsplit = run(1);
  for (std::size_t i = 0; i < first.size(); ++i) EXPECT_NEAR(first[i], unsplit[i], 1e-3f * (1 + std::abs(unsplit[i])));
}

// Each split adds one launch (the sum of the partial tiles).
TEST(GemmSplitK, SumsInASecondLaunch) {
  gemm_case c;
  c.m = 5, c.n = 6, c.k = 100;
  const auto before = blas::detail::launch_count();
  check_gemm<float>(split_config<float>(4), c);
  EXPECT_EQ(blas::detail::launch_count() - before, 2u);
}

}  // namespace
