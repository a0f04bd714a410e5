// The tensor-core family (mma) and the TF32 math mode. On every device: how a call picks its
// configuration, and that the family is refused, naming why, where it cannot run or the call
// did not allow TF32. On a device with tensor cores (NVIDIA, compute capability 8.0+): every
// transpose at odd sizes, K not a multiple of the mma's 8, unaligned leading dimensions,
// offsets, batches and a fused epilogue, against OpenBLAS within the TF32 bound.
#include <tessera/blas/blas.hpp>
#include <tessera/blas/gemm_defaults.hpp>
#include <tessera/runtime/float16.hpp>
#include <tessera/runtime/runtime.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "blas/gemm_check.hpp"

namespace blas = tessera::blas;
namespace rt = tessera::runtime;
using ::testing::HasSubstr;

namespace {

bool has_tensor_cores() { return blas::device_limits(rt::context::get().device()).tensor_cores == 1; }

const blas::gemm_device_key h200_key{"NVIDIA H200", "sm_90", "nvidia", "gpu"};
const blas::gemm_device_key a100_key{"NVIDIA A100-SXM4-80GB", "sm_80", "nvidia", "gpu"};
const blas::gemm_device_key rtx_key{"NVIDIA GeForce RTX 3090", "sm_86", "nvidia", "gpu"};
const blas::gemm_device_key volta_key{"Tesla V100-SXM2-16GB", "sm_70", "nvidia", "gpu"};
const blas::gemm_limits h200_limits{49152, 1024, 1, 232448};
const blas::gemm_limits a100_limits{49152, 1024, 1, 166912};
const blas::gemm_limits rtx_limits{49152, 1024, 1, 101376};
const blas::gemm_limits no_tensor_cores{49152, 1024};

// The configurations the GPU tests run: the hand-picked defaults' shapes and smaller blocks.
const char* const mma_configs[] = {
    "mma cache_line_bytes=64 item=64x64 wg=4x2 stages=5 paired_rows=1",
    "mma cache_line_bytes=128 item=64x64 wg=2x4 stages=3",
    "mma cache_line_bytes=128 item=32x32 wg=2x2 stages=3",
    "mma cache_line_bytes=64 item=16x32 wg=1x2 stages=2 paired_rows=1",
};

blas::gemm_arguments<float> call_on(const rt::device_buffer& a, const rt::device_buffer& b, rt::device_buffer& c,
                                    int size, blas::math_mode math) {
  blas::gemm_arguments<float> args;
  args.m = args.n = args.k = size;
  args.a = &a, args.b = &b, args.c = &c, args.lda = args.ldb = args.ldc = size;
  args.math = math;
  return args;
}

}  // namespace

TEST(GemmMma, RulesKeepTheFamilyToTensorCoresAndFloat) {
  const auto mma = blas::parse_gemm_params(mma_configs[0]);
  EXPECT_THAT(blas::check_gemm_rules(mma, 4, h200_limits), ::testing::ElementsAre());
  const auto rules_broken = [](const blas::gemm_params& p, int bytes, const blas::gemm_limits& limits) {
    std::vector<std::string> names;
    for (const auto& v : blas::check_gemm_rules(p, bytes, limits)) names.emplace_back(v.rule);
    return names;
  };
  EXPECT_THAT(rules_broken(mma, 4, no_tensor_cores), ::testing::Contains("mma_needs_tensor_cores"));
  EXPECT_THAT(rules_broken(mma, 8, h200_limits), ::testing::Contains("mma_element_types"));
  // 5 stages of a 256 x 128 block with K tiles of 16 take 155 KiB: more than an RTX 3090's 99.
  EXPECT_THAT(rules_broken(mma, 4, rtx_limits), ::testing::Contains("mma_local_memory_limit"));
  EXPECT_THAT(rules_broken(blas::parse_gemm_params("mma cache_line_bytes=128 item=24x32 wg=2x2 stages=3"), 4,
                           h200_limits),
              ::testing::Contains("mma_warp_tile_of_fragments"));
  EXPECT_THAT(rules_broken(blas::parse_gemm_params("mma cache_line_bytes=32 item=32x32 wg=2x2 stages=3"), 4,
                           h200_limits),
              ::testing::Contains("mma_k_tile_of_step_pairs"));
  EXPECT_THAT(rules_broken(blas::parse_gemm_params("mma cache_line_bytes=128 item=32x32 wg=2x2"), 4, h200_limits),
              ::testing::Contains("mma_stages_pipeline"));
  // Its work-groups are warps: 4 x 2 of them are 256 work-items.
  EXPECT_EQ(blas::derive(mma, 4).work_group_size, 256);
  EXPECT_EQ(blas::derive(mma, 4).block_rows, 256);
  EXPECT_EQ(blas::derive(mma, 4).block_cols, 128);
}

