// The local family's cp.async stages (gemm_params::stages > 1): K tiles copied global -> local
// without registers, STAGES of them in flight. On every device: the rules that keep it to NVIDIA
// devices of compute capability 8.0 and up and bound it, the refusal elsewhere, and the kernel's
// build options. Where cp.async runs: every transpose at odd sizes, aligned (vector copies) and
// unaligned (element copies), float and double, batched, K = 0, with split-K and k-groups, a fused
// epilogue, and the same bits on every run, against OpenBLAS.
#include <tessera/blas/blas.hpp>
#include <tessera/blas/gemm_defaults.hpp>
#include <tessera/runtime/runtime.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "blas/gemm_check.hpp"

namespace blas = tessera::blas;
namespace rt = tessera::runtime;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;
using tessera::testing::check_gemm;
using tessera::testing::every_transpose;
using tessera::testing::gemm_case;

namespace {

bool has_cp_async() { return blas::device_limits(rt::context::get().device()).tensor_cores == 1; }

const blas::gemm_limits h200_limits{49152, 1024, 1, 232448};
const blas::gemm_limits no_cp_async{49152, 1024};

std::vector<std::string> rules_broken(const blas::gemm_params& p, int element_bytes, const blas::gemm_limits& limits) {
  std::vector<std::string> names;
  for (const auto& v : blas::check_gemm_rules(p, element_bytes, limits)) names.emplace_back(v.rule);
  return names;
}

// The configurations the GPU tests run, for elements of T (cache_line_bytes scales with them, so
// that the K tiles are alike): vectors of 16, 8 and 4 bytes, padded rows (the element copies'
// bank spread) and none, 2 to 4 stages, a block larger than a warp's copies.
template <typename T>
std::vector<blas::gemm_params> stages_configs() {
  const int s = sizeof(T) / 4;
  const std::vector<std::string> texts = {
      fmt::format("local vector_width={} cache_line_bytes={} item=8x8 wg=8x8 stages=3 no_bank_conflict_a=1 "
                  "no_bank_conflict_b=1",
                  4 / s, 64 * s),
      fmt::format("local vector_width=2 cache_line_bytes={} item=4x4 wg=8x8 stages=2", 32 * s),
      fmt::format("local vector_width=1 cache_line_bytes={} item=2x4 wg=16x8 stages=4", 32 * s),
  };
  std::vector<blas::gemm_params> out;
  for (const auto& t : texts) out.push_back(blas::parse_gemm_params(t));
  return out;
}

}  // namespace

TEST(GemmStages, RulesKeepCpAsyncToTheDevicesThatRunItAndBoundIt) {
  const auto p = stages_configs<float>()[0];
  EXPECT_THAT(rules_broken(p, 4, h200_limits), ::testing::ElementsAre());
  EXPECT_THAT(rules_broken(p, 4, no_cp_async), Contains("local_stages_need_cp_async"));
  auto both = p;
  both.double_buffer = true;
  EXPECT_THAT(rules_broken(both, 4, h200_limits), Contains("local_stages_or_double_buffer"));
  // Vectors of 8 floats are 32 bytes: more than one cp.async copies.
  auto wide = p;
  wide.vector_width = 8;
  EXPECT_THAT(rules_broken(wide, 4, h200_limits), Contains("local_stages_vector_copies"));
  // stages = 1 is the register path, valid everywhere; double_buffer with it as before.
  auto registers = p;
  registers.stages = 1, registers.double_buffer = true;
  EXPECT_THAT(rules_broken(registers, 4, no_cp_async), ::testing::ElementsAre());
  // Each stage is a set of tiles: 3 x 16 x (64 + 4 + 64 + 4) floats.
  EXPECT_EQ(blas::derive(p, 4).local_memory_bytes, 3 * 16 * (64 + 4 + 64 + 4) * 4);
  EXPECT_EQ(blas::derive(registers, 4).local_memory_bytes, 2 * 16 * (64 + 4 + 64 + 4) * 4);
  // 4 stages of 128 x 128 blocks with K tiles of 32 floats take 128 KiB: past the 48 KiB
  // CL_DEVICE_LOCAL_MEM_SIZE, within the shared memory NVIDIA's compiler gives static arrays on
  // sm_90; the same sets through registers do not fit.
  const auto big = blas::parse_gemm_params("local cache_line_bytes=128 item=8x8 wg=16x16 vector_width=4 stages=4");
  EXPECT_THAT(rules_broken(big, 4, h200_limits), ::testing::ElementsAre());
  auto big_registers = big;
  big_registers.stages = 1, big_registers.double_buffer = true;
  EXPECT_THAT(rules_broken(big_registers, 4, h200_limits), Contains("local_memory_limit"));
  auto too_big = big;
  too_big.stages = 8;
  EXPECT_THAT(rules_broken(too_big, 4, h200_limits), Contains("local_memory_limit"));
  // Other families hold stages = 1 but mma, which needs 2 or more.
  EXPECT_THAT(rules_broken(blas::parse_gemm_params("no_local item=4x4 wg=8x8 stages=2"), 4, h200_limits),
              Contains("stages_applies"));
}

