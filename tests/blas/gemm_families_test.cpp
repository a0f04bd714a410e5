// Every kernel family x transposes x float/double against OpenBLAS: a representative set
// of sizes from {1, 7, 64, 127, 257} with lda > rows, batches, beta = 0 on a NaN-filled C,
// k = 0 and alpha = 0. (gemm_exhaustive_test.cpp runs all 125 size combinations.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "blas/gemm_check.hpp"

namespace blas = tessera::blas;
using tessera::testing::check_gemm;
using tessera::testing::gemm_case;

namespace {

struct family_case {
  bool is_double;
  std::size_t family;
  blas::transpose trans_a, trans_b;
};

std::string name_of(const ::testing::TestParamInfo<family_case>& info) {
  const auto& p = info.param;
  const auto params = p.is_double ? tessera::testing::family_configs<double>()[p.family]
                                  : tessera::testing::family_configs<float>()[p.family];
  return fmt::format("{}_{}_{}{}", p.is_double ? "double" : "float", tessera::testing::family_label(params),
                     blas::to_char(p.trans_a), blas::to_char(p.trans_b));
}

std::vector<family_case> all_cases() {
  std::vector<family_case> out;
  const std::size_t families = tessera::testing::family_configs<float>().size();
  for (bool d : {false, true})
    for (std::size_t f = 0; f < families; ++f)
      for (auto ta : {blas::transpose::none, blas::transpose::trans})
        for (auto tb : {blas::transpose::none, blas::transpose::trans}) out.push_back({d, f, ta, tb});
  return out;
}

template <typename T>
void run_family(const family_case& fc) {
  const blas::gemm_params params = tessera::testing::family_configs<T>()[fc.family];
  const auto with = [&](gemm_case c) {
    c.trans_a = fc.trans_a, c.trans_b = fc.trans_b;
    return c;
  };
  // m, n, k from {1, 7, 64, 127, 257}: every value in each role, tile edges on all sides.
  const std::int64_t sizes[][3] = {{1, 1, 1},     {7, 7, 7},     {64, 64, 64},   {127, 257, 7},  {257, 127, 64},
                                   {7, 64, 257},  {257, 1, 127}, {1, 257, 257},  {64, 7, 1},     {127, 127, 127}};
  // Leading dimensions above the rows and odd, so that every call shares one kernel build
  // (unaligned vectors); one aligned case (ld = rows = 64, no offset) builds the other.
  int i = 0;
  for (const auto& s : sizes) {
    gemm_case c = with({});
    c.m = s[0], c.n = s[1], c.k = s[2];
    c.lda_pad = 1 + i % 3, c.ldb_pad = 1 + i % 4, c.ldc_pad = 1 + i % 2, c.odd_ld = true;
    ++i;
    check_gemm<T>(params, c);
  }
  gemm_case aligned = with({});
  aligned.m = 64, aligned.n = 64, aligned.k = 64;
  check_gemm<T>(params, aligned);
  gemm_case batched = with({});
  batched.m = 64, batched.n = 7, batched.k = 127, batched.batch = 3, batched.stride_gap = 5, batched.offset = 3;
  batched.lda_pad = batched.ldb_pad = batched.ldc_pad = 1, batched.odd_ld = true;
  check_gemm<T>(params, batched);
  gemm_case nan_c = with({});
  nan_c.m = 127, nan_c.n = 64, nan_c.k = 7, nan_c.beta = 0, nan_c.nan_in_c = true;
  nan_c.lda_pad = nan_c.ldb_pad = nan_c.ldc_pad = 1, nan_c.odd_ld = true;
  check_gemm<T>(params, nan_c);
  gemm_case no_k = with({});
  no_k.m = 7, no_k.n = 64, no_k.k = 0, no_k.ldc_pad = 1, no_k.odd_ld = true;
  check_gemm<T>(params, no_k);
  gemm_case no_alpha = with({});
  no_alpha.m = 64, no_alpha.n = 64, no_alpha.k = 7, no_alpha.alpha = 0, no_alpha.odd_ld = true;
  check_gemm<T>(params, no_alpha);
}

void PrintTo(const family_case& c, std::ostream* os) {
  *os << (c.is_double ? "double" : "float") << " family " << c.family << ' ' << blas::to_char(c.trans_a)
      << blas::to_char(c.trans_b);
}

class GemmFamilies : public ::testing::TestWithParam<family_case> {};

TEST_P(GemmFamilies, MatchesOpenBlas) {
  if (GetParam().is_double) run_family<double>(GetParam());
  else run_family<float>(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Blas, GemmFamilies, ::testing::ValuesIn(all_cases()), name_of);

}  // namespace

namespace {

// Each float configuration against OpenBLAS at each size (m, n, k), every transpose, with padded
// and odd leading dimensions: the checks of the blocks added for narrow outputs.
template <std::size_t Configs, std::size_t Sizes>
void check_every_transpose(const char* const (&configs)[Configs], const std::int64_t (&sizes)[Sizes][3]) {
  for (const char* text : configs)
    for (auto ta : {blas::transpose::none, blas::transpose::trans})
      for (auto tb : {blas::transpose::none, blas::transpose::trans})
        for (const auto& s : sizes) {
          gemm_case c;
          c.trans_a = ta, c.trans_b = tb, c.m = s[0], c.n = s[1], c.k = s[2];
          c.lda_pad = 1, c.ldb_pad = 2, c.ldc_pad = 1, c.odd_ld = true;
          check_gemm<float>(blas::parse_gemm_params(text), c);
        }
}

// Tall blocks of 16 and 32 columns for narrow outputs (the NVIDIA set's, issue 12): a K tile of
// 32 floats so that 128 work-items share the narrow B tile's loads, and one split per call;
// against OpenBLAS at odd sizes, every transpose.
TEST(GemmTallBlocks, NarrowOutputsMatchOpenBlasAtOddSizesAndEveryTranspose) {
  const char* const configs[] = {"local cache_line_bytes=128 item=4x4 wg=32x4 double_buffer=1 vector_width=4",
                                 "local cache_line_bytes=64 item=8x4 wg=16x4 double_buffer=1 vector_width=4 split_k=0"};
  const std::int64_t sizes[][3] = {{257, 16, 131}, {1000, 33, 77}, {5, 1, 300}, {130, 17, 1}};
  check_every_transpose(configs, sizes);
}

// The 64 x 96 block (register blocks of 4 x 12: three vectors of columns) for outputs 65-96 wide,
// where a 128-wide block computes a third of its tile for nothing (the NVIDIA set's, issue 12):
// against OpenBLAS at odd sizes around 96, every transpose, whole and split along K (the partial
// tiles' stores of a 12-column register block).
TEST(GemmNinetySixColumns, MatchOpenBlasAtOddSizesAndEveryTranspose) {
  const char* const configs[] = {"local cache_line_bytes=64 item=4x12 wg=16x8 double_buffer=1 vector_width=4",
                                 "local cache_line_bytes=64 item=4x12 wg=16x8 double_buffer=1 vector_width=4 split_k=3"};
  const std::int64_t sizes[][3] = {{301, 86, 131}, {67, 97, 67}, {5, 1, 300}, {130, 193, 1}};
  check_every_transpose(configs, sizes);
}

}  // namespace

namespace {

// The register blocks' arithmetic takes its CPU form (gemm_common.cl's DEVICE_IS_CPU: sums kept
// in registers across a tile, products contracted into fma) on CPU devices alone; GPUs keep the
// form they were tuned with. The results of both forms are checked by GemmFamilies on each device.
TEST(GemmProgramText, TheCpuFormIsForCpuDevicesAlone) {
  auto& ctx = tessera::runtime::context::get();
  tessera::runtime::device_buffer a(ctx, 64 * sizeof(float)), b(ctx, 64 * sizeof(float)), c(ctx, 64 * sizeof(float));
  blas::gemm_arguments<float> args;
  args.m = args.n = args.k = 8;
  args.a = &a, args.b = &b, args.c = &c, args.lda = args.ldb = args.ldc = 8;
  const bool cpu = ctx.device().type == tessera::runtime::device_type::cpu;
  for (const char* text : {"local cache_line_bytes=64 item=8x8 wg=2x2 vector_width=8",
                           "no_local cache_line_bytes=64 item=16x8 wg=2x2 vector_width=8"}) {
    const auto program = blas::detail::program_text(blas::parse_gemm_params(text), args, ctx);
    EXPECT_THAT(program.options, ::testing::HasSubstr(cpu ? "-DDEVICE_IS_CPU=1" : "-DDEVICE_IS_CPU=0")) << text;
    EXPECT_THAT(program.source, ::testing::HasSubstr("#if DEVICE_IS_CPU")) << text;
  }
}

}  // namespace