TEST(GemmMma, Tf32CallsPickTheFamilyOnlyWhereItRunsAndExactCallsNever) {
  const auto& table = blas::gemm_defaults_table();
  const blas::gemm_problem_shape big{8192, 8192, 8192}, mid{1000, 700, 300}, small{33, 17, 5};
  for (const auto& shape : {big, mid, small}) {
    const auto tf32 = blas::choose_default(table, h200_key, h200_limits, 4, shape, "tf32");
    ASSERT_NE(tf32.entry, nullptr);
    EXPECT_EQ(tf32.params.family, blas::gemm_family::mma) << blas::to_string(tf32.params);
    EXPECT_NE(blas::choose_default(table, h200_key, h200_limits, 4, shape).params.family, blas::gemm_family::mma);
    // No tensor cores (a V100, any CPU): no TF32 entry, so the call takes the exact defaults.
    EXPECT_EQ(blas::choose_default(table, volta_key, no_tensor_cores, 4, shape, "tf32").entry, nullptr);
    // double has no TF32 entries.
    EXPECT_EQ(blas::choose_default(table, h200_key, h200_limits, 8, shape, "tf32").entry, nullptr);
  }
  EXPECT_EQ(blas::to_string(blas::choose_default(table, h200_key, h200_limits, 4, big, "tf32").params),
            blas::to_string(blas::parse_gemm_params(mma_configs[0])));
}

TEST(GemmMma, EveryTf32PickForThousandsOfRandomShapesFitsItsDevice) {
  const auto& table = blas::gemm_defaults_table();
  const std::vector<std::pair<blas::gemm_device_key, blas::gemm_limits>> devices{
      {h200_key, h200_limits}, {a100_key, a100_limits}, {rtx_key, rtx_limits}, {volta_key, no_tensor_cores}};
  std::mt19937_64 random(20261127);
  const auto size = [&](int max_log2) {
    return std::max<std::int64_t>(1, std::int64_t(std::exp2(std::uniform_real_distribution<double>(0, max_log2)(random))));
  };
  int mma_picks = 0;
  for (int i = 0; i < 4000; ++i) {
    const blas::gemm_problem_shape shape{size(15), size(15), size(16),
                                         std::uniform_int_distribution<int>(0, 3)(random) == 0 ? size(12) : 1,
                                         bool(random() & 1), bool(random() & 1)};
    for (const auto& [key, limits] : devices) {
      const auto choice = blas::choose_default(table, key, limits, 4, shape, "tf32");
      if (choice.entry == nullptr) continue;
      ASSERT_THAT(blas::check_gemm_rules(choice.params, 4, limits), ::testing::ElementsAre())
          << blas::to_string(choice.params) << " for " << key.name << " at " << shape.m << "x" << shape.n << "x"
          << shape.k << " batch " << shape.batch;
      mma_picks += choice.params.family == blas::gemm_family::mma;
    }
  }
  EXPECT_GT(mma_picks, 4000 * 2);  // the H200 and the A100 take the family at every shape
}

// Tensor-core blocks are large: where a shape's would leave most of an H200's 132 SMs idle,
// the smallest blocks serve, or (TF32) the exact path; the figures behind it are in
// choose_tensor_core_default's comment.
TEST(GemmMma, FewBlocksTakeSmallerOnesOrTheExactPath) {
  const auto& table = blas::gemm_defaults_table();
  const auto pick = [&](const blas::gemm_problem_shape& shape, const char* precision = "tf32", int bytes = 4) {
    const auto choice = blas::choose_tensor_core_default(table, h200_key, h200_limits, bytes, shape, precision, 132);
    return choice.entry == nullptr ? std::string("exact") : blas::to_string(choice.params);
  };
  const auto text = [](const char* config) { return blas::to_string(blas::parse_gemm_params(config)); };
  EXPECT_EQ(pick({2048, 2048, 2048}), text(mma_configs[0]));  // 128 blocks of 256 x 128
  EXPECT_EQ(pick({1024, 1024, 1024}), text(mma_configs[2]));  // 32 of those: 256 of 64 x 64
  EXPECT_EQ(pick({64, 64, 64, 256}), text(mma_configs[2]));   // a batch of 256 single blocks
  EXPECT_EQ(pick({512, 512, 512}), "exact");                  // 64 blocks of 64 x 64
  EXPECT_EQ(pick({8192, 64, 8192}), "exact");                 // 128 of them: a long K each
  // Plenty of blocks: the precision's own pick (tuned shape or class entry) stands.
  for (const auto& [precision, bytes] : {std::pair{"fp16", 2}, {"bf16", 2}, {"tf32", 4}})
    for (const bool ta : {false, true})
      for (const bool tb : {false, true}) {
        const blas::gemm_problem_shape large{8192, 8192, 8192, 1, ta, tb};
        EXPECT_EQ(pick(large, precision, bytes),
                  blas::to_string(blas::choose_default(table, h200_key, h200_limits, bytes, large, precision).params))
            << precision << ta << tb;
      }
  EXPECT_EQ(pick({8192, 8192, 8192}, "tf32", 4), text(mma_configs[0]));
}