TEST(GemmStages, TheTextFormNamesTheStagesOfALocalConfiguration) {
  const auto p = stages_configs<float>()[0];
  EXPECT_THAT(blas::to_string(p), HasSubstr(" stages=3"));
  EXPECT_EQ(blas::to_string(blas::parse_gemm_params(blas::to_string(p))), blas::to_string(p));
  EXPECT_THAT(blas::to_string(blas::parse_gemm_params("no_local item=4x4 wg=8x8")), Not(HasSubstr("stages")));
}

TEST(GemmStages, TheKernelIsBuiltWithItsStages) {
  auto& ctx = rt::context::get();
  rt::device_buffer a(ctx, 4), b(ctx, 4), c(ctx, 4);
  blas::gemm_arguments<float> args;
  args.m = args.n = args.k = 64;
  args.a = &a, args.b = &b, args.c = &c, args.lda = args.ldb = args.ldc = 64;
  const auto text = blas::detail::program_text(stages_configs<float>()[0], args, ctx);
  EXPECT_THAT(text.options, HasSubstr("-DIS_LOCAL=1"));
  EXPECT_THAT(text.options, HasSubstr("-DSTAGES=3"));
  EXPECT_THAT(text.options, HasSubstr("-DA_ALIGNED=1"));
  EXPECT_THAT(text.source, HasSubstr("cp.async.cg.shared.global"));
}

TEST(GemmStages, WithoutCpAsyncTheStagesAreRefusedNamingTheRule) {
  if (has_cp_async()) GTEST_SKIP() << "the device runs cp.async";
  auto& ctx = rt::context::get();
  rt::device_buffer a(ctx, 64 * 64 * 4), b(ctx, 64 * 64 * 4), c(ctx, 64 * 64 * 4);
  blas::gemm_arguments<float> args;
  args.m = args.n = args.k = 64;
  args.a = &a, args.b = &b, args.c = &c, args.lda = args.ldb = args.ldc = 64;
  const auto before = blas::detail::launch_count();
  try {
    blas::gemm_with(stages_configs<float>()[1], args);
    ADD_FAILURE() << "cp.async stages ran on " << ctx.device().name;
  } catch (const tessera::unsupported_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("rule 'local_stages_need_cp_async'"));
    EXPECT_THAT(e.what(), HasSubstr(ctx.device().name));
  }
  EXPECT_EQ(blas::detail::launch_count(), before);
}

// ---- where cp.async runs ----------------------------------------------------------------------

