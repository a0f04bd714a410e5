#pragma once
// Runs one (batched) GEMM on the device and checks it against OpenBLAS on fresh random data.
#include <tessera/blas/blas.hpp>
#include <tessera/runtime/context.hpp>

#include <gtest/gtest.h>

#include <cblas.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "support/test_data.hpp"

namespace tessera::testing {

/// One GEMM call to check. Leading dimensions are rows + *_pad; batch entries are
/// separated by the smallest stride plus *_gap elements.
struct gemm_case {
  blas::transpose trans_a = blas::transpose::none, trans_b = blas::transpose::none;
  std::int64_t m = 1, n = 1, k = 1;
  std::int64_t lda_pad = 0, ldb_pad = 0, ldc_pad = 0;
  std::int64_t batch = 1;
  std::int64_t stride_gap = 0;
  std::size_t offset = 0;  // the same element offset for A, B and C
  double alpha = 1.25, beta = -0.5;
  bool nan_in_c = false;  // fill C with NaN (use beta = 0): nothing may read it
  bool odd_ld = false;    // round each leading dimension up to an odd number (unaligned vectors)
  blas::math_mode math = blas::math_mode::exact;  // tf32: the bound allows TF32 products
  runtime::launch_event event = runtime::launch_event::returned;  // none: the call must return an empty event