TEST(GemmMma, TheFamilyNeedsTheCallsTf32MathMode) {
  auto& ctx = rt::context::get();
  rt::device_buffer a(ctx, 64 * 64 * 4), b(ctx, 64 * 64 * 4), c(ctx, 64 * 64 * 4);
  const auto mma = blas::parse_gemm_params(mma_configs[2]);
  const auto before = blas::detail::launch_count();
  try {
    blas::gemm_with(mma, call_on(a, b, c, 64, blas::math_mode::exact));
    ADD_FAILURE() << "an exact call ran on the TF32 family";
  } catch (const tessera::argument_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("multiplies in TF32 on tensor cores, but the call's math mode is exact"));
    EXPECT_THAT(e.what(), HasSubstr("math_mode::tf32"));
  }
  EXPECT_EQ(blas::detail::launch_count(), before);
}

TEST(GemmMma, DoubleIsRefusedEvenInTf32Mode) {
  auto& ctx = rt::context::get();
  rt::device_buffer a(ctx, 16 * 8), b(ctx, 16 * 8), c(ctx, 16 * 8);
  blas::gemm_arguments<double> args;
  args.m = args.n = args.k = 4, args.a = &a, args.b = &b, args.c = &c, args.lda = args.ldb = args.ldc = 4;
  args.math = blas::math_mode::tf32;
  if (!ctx.device().has_fp64) GTEST_SKIP() << "the device has no fp64";
  EXPECT_THROW(blas::gemm_with(blas::parse_gemm_params(mma_configs[2]), args), tessera::argument_error);
}

TEST(GemmMma, WithoutTensorCoresTheFamilyIsRefusedNamingTheRule) {
  if (has_tensor_cores()) GTEST_SKIP() << "the device has tensor cores";
  auto& ctx = rt::context::get();
  rt::device_buffer a(ctx, 64 * 64 * 4), b(ctx, 64 * 64 * 4), c(ctx, 64 * 64 * 4);
  const auto before = blas::detail::launch_count();
  try {
    blas::gemm_with(blas::parse_gemm_params(mma_configs[2]), call_on(a, b, c, 64, blas::math_mode::tf32));
    ADD_FAILURE() << "the tensor-core family ran on " << ctx.device().name;
  } catch (const tessera::unsupported_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("rule 'mma_needs_tensor_cores'"));
    EXPECT_THAT(e.what(), HasSubstr(ctx.device().name));
  }
  EXPECT_EQ(blas::detail::launch_count(), before);
}

TEST(GemmMma, WithoutTensorCoresATf32CallIsExact) {
  if (has_tensor_cores()) GTEST_SKIP() << "the device has tensor cores";
  auto& ctx = rt::context::get();
  rt::device_buffer a(ctx, 4), b(ctx, 4), c_buffer(ctx, 4);
  for (const auto& [ta, tb] : {std::pair{false, false}, {true, false}, {false, true}, {true, true}}) {
    blas::gemm_arguments<float> exact = call_on(a, b, c_buffer, 301, blas::math_mode::exact), tf32 = exact;
    exact.trans_a = tf32.trans_a = ta ? blas::transpose::trans : blas::transpose::none;
    exact.trans_b = tf32.trans_b = tb ? blas::transpose::trans : blas::transpose::none;
    tf32.math = blas::math_mode::tf32;
    EXPECT_EQ(blas::to_string(blas::default_params_for(tf32, ctx)), blas::to_string(blas::default_params_for(exact, ctx)));
  }
  // And the bits are those of the exact call (the same kernel), which check_gemm holds to FP32.
  const int m = 37, n = 29, k = 41;
  const auto ha = tessera::testing::random_values<float>(m * k), hb = tessera::testing::random_values<float>(k * n);
  std::vector<float> results[2];
  for (const auto math : {blas::math_mode::exact, blas::math_mode::tf32}) {
    rt::matrix<float> ma(ha, m, k), mb(hb, k, n), mc(m, n);
    blas::gemm(blas::transpose::none, blas::transpose::none, 1.f, ma, mb, 0.f, mc, math).wait();
    results[math == blas::math_mode::tf32].resize(m * n);
    mc.storage().read(0, mc.storage().bytes(), results[math == blas::math_mode::tf32].data());
  }
  EXPECT_EQ(results[0], results[1]);
  tessera::testing::gemm_case c;
  c.m = m, c.n = n, c.k = k;
  tessera::testing::check_gemm<float>(std::nullopt, c);
}