namespace {

// One element; K shorter than a tile and not a multiple of a vector; edges of the blocks in every
// dimension; more tiles than stages; a single row or column of C.
constexpr std::array<std::int64_t, 3> odd_sizes[] = {{1, 1, 1},     {33, 17, 13},   {64, 61, 257},
                                                     {13, 1, 5},    {129, 65, 100}, {300, 257, 515}};

template <typename T>
void matches_openblas_at_odd_sizes() {
  if (!has_cp_async()) GTEST_SKIP() << "no cp.async on " << rt::context::get().device().name;
  for (const auto& params : stages_configs<T>()) {
    // Unaligned (odd leading dimensions): element copies throughout.
    tessera::testing::check_every_transpose_at<T>(params, odd_sizes);
    // Aligned: whole vectors of the operands stored along M or N are one copy each.
    const int vw = params.vector_width;
    for (auto ta : every_transpose)
      for (auto tb : every_transpose)
        for (const auto& s : odd_sizes) {
          gemm_case c;
          c.trans_a = ta, c.trans_b = tb, c.m = s[0], c.n = s[1], c.k = s[2];
          const auto pad = [vw](std::int64_t rows) { return (vw - rows % vw) % vw; };
          c.lda_pad = pad(ta == blas::transpose::trans ? s[2] : s[0]);
          c.ldb_pad = pad(tb == blas::transpose::trans ? s[1] : s[2]);
          c.ldc_pad = pad(s[0]), c.offset = vw;
          check_gemm<T>(params, c);
        }
    tessera::testing::check_batched_and_no_k<T>(params, 177);
  }
}

}  // namespace

TEST(GemmStages, FloatMatchesOpenBlasAtOddSizesAndEveryTranspose) { matches_openblas_at_odd_sizes<float>(); }
TEST(GemmStages, DoubleMatchesOpenBlasAtOddSizesAndEveryTranspose) { matches_openblas_at_odd_sizes<double>(); }

// Split-K's slices and the k-groups each run the pipeline over their own K tiles (a group's every
// k_groups-th); also a split the call chooses.
TEST(GemmStages, WithSplitKAndKGroupsMatchesOpenBlas) {
  if (!has_cp_async()) GTEST_SKIP() << "no cp.async on " << rt::context::get().device().name;
  const auto with = [](std::string_view more) {
    return blas::parse_gemm_params(
        fmt::format("local vector_width=4 cache_line_bytes=64 item=4x4 wg=8x8 stages=3 {}", more));
  };
  for (auto ta : every_transpose)
    for (auto tb : every_transpose)
      for (const auto* more : {"split_k=3", "k_groups=4", "k_groups=2 split_k=5", "split_k=0"}) {
        gemm_case c;
        c.trans_a = ta, c.trans_b = tb, c.m = 37, c.n = 29, c.k = 2053;
        c.ldc_pad = 2;
        check_gemm<float>(with(more), c);
      }
  gemm_case batched;
  batched.m = 9, batched.n = 70, batched.k = 999, batched.batch = 3, batched.stride_gap = 1;
  check_gemm<float>(with("k_groups=2 split_k=5"), batched);
}

TEST(GemmStages, AFusedEpilogueRunsInTheStore) {
  if (!has_cp_async()) GTEST_SKIP() << "no cp.async on " << rt::context::get().device().name;
  for (const bool trans_a : {false, true}) {
    const std::size_t launches = tessera::testing::check_bias_relu_epilogue(
        stages_configs<float>()[0], trans_a, !trans_a, 45, 37, 531, blas::math_mode::exact, 1e-5f);
    EXPECT_EQ(launches, 1u);
  }
}

TEST(GemmStages, GivesTheSameBitsOnEveryRun) {
  if (!has_cp_async()) GTEST_SKIP() << "no cp.async on " << rt::context::get().device().name;
  const auto with = [](std::string_view more) {
    return blas::parse_gemm_params(fmt::format("local vector_width=2 cache_line_bytes=32 item=4x4 wg=8x8 {}", more));
  };
  tessera::testing::expect_the_same_bits_on_every_run(
      with("double_buffer=1"), {with("stages=3"), with("stages=3 split_k=4"), with("stages=2 k_groups=4")});
}
