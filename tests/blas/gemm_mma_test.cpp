// The tensor-core family (mma) and the TF32 math mode. On every device: how a call picks its
// configuration, and that the family is refused, naming why, where it cannot run or the call
// did not allow TF32. On a device with tensor cores (NVIDIA, compute capability 8.0+): every
// transpose at odd sizes, K not a multiple of the mma's 8, unaligned leading dimensions,
// offsets, batches and a fused epilogue, against OpenBLAS within the TF32 bound.
#include <tessera/blas/blas.hpp>
#include <tessera/blas/gemm_defaults.hpp>
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
  EXPECT_THAT(rules_broken(mma, 8, h200_limits), ::testing::Contains("mma_float_elements"));
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
  auto& ctx = rt::context::get();
  const int m = 150, n = 70, k = 64;
  const auto ha = tessera::testing::random_values<float>(m * k), hb = tessera::testing::random_values<float>(k * n);
  const auto bias = tessera::testing::random_values<float>(m);
  rt::device_buffer a(ctx, ha.size() * 4), b(ctx, hb.size() * 4), c(ctx, m * n * 4), d_bias(ctx, m * 4);
  a.write(0, a.bytes(), ha.data()), b.write(0, b.bytes(), hb.data()), d_bias.write(0, d_bias.bytes(), bias.data());
  blas::gemm_arguments<float> args;
  args.m = m, args.n = n, args.k = k, args.a = &a, args.b = &b, args.c = &c, args.lda = m, args.ldb = k, args.ldc = m;
  args.math = blas::math_mode::tf32;
  const rt::kernel_argument bias_argument = d_bias.handle();
  const blas::detail::gemm_epilogue epilogue{
      "bias and relu",
      "#define GEMM_EPILOGUE_PARAMETERS , const global float* restrict bias\n"
      "#define GEMM_EPILOGUE_ARGUMENTS , bias\n"
      "#define GEMM_EPILOGUE(value, row, col) fmax((value) + bias[row], 0.0f)\n",
      std::span(&bias_argument, 1)};
  blas::detail::gemm_with_epilogue(blas::parse_gemm_params(mma_configs[2]), args, epilogue).wait();
  std::vector<float> out(m * n);
  c.read(0, c.bytes(), out.data());
  std::vector<float> ref(m * n, 0.f);
  tessera::testing::cblas_gemm<float>(false, false, m, n, k, 1.f, ha.data(), m, hb.data(), k, 0.f, ref.data(), m);
  int negative_before_relu = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      const float before = ref[i + j * m] + bias[i];
      negative_before_relu += before < 0;
      float scale = std::abs(bias[i]);
      for (int p = 0; p < k; ++p) scale += std::abs(ha[i + p * m] * hb[p + j * k]);
      EXPECT_NEAR(out[i + j * m], std::max(before, 0.f), std::ldexp(scale, -8)) << i << ", " << j;
    }
  EXPECT_GT(negative_before_relu, m * n / 4) << "the relu must matter";
}