TEST(GemmMma, TheKernelTextCopiesAlignedOperandsIn16ByteChunks) {
  auto& ctx = rt::context::get();
  rt::device_buffer a(ctx, 4), b(ctx, 4), c(ctx, 4);
  const auto mma = blas::parse_gemm_params(mma_configs[0]);
  auto args = call_on(a, b, c, 64, blas::math_mode::tf32);
  const auto aligned = blas::detail::program_text(mma, args, ctx);
  EXPECT_THAT(aligned.source, HasSubstr("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"));
  EXPECT_THAT(aligned.options, HasSubstr("-DIS_MMA=1"));
  EXPECT_THAT(aligned.options, HasSubstr("-DSTAGES=5"));
  EXPECT_THAT(aligned.options, HasSubstr("-DA_ALIGNED=1"));
  EXPECT_THAT(aligned.options, HasSubstr("-DB_ALIGNED=1"));
  args.lda = 66, args.a_offset = 2;  // 8-byte aligned only: element copies for A
  const auto unaligned = blas::detail::program_text(mma, args, ctx);
  EXPECT_THAT(unaligned.options, HasSubstr("-DA_ALIGNED=0"));
  EXPECT_THAT(unaligned.options, HasSubstr("-DB_ALIGNED=1"));
}

// ---- on tensor cores ---------------------------------------------------------------------

struct mma_case {
  std::size_t config;
  bool ta, tb;
};

class GemmMmaOnTensorCores : public ::testing::TestWithParam<mma_case> {};

TEST_P(GemmMmaOnTensorCores, MatchesOpenBlasWithinTheTf32Bound) {
  if (!has_tensor_cores()) GTEST_SKIP() << "no tensor cores on " << rt::context::get().device().name;
  const auto [config, ta, tb] = GetParam();
  const auto params = blas::parse_gemm_params(mma_configs[config]);
  const auto t = [](bool x) { return x ? blas::transpose::trans : blas::transpose::none; };
  struct shape {
    std::int64_t m, n, k, batch;
  };
  // One element, primes, K below and not a multiple of the mma's 8, edges in every dimension of
  // the blocks, a batch, and a K of several tiles.
  for (const shape s : {shape{1, 1, 1, 1}, {17, 33, 9, 1}, {129, 65, 100, 1}, {300, 257, 515, 1}, {70, 40, 37, 3},
                        {256, 128, 64, 1}}) {
    for (const bool odd : {false, true}) {
      tessera::testing::gemm_case c;
      c.trans_a = t(ta), c.trans_b = t(tb), c.m = s.m, c.n = s.n, c.k = s.k, c.batch = s.batch;
      c.math = blas::math_mode::tf32;
      if (odd) {  // unaligned: element copies, an offset, gaps between batch entries
        c.lda_pad = c.ldb_pad = c.ldc_pad = 1, c.odd_ld = true, c.offset = 3, c.stride_gap = 5;
      } else {  // 16-byte copies: leading dimensions and offsets in multiples of 4 elements
        c.lda_pad = (4 - (ta ? s.k : s.m) % 4) % 4, c.ldb_pad = (4 - (tb ? s.n : s.k) % 4) % 4;
        c.ldc_pad = (4 - s.m % 4) % 4, c.offset = 4, c.stride_gap = 8;
      }
      tessera::testing::check_gemm<float>(params, c);
    }
  }
  // beta = 0 never reads C (NaN there stays out of the result); alpha = 0 scales C only.
  tessera::testing::gemm_case nan_c;
  nan_c.trans_a = t(ta), nan_c.trans_b = t(tb), nan_c.m = 45, nan_c.n = 31, nan_c.k = 20, nan_c.beta = 0;
  nan_c.nan_in_c = true, nan_c.math = blas::math_mode::tf32;
  tessera::testing::check_gemm<float>(params, nan_c);
  tessera::testing::gemm_case alpha_zero = nan_c;
  alpha_zero.nan_in_c = false, alpha_zero.alpha = 0, alpha_zero.beta = 1.5;
  tessera::testing::check_gemm<float>(params, alpha_zero);
}