  std::string describe() const {
    return fmt::format("{}{} m={} n={} k={} ld pads {}/{}/{}{} batch={} gap={} offset={} alpha={} beta={}{}",
                       blas::to_char(trans_a), blas::to_char(trans_b), m, n, k, lda_pad, ldb_pad, ldc_pad,
                       odd_ld ? " (odd)" : "", batch, stride_gap, offset, alpha, beta, nan_in_c ? " C=NaN" : "") +
           (math == blas::math_mode::tf32 ? " tf32" : "") + (event == runtime::launch_event::none ? " no event" : "");
  }
};

template <typename T>
void cblas_gemm(bool ta, bool tb, int m, int n, int k, T alpha, const T* a, int lda, const T* b, int ldb, T beta,
                T* c, int ldc) {
  const auto op = [](bool t) { return t ? CblasTrans : CblasNoTrans; };
  if constexpr (std::is_same_v<T, float>)
    cblas_sgemm(CblasColMajor, op(ta), op(tb), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  else
    cblas_dgemm(CblasColMajor, op(ta), op(tb), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

/// Runs the case with params (or gemm()'s default when empty) and checks every element of
/// C against OpenBLAS within a bound that scales with K and the type, and that nothing
/// outside the m x n matrices of C changed.
template <typename T>
void check_gemm(const std::optional<blas::gemm_params>& params, const gemm_case& c) {
  SCOPED_TRACE(c.describe() + (params ? " with " + blas::to_string(*params) : std::string(" with the default")));
  auto& ctx = runtime::context::get();
  if constexpr (std::is_same_v<T, double>)
    if (!ctx.device().has_fp64) GTEST_SKIP() << "the device has no fp64";
  const bool ta = c.trans_a == blas::transpose::trans, tb = c.trans_b == blas::transpose::trans;
  const std::int64_t a_rows = ta ? c.k : c.m, a_cols = ta ? c.m : c.k;
  const std::int64_t b_rows = tb ? c.n : c.k, b_cols = tb ? c.k : c.n;
  const auto leading = [&](std::int64_t rows, std::int64_t pad) {
    const std::int64_t ld = std::max<std::int64_t>(1, rows + pad);
    return c.odd_ld && ld % 2 == 0 ? ld + 1 : ld;
  };
  const std::int64_t lda = leading(a_rows, c.lda_pad), ldb = leading(b_rows, c.ldb_pad), ldc = leading(c.m, c.ldc_pad);
  const std::int64_t stride_a = lda * a_cols + c.stride_gap, stride_b = ldb * b_cols + c.stride_gap,
                     stride_c = ldc * c.n + c.stride_gap;
  const auto total = [&](std::int64_t stride) {
    return static_cast<std::size_t>(c.offset + stride * c.batch) + 1;  // +1: never an empty buffer
  };
  const std::vector<T> a = random_values<T>(total(stride_a));
  const std::vector<T> b = random_values<T>(total(stride_b));
  std::vector<T> c0 = random_values<T>(total(stride_c));
  if (c.nan_in_c) std::fill(c0.begin(), c0.end(), std::numeric_limits<T>::quiet_NaN());

  runtime::device_buffer da(ctx, a.size() * sizeof(T)), db(ctx, b.size() * sizeof(T)), dc(ctx, c0.size() * sizeof(T));
  da.write(0, da.bytes(), a.data());
  db.write(0, db.bytes(), b.data());
  dc.write(0, dc.bytes(), c0.data());

  blas::gemm_arguments<T> args;
  args.trans_a = c.trans_a, args.trans_b = c.trans_b, args.m = c.m, args.n = c.n, args.k = c.k;
  args.alpha = static_cast<T>(c.alpha), args.beta = static_cast<T>(c.beta);
  args.a = &da, args.a_offset = c.offset, args.lda = lda, args.stride_a = stride_a;
  args.b = &db, args.b_offset = c.offset, args.ldb = ldb, args.stride_b = stride_b;
  args.c = &dc, args.c_offset = c.offset, args.ldc = ldc, args.stride_c = stride_c;
  args.batch_count = c.batch;
  args.math = c.math;
  args.event = c.event;
  cl::Event event = params ? blas::gemm_with(*params, args) : blas::gemm(args);
  if (c.event == runtime::launch_event::none) {
    EXPECT_EQ(event(), nullptr) << "an event was made though none was asked for";
    ctx.finish();
  } else {
    event.wait();
  }
  std::vector<T> out(c0.size());
  dc.read(0, dc.bytes(), out.data());

  // Reference and the error bound: |C - ref| <= tol(K) * (|alpha| |A||B| + |beta C0|).
  std::vector<T> ref = c0, scale(c0.size(), T(0));
  std::vector<T> abs_a(a.size()), abs_b(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) abs_a[i] = std::abs(a[i]);
  for (std::size_t i = 0; i < b.size(); ++i) abs_b[i] = std::abs(b[i]);
  const T beta = static_cast<T>(c.beta);
  for (std::int64_t e = 0; e < c.batch; ++e) {
    const std::size_t ao = c.offset + e * stride_a, bo = c.offset + e * stride_b, co = c.offset + e * stride_c;
    if (c.m == 0 || c.n == 0) continue;
    if (beta == T(0))  // BLAS: beta = 0 ignores C (also NaN in it)
      for (std::int64_t j = 0; j < c.n; ++j)
        for (std::int64_t i = 0; i < c.m; ++i) ref[co + i + j * ldc] = T(0);
    cblas_gemm<T>(ta, tb, int(c.m), int(c.n), int(c.k), static_cast<T>(c.alpha), a.data() + ao, int(lda),
                  b.data() + bo, int(ldb), beta, ref.data() + co, int(ldc));
    for (std::int64_t j = 0; j < c.n; ++j)
      for (std::int64_t i = 0; i < c.m; ++i)
        scale[co + i + j * ldc] = beta == T(0) ? T(0) : std::abs(beta * c0[co + i + j * ldc]);
    cblas_gemm<T>(ta, tb, int(c.m), int(c.n), int(c.k), static_cast<T>(std::abs(c.alpha)), abs_a.data() + ao,
                  int(lda), abs_b.data() + bo, int(ldb), T(1), scale.data() + co, int(ldc));
  }
  // TF32 cuts each operand to 10 mantissa bits toward zero: up to 2^-10 of each, 2^-9 of a product.
  const T tol = tolerance<T>(static_cast<std::size_t>(c.k) + 2) +
                (c.math == blas::math_mode::tf32 && std::is_same_v<T, float> ? T(std::ldexp(1.0, -9)) : T(0));
  std::vector<bool> inside(c0.size(), false);
  for (std::int64_t e = 0; e < c.batch; ++e)
    for (std::int64_t j = 0; j < c.n; ++j)
      for (std::int64_t i = 0; i < c.m; ++i) inside[c.offset + e * stride_c + i + j * ldc] = true;
  int failures = 0;
  for (std::size_t i = 0; i < out.size() && failures < 5; ++i) {
    if (inside[i]) {
      const T bound = tol * scale[i] + std::numeric_limits<T>::min();
      if (!(std::abs(out[i] - ref[i]) <= bound)) {
        ++failures;
        ADD_FAILURE() << fmt::format("C[{}] = {} but OpenBLAS gives {} (bound {})", i, out[i], ref[i], bound);
      }
    } else if (std::bit_cast<std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>(out[i]) !=
               std::bit_cast<std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>(c0[i])) {
      ++failures;
      ADD_FAILURE() << fmt::format("element {} outside the matrices of C changed from {} to {}", i, c0[i], out[i]);
    }
  }
}

/// gemm() with the defaults table's configuration, odd leading dimensions (so that each
/// configuration and pair of transposes builds one kernel) and batches one element apart.
template <typename T>
void check_default_gemm(blas::transpose ta, blas::transpose tb, std::int64_t m, std::int64_t n, std::int64_t k,
                        std::int64_t batch = 1) {
  gemm_case c;
  c.trans_a = ta, c.trans_b = tb, c.m = m, c.n = n, c.k = k, c.batch = batch;
  c.lda_pad = c.ldb_pad = c.ldc_pad = 1, c.odd_ld = true, c.stride_gap = 1;
  check_gemm<T>(std::nullopt, c);
}

/// Both transposes, for the tests that run each of the four pairs.
inline constexpr blas::transpose every_transpose[] = {blas::transpose::none, blas::transpose::trans};

/// `params` against OpenBLAS at each m x n x k of `sizes` in every transpose pair, the leading
/// dimensions padded to odd numbers (unaligned vectors).
template <typename T>
void check_every_transpose_at(const blas::gemm_params& params, std::span<const std::array<std::int64_t, 3>> sizes) {
  for (auto ta : every_transpose)
    for (auto tb : every_transpose)
      for (const auto& s : sizes) {
        gemm_case c;
        c.trans_a = ta, c.trans_b = tb, c.m = s[0], c.n = s[1], c.k = s[2];
        c.lda_pad = 1, c.ldb_pad = 2, c.ldc_pad = 1, c.odd_ld = true;
        check_gemm<T>(params, c);
      }
}

/// `params` against OpenBLAS batched (19 x 23 x k, 5 entries with gaps and an offset), storing with
/// beta = 0 into a NaN-filled C that nothing may read; and at k = 0 (C = beta C).
template <typename T>
void check_batched_and_no_k(const blas::gemm_params& params, std::int64_t k) {
  gemm_case batched;
  batched.m = 19, batched.n = 23, batched.k = k, batched.batch = 5, batched.stride_gap = 3, batched.offset = 1;
  batched.beta = 0, batched.nan_in_c = true;
  check_gemm<T>(params, batched);
  gemm_case no_k;
  no_k.m = 9, no_k.n = 11, no_k.k = 0;
  check_gemm<T>(params, no_k);
}

/// A small local-family configuration (8 x 8 work-items of 4 x 4, double-buffered, vectors of 2)
/// with the same K tile for float and double (cache_line_bytes is in bytes), plus `more`.
template <typename T>
blas::gemm_params small_local_config(std::string_view more) {
  return blas::parse_gemm_params(fmt::format(
      "local vector_width=2 cache_line_bytes={} item=4x4 wg=8x8 double_buffer=1 {}", 32 * int(sizeof(T) / 4), more));
}

/// For the kernels that combine partial sums in a fixed order (split-K's slices, k-groups): ten
/// runs of the same call (37 x 29 x 6151 NN on fresh random data) give the same bits with each of
/// `fixed_order`, and each result is within rounding of `reference`'s.
inline void expect_the_same_bits_on_every_run(const blas::gemm_params& reference,
                                              const std::vector<blas::gemm_params>& fixed_order) {
  auto& ctx = runtime::context::get();
  const std::int64_t m = 37, n = 29, k = 6151;
  const auto a = random_values<float>(m * k);
  const auto b = random_values<float>(k * n);
  runtime::device_buffer da(ctx, a.size() * sizeof(float)), db(ctx, b.size() * sizeof(float)),
      dc(ctx, m * n * sizeof(float));
  da.write(0, da.bytes(), a.data());
  db.write(0, db.bytes(), b.data());
  blas::gemm_arguments<float> args;
  args.m = m, args.n = n, args.k = k, args.alpha = 1.0f, args.beta = 0.0f;
  args.a = &da, args.lda = m, args.b = &db, args.ldb = k, args.c = &dc, args.ldc = m;
  const auto run = [&](const blas::gemm_params& params) {
    blas::gemm_with(params, args).wait();
    std::vector<float> out(m * n);
    dc.read(0, dc.bytes(), out.data());
    return out;
  };
  const auto expected = run(reference);
  for (const blas::gemm_params& params : fixed_order) {
    const auto first = run(params);
    for (int i = 0; i < 10; ++i) {
      const auto again = run(params);
      ASSERT_EQ(std::memcmp(first.data(), again.data(), first.size() * sizeof(float)), 0)
          << blas::to_string(params) << ", run " << i;
    }
    for (std::size_t i = 0; i < first.size(); ++i)
      EXPECT_NEAR(first[i], expected[i], 1e-3f * (1 + std::abs(expected[i]))) << blas::to_string(params);
  }
}

/// relu(A B + bias[row]) through a fused epilogue (gemm_common.cl's GEMM_EPILOGUE, as the kernel
/// generator's fused GEMM attaches one) in the store of `params`, against OpenBLAS on fresh
/// random data: A is m x k (stored k x m where trans_a), B is k x n (stored n x k where trans_b).
/// Each element is within bound x (|bias| + sum |a b|), and the relu must change a quarter of
/// them. Returns the launches the call made.
inline std::size_t check_bias_relu_epilogue(const blas::gemm_params& params, bool trans_a, bool trans_b, int m, int n,
                                            int k, blas::math_mode math, float bound) {
  auto& ctx = runtime::context::get();
  const auto ha = random_values<float>(std::size_t(m) * k), hb = random_values<float>(std::size_t(k) * n);
  const auto bias = random_values<float>(m);
  runtime::device_buffer a(ctx, ha.size() * 4), b(ctx, hb.size() * 4), c(ctx, std::size_t(m) * n * 4),
      d_bias(ctx, std::size_t(m) * 4);
  a.write(0, a.bytes(), ha.data()), b.write(0, b.bytes(), hb.data()), d_bias.write(0, d_bias.bytes(), bias.data());
  const int lda = trans_a ? k : m, ldb = trans_b ? n : k;
  blas::gemm_arguments<float> args;
  args.trans_a = trans_a ? blas::transpose::trans : blas::transpose::none;
  args.trans_b = trans_b ? blas::transpose::trans : blas::transpose::none;
  args.m = m, args.n = n, args.k = k, args.a = &a, args.b = &b, args.c = &c, args.lda = lda, args.ldb = ldb, args.ldc = m;
  args.math = math;
  const runtime::kernel_argument bias_argument = d_bias.handle();
  const blas::detail::gemm_epilogue epilogue{
      "bias and relu",
      "#define GEMM_EPILOGUE_PARAMETERS , const global float* restrict bias\n"
      "#define GEMM_EPILOGUE_ARGUMENTS , bias\n"
      "#define GEMM_EPILOGUE(value, row, col) fmax((value) + bias[row], 0.0f)\n",
      std::span(&bias_argument, 1)};
  const auto before = blas::detail::launch_count();
  blas::detail::gemm_with_epilogue(params, args, epilogue).wait();
  const std::size_t launches = blas::detail::launch_count() - before;
  std::vector<float> out(std::size_t(m) * n);
  c.read(0, c.bytes(), out.data());
  std::vector<float> ref(std::size_t(m) * n, 0.f);
  cblas_gemm<float>(trans_a, trans_b, m, n, k, 1.f, ha.data(), lda, hb.data(), ldb, 0.f, ref.data(), m);
  const auto a_at = [&](int i, int p) { return trans_a ? ha[p + std::size_t(i) * lda] : ha[i + std::size_t(p) * lda]; };
  const auto b_at = [&](int p, int j) { return trans_b ? hb[j + std::size_t(p) * ldb] : hb[p + std::size_t(j) * ldb]; };
  int negative_before_relu = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      const float sum = ref[i + std::size_t(j) * m] + bias[i];
      negative_before_relu += sum < 0;
      float scale = std::abs(bias[i]);
      for (int p = 0; p < k; ++p) scale += std::abs(a_at(i, p) * b_at(p, j));
      EXPECT_NEAR(out[i + std::size_t(j) * m], std::max(sum, 0.f), scale * bound) << i << ", " << j;
    }
  EXPECT_GT(negative_before_relu, m * n / 4) << "the relu must matter";
  return launches;
}

/// The configurations the tests run, one or more per family, for elements of T. The
/// K tile is the same for float and double (cache_line_bytes scales with the element).
template <typename T>
std::vector<blas::gemm_params> family_configs() {
  const int s = sizeof(T) / 4;  // cache_line_bytes is in bytes
  std::vector<std::string> texts = {
      "naive wg=8x8",
      "no_local vector_width=2 cache_line_bytes=" + std::to_string(16 * s) + " item=4x2 wg=8x4 sg=2x2",
      "no_local_full vector_width=8 cache_line_bytes=" + std::to_string(16 * s) + " item=8x4 wg=4x4",
      "local vector_width=1 cache_line_bytes=" + std::to_string(32 * s) + " item=2x2 wg=8x8",
      "local vector_width=4 cache_line_bytes=" + std::to_string(64 * s) +
          " item=4x4 wg=8x8 sg=2x4 double_buffer=1 no_bank_conflict_a=1 no_bank_conflict_b=1",
      // split-K: more slices than K tiles at small K (empty slices), and double-buffered slices
      "local vector_width=1 cache_line_bytes=" + std::to_string(32 * s) + " item=2x2 wg=8x8 split_k=16",
      "local vector_width=4 cache_line_bytes=" + std::to_string(64 * s) +
          " item=4x4 wg=8x8 double_buffer=1 split_k=4",
      // split-K chosen per call (chosen_split_k): split where few waves of output tiles leave
      // units idle, whole elsewhere; the last-resort default's tile (gemm_defaults.def),
      // whose guarded stores PoCL 3.1 once miscompiled (gemm_store_vector_guarded)
      "local vector_width=2 cache_line_bytes=" + std::to_string(32 * s) + " item=2x2 wg=8x8 double_buffer=1 split_k=0",
  };
  std::vector<blas::gemm_params> out;
  for (const auto& t : texts) out.push_back(blas::parse_gemm_params(t));
  return out;
}

inline std::string family_label(const blas::gemm_params& p) {
  std::string s = blas::to_string(p);
  std::string out;
  for (char ch : s.substr(0, s.find(" tl="))) out += (std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_');
  if (p.split_k > 1) out += "_split_k_" + std::to_string(p.split_k);
  if (p.split_k == 0) out += "_split_k_chosen";
  return out;
}

}  // namespace tessera::testing

namespace tessera::blas {
inline void PrintTo(const gemm_rule_violation& v, std::ostream* os) { *os << v.rule; }
inline void PrintTo(transpose t, std::ostream* os) { *os << to_char(t); }
}  // namespace tessera::blas