std::vector<mma_case> all_mma_cases() {
  std::vector<mma_case> out;
  for (std::size_t config = 0; config < std::size(mma_configs); ++config)
    for (int t = 0; t < 4; ++t) out.push_back({config, (t & 2) != 0, (t & 1) != 0});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Configurations, GemmMmaOnTensorCores, ::testing::ValuesIn(all_mma_cases()),
                         [](const ::testing::TestParamInfo<mma_case>& info) {
                           return fmt::format("config{}_{}{}", info.param.config, info.param.ta ? 't' : 'n',
                                              info.param.tb ? 't' : 'n');
                         });

TEST(GemmMma, TheDefaultTf32PickIsCheckedAtEveryTranspose) {
  if (!has_tensor_cores()) GTEST_SKIP() << "no tensor cores on " << rt::context::get().device().name;
  for (int t = 0; t < 4; ++t) {
    tessera::testing::gemm_case c;
    c.trans_a = (t & 2) ? blas::transpose::trans : blas::transpose::none;
    c.trans_b = (t & 1) ? blas::transpose::trans : blas::transpose::none;
    c.m = 1100, c.n = 1030, c.k = 333, c.math = blas::math_mode::tf32;
    tessera::testing::check_gemm<float>(std::nullopt, c);
  }
}

// The fused epilogue (gemm_common.cl's GEMM_EPILOGUE) runs in this family's store too:
// relu(alpha * A B + beta * C + bias[row]).
TEST(GemmMma, AFusedEpilogueRunsInTheStore) {
  if (!has_tensor_cores()) GTEST_SKIP() << "no tensor cores on " << rt::context::get().device().name;
  // TF32 products: 10 bits of mantissa, the bound 2^-8 of the magnitudes.
  tessera::testing::check_bias_relu_epilogue(blas::parse_gemm_params(mma_configs[2]), false, false, 150, 70, 64,
                                             blas::math_mode::tf32, std::ldexp(1.f, -8));
}

// ---- 16-bit operands (float16, bfloat16; C in float) ------------------------------------

namespace {

const char* const mma16_configs[] = {
    "mma cache_line_bytes=64 item=64x64 wg=2x4 stages=4",
    "mma cache_line_bytes=64 item=32x32 wg=2x2 stages=3",
    "mma cache_line_bytes=64 item=16x32 wg=1x2 stages=2",
};

// A call with A and B of 2-byte elements in buffers of the given sizes.
blas::gemm_arguments<float> call16(const rt::device_buffer& a, const rt::device_buffer& b, rt::device_buffer& c,
                                   int size, blas::operand_type type) {
  blas::gemm_arguments<float> args = call_on(a, b, c, size, blas::math_mode::exact);
  args.operands = type;
  return args;
}

// Runs C = alpha op(A) op(B) + beta C with A and B stored as Half (and C too where c16), checked
// element by element against OpenBLAS on the same values widened to float: a product of two
// 16-bit values is exact in float, so the bound is FP32 summation's, plus with c16 one rounding
// to Half (its unit roundoff: 2^-11 float16, 2^-8 bfloat16) of the result.
template <typename Half>
void check_gemm16(const blas::gemm_params& params, blas::operand_type type, bool ta, bool tb, std::int64_t m,
                  std::int64_t n, std::int64_t k, std::int64_t batch, bool aligned, bool c16 = false) {
  SCOPED_TRACE(fmt::format("{} {}{} m={} n={} k={} batch={} {}{}", blas::to_string(type), ta ? 'T' : 'N',
                           tb ? 'T' : 'N', m, n, k, batch, aligned ? "aligned" : "unaligned", c16 ? ", C 16-bit" : ""));
  auto& ctx = rt::context::get();
  const std::int64_t a_rows = ta ? k : m, a_cols = ta ? m : k, b_rows = tb ? n : k, b_cols = tb ? k : n;
  // Aligned: leading dimensions, offsets and strides in multiples of 8 elements (16 bytes).
  const auto ld = [&](std::int64_t rows) { return aligned ? (rows + 7) / 8 * 8 : rows + 1 + (rows % 2 == 0); };
  const std::int64_t lda = ld(a_rows), ldb = ld(b_rows), ldc = m + 3;
  const std::int64_t offset = aligned ? 8 : 3, gap = aligned ? 16 : 5;
  const std::int64_t stride_a = lda * a_cols + gap, stride_b = ldb * b_cols + gap, stride_c = ldc * n + 2;
  const auto wide_a = tessera::testing::random_values<float>(std::size_t(offset + stride_a * batch));
  const auto wide_b = tessera::testing::random_values<float>(std::size_t(offset + stride_b * batch));
  const auto half_a = rt::to_16bit<Half>(wide_a), half_b = rt::to_16bit<Half>(wide_b);
  const auto a = rt::to_float<Half>(half_a), b = rt::to_float<Half>(half_b);  // the values the device sees
  auto c0 = tessera::testing::random_values<float>(std::size_t(stride_c * batch));
  const auto half_c = rt::to_16bit<Half>(c0);
  if (c16) c0 = rt::to_float<Half>(half_c);
  rt::device_buffer da(ctx, half_a.size() * 2), db(ctx, half_b.size() * 2), dc(ctx, c0.size() * (c16 ? 2 : 4));
  da.write(0, da.bytes(), half_a.data()), db.write(0, db.bytes(), half_b.data());
  if (c16)
    dc.write(0, dc.bytes(), half_c.data());
  else
    dc.write(0, dc.bytes(), c0.data());
  blas::gemm_arguments<float> args;
  args.trans_a = ta ? blas::transpose::trans : blas::transpose::none;
  args.trans_b = tb ? blas::transpose::trans : blas::transpose::none;
  args.m = m, args.n = n, args.k = k, args.alpha = 1.25f, args.beta = -0.5f, args.batch_count = batch;
  args.a = &da, args.a_offset = offset, args.lda = lda, args.stride_a = stride_a;
  args.b = &db, args.b_offset = offset, args.ldb = ldb, args.stride_b = stride_b;
  args.c = &dc, args.ldc = ldc, args.stride_c = stride_c, args.operands = type;
  if (c16) args.result = type;
  blas::gemm_with(params, args).wait();
  std::vector<float> out(c0.size());
  if (c16) {
    std::vector<Half> bits(c0.size());
    dc.read(0, dc.bytes(), bits.data());
    out = rt::to_float<Half>(bits);
  } else {
    dc.read(0, dc.bytes(), out.data());
  }
  const float rounding = !c16 ? 0.f : type == blas::operand_type::float16 ? 0x1p-11f : 0x1p-8f;

  std::vector<float> ref = c0, scale(c0.size(), 0.f), abs_a(a.size()), abs_b(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) abs_a[i] = std::abs(a[i]);
  for (std::size_t i = 0; i < b.size(); ++i) abs_b[i] = std::abs(b[i]);
  for (std::int64_t e = 0; e < batch; ++e) {
    const std::size_t ao = offset + e * stride_a, bo = offset + e * stride_b, co = e * stride_c;
    tessera::testing::cblas_gemm<float>(ta, tb, int(m), int(n), int(k), 1.25f, a.data() + ao, int(lda),
                                        b.data() + bo, int(ldb), -0.5f, ref.data() + co, int(ldc));
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < m; ++i) scale[co + i + j * ldc] = 0.5f * std::abs(c0[co + i + j * ldc]);
    tessera::testing::cblas_gemm<float>(ta, tb, int(m), int(n), int(k), 1.25f, abs_a.data() + ao, int(lda),
                                        abs_b.data() + bo, int(ldb), 1.f, scale.data() + co, int(ldc));
  }
  const float tol = tessera::testing::tolerance<float>(std::size_t(k) + 2);
  int failures = 0;
  for (std::int64_t e = 0; e < batch; ++e)
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < ldc && failures < 5; ++i) {
        const std::size_t x = e * stride_c + i + j * ldc;
        const bool inside = i < m;
        const float bound = tol * scale[x] + rounding * std::abs(ref[x]) + 1e-30f;
        if (inside ? !(std::abs(out[x] - ref[x]) <= bound) : out[x] != c0[x]) {
          ++failures;
          ADD_FAILURE() << fmt::format("C[{}] ({}) = {} but {} (bound {})", x, inside ? "inside" : "outside", out[x],
                                       inside ? ref[x] : c0[x], bound);
        }
      }
}

}  // namespace

TEST(GemmMma16, RulesTakeSixteenBitOperandsOnlyInTheFamily) {
  const auto rules_broken = [](const char* text, int bytes, const blas::gemm_limits& limits) {
    std::vector<std::string> names;
    for (const auto& v : blas::check_gemm_rules(blas::parse_gemm_params(text), bytes, limits)) names.emplace_back(v.rule);
    return names;
  };
  for (const char* text : mma16_configs) EXPECT_THAT(rules_broken(text, 2, h200_limits), ::testing::ElementsAre()) << text;
  EXPECT_THAT(rules_broken("local item=4x4 wg=8x8 cache_line_bytes=32", 2, h200_limits),
              ::testing::Contains("element_size"));
  EXPECT_THAT(rules_broken("mma cache_line_bytes=32 item=32x32 wg=2x2 stages=3", 2, h200_limits),
              ::testing::Contains("mma_k_tile_of_step_pairs"));  // K tile 16: one 16-deep step
  EXPECT_THAT(rules_broken("mma cache_line_bytes=64 item=32x32 wg=2x2 stages=3 paired_rows=1", 2, h200_limits),
              ::testing::Contains("mma_paired_rows_of_floats"));
  const auto& table = blas::gemm_defaults_table();
  for (const char* precision : {"fp16", "bf16"}) {
    for (const blas::gemm_problem_shape& shape :
         {blas::gemm_problem_shape{8192, 8192, 8192}, {1000, 700, 300}, {33, 17, 5}}) {
      const auto pick = blas::choose_default(table, h200_key, h200_limits, 2, shape, precision);
      ASSERT_NE(pick.entry, nullptr) << precision;
      EXPECT_EQ(pick.params.family, blas::gemm_family::mma);
      EXPECT_THAT(blas::check_gemm_rules(pick.params, 2, h200_limits), ::testing::ElementsAre());
      EXPECT_EQ(blas::choose_default(table, volta_key, no_tensor_cores, 2, shape, precision).entry, nullptr);
    }
  }
}

TEST(GemmMma16, OperandsAreCheckedInTheirOwnElements) {
  auto& ctx = rt::context::get();
  const int size = 16;
  rt::device_buffer a(ctx, size * size * 2), short_b(ctx, size * size * 2 - 2), c(ctx, size * size * 4);
  try {
    blas::gemm(call16(a, short_b, c, size, blas::operand_type::bfloat16));
    ADD_FAILURE() << "a B one element short was accepted";
  } catch (const tessera::argument_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("buffer B holds 255 bfloat16 elements"));
  }
  // Double calls take no 16-bit operands; float configurations other than mma read none.
  blas::gemm_arguments<double> twice;
  twice.m = twice.n = twice.k = 2, twice.a = &a, twice.b = &a, twice.c = &c, twice.lda = twice.ldb = twice.ldc = 2;
  twice.operands = blas::operand_type::float16;
  EXPECT_THROW(blas::validate(twice), tessera::argument_error);
  rt::device_buffer b(ctx, size * size * 2);
  const auto before = blas::detail::launch_count();
  try {
    blas::gemm_with(blas::parse_gemm_params("local item=2x2 wg=8x8 cache_line_bytes=32"),
                    call16(a, b, c, size, blas::operand_type::float16));
    ADD_FAILURE() << "a float family ran on 16-bit operands";
  } catch (const tessera::argument_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("only the mma family reads 16-bit operands"));
  }
  EXPECT_EQ(blas::detail::launch_count(), before);
}

TEST(GemmMma16, ASixteenBitResultIsCheckedInItsOwnElementsAndGoesWithItsOperands) {
  auto& ctx = rt::context::get();
  const int size = 16;
  rt::device_buffer a(ctx, size * size * 2), b(ctx, size * size * 2), c(ctx, size * size * 4);
  rt::device_buffer short_c(ctx, size * size * 2 - 2);
  const auto before = blas::detail::launch_count();
  const auto refusal = [&](blas::gemm_arguments<float> args) {
    try {
      blas::gemm(args);
      return std::string("accepted");
    } catch (const tessera::argument_error& e) {
      return std::string(e.what());
    }
  };
  auto call = call16(a, b, short_c, size, blas::operand_type::float16);
  call.result = blas::operand_type::float16;
  EXPECT_THAT(refusal(call), HasSubstr("buffer C holds 255 float16 elements"));
  call.c = &c, call.result = blas::operand_type::bfloat16;
  EXPECT_THAT(refusal(call), HasSubstr("result = bfloat16: C in 16 bits goes with A and B of the same type "
                                       "(operands = float16)"));
  auto floats = call_on(a, a, c, size / 2, blas::math_mode::tf32);
  floats.result = blas::operand_type::bfloat16;
  EXPECT_THAT(refusal(floats), HasSubstr("(operands = float32)"));
  EXPECT_EQ(blas::detail::launch_count(), before);
}

TEST(GemmMma16, WithoutTensorCoresSixteenBitOperandsAreRefusedNamingWhy) {
  if (has_tensor_cores()) GTEST_SKIP() << "the device has tensor cores";
  auto& ctx = rt::context::get();
  rt::device_buffer a(ctx, 64 * 64 * 2), b(ctx, 64 * 64 * 2), c(ctx, 64 * 64 * 4);
  const auto before = blas::detail::launch_count();
  for (const auto type : {blas::operand_type::float16, blas::operand_type::bfloat16}) {
    try {
      blas::gemm(call16(a, b, c, 64, type));
      ADD_FAILURE() << "16-bit operands ran on " << ctx.device().name;
    } catch (const tessera::unsupported_error& e) {
      EXPECT_THAT(e.what(), HasSubstr(std::string("A and B hold ") + std::string(blas::to_string(type))));
      EXPECT_THAT(e.what(), HasSubstr("convert them to float"));
    }
    try {
      blas::gemm_with(blas::parse_gemm_params(mma16_configs[1]), call16(a, b, c, 64, type));
      ADD_FAILURE() << "the tensor-core family ran on " << ctx.device().name;
    } catch (const tessera::unsupported_error& e) {
      EXPECT_THAT(e.what(), HasSubstr("rule 'mma_needs_tensor_cores'"));
    }
  }
  EXPECT_EQ(blas::detail::launch_count(), before);
}

struct mma16_case {
  std::size_t config;
  bool bf16, ta, tb;
};

class GemmMma16OnTensorCores : public ::testing::TestWithParam<mma16_case> {};

TEST_P(GemmMma16OnTensorCores, MatchesOpenBlasOnTheSameValues) {
  if (!has_tensor_cores()) GTEST_SKIP() << "no tensor cores on " << rt::context::get().device().name;
  const auto [config, bf16, ta, tb] = GetParam();
  const auto params = blas::parse_gemm_params(mma16_configs[config]);
  struct shape {
    std::int64_t m, n, k, batch;
  };
  for (const shape s : {shape{1, 1, 1, 1}, {17, 33, 9, 1}, {129, 65, 100, 1}, {300, 257, 515, 1}, {70, 40, 37, 3}})
    for (const bool aligned : {true, false})
      for (const bool c16 : {false, true}) {
        if (bf16)
          check_gemm16<rt::bfloat16>(params, blas::operand_type::bfloat16, ta, tb, s.m, s.n, s.k, s.batch, aligned,
                                     c16);
        else
          check_gemm16<rt::float16>(params, blas::operand_type::float16, ta, tb, s.m, s.n, s.k, s.batch, aligned, c16);
      }
}

std::vector<mma16_case> all_mma16_cases() {
  std::vector<mma16_case> out;
  for (std::size_t config = 0; config < std::size(mma16_configs); ++config)
    for (const bool bf16 : {false, true})
      for (int t = 0; t < 4; ++t) out.push_back({config, bf16, (t & 2) != 0, (t & 1) != 0});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Configurations, GemmMma16OnTensorCores, ::testing::ValuesIn(all_mma16_cases()),
                         [](const ::testing::TestParamInfo<mma16_case>& info) {
                           return fmt::format("config{}_{}_{}{}", info.param.config, info.param.bf16 ? "bf16" : "fp16",
                                              info.param.ta ? 't' : 'n', info.param.tb ? 't' : 'n');
                         });

TEST(GemmMma16, TheDefaultPickIsCheckedAtEveryTranspose) {
  if (!has_tensor_cores()) GTEST_SKIP() << "no tensor cores on " << rt::context::get().device().name;
  auto& ctx = rt::context::get();
  for (int t = 0; t < 4; ++t)
    for (const auto type : {blas::operand_type::float16, blas::operand_type::bfloat16}) {
      rt::device_buffer a(ctx, 4), b(ctx, 4), c(ctx, 4);
      blas::gemm_arguments<float> args = call16(a, b, c, 1, type);
      args.trans_a = (t & 2) ? blas::transpose::trans : blas::transpose::none;
      args.trans_b = (t & 1) ? blas::transpose::trans : blas::transpose::none;
      args.m = 1100, args.n = 1030, args.k = 333;
      const auto params = blas::default_params_for(args, ctx);
      if (type == blas::operand_type::float16)
        check_gemm16<rt::float16>(params, type, t & 2, t & 1, 1100, 1030, 333, 1, true);
      else
        check_gemm16<rt::bfloat16>(params, type, t & 2, t & 1, 1100, 1030, 333, 1, true);
    }
}
