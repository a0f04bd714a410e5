// Sliced K (gemm_params::k_groups): groups of work-items in one work-group share its block of C
// along K and sum their blocks in local memory in a fixed order. Against OpenBLAS at odd sizes
// (K shorter than the groups, K tiles that do not divide among them, k = 0), every transpose,
// float and double, batched, with split-K and with a fused epilogue; the same bits on every run;
// and the rules that bound it.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "blas/gemm_check.hpp"

namespace blas = tessera::blas;
namespace rt = tessera::runtime;
using tessera::testing::check_gemm;
using tessera::testing::every_transpose;
using tessera::testing::gemm_case;

namespace {

template <typename T>
blas::gemm_params k_groups_config(int groups, std::string_view more = "") {
  return tessera::testing::small_local_config<T>(fmt::format("k_groups={} {}", groups, more));
}

template <typename T>
void matches_openblas_at_odd_sizes() {
  // K tiles (32 bytes: 8 floats or 4 doubles) fewer than the groups (k = 5, 13),
  // not a multiple of them (1003), and a single row or column of C.
  const std::array<std::int64_t, 3> sizes[] = {{1, 1, 1003}, {33, 17, 13}, {64, 61, 257}, {13, 1, 5}, {40, 72, 100}};
  // Up to 4 groups: 8 of these 64 work-items are more than NVIDIA's compiler runs this kernel with
  // (256 on an H200: registers); AConfigurationTooLargeForTheDeviceIsRefused covers the refusal.
  for (int groups : {2, 4}) tessera::testing::check_every_transpose_at<T>(k_groups_config<T>(groups), sizes);
  tessera::testing::check_batched_and_no_k<T>(k_groups_config<T>(4), 177);
}

TEST(GemmKGroups, FloatMatchesOpenBlasAtOddSizesAndEveryTranspose) { matches_openblas_at_odd_sizes<float>(); }
TEST(GemmKGroups, DoubleMatchesOpenBlasAtOddSizesAndEveryTranspose) { matches_openblas_at_odd_sizes<double>(); }

// With split-K: each slice's work-group splits its slice among its groups, and the slices' partial
// tiles are summed by the second kernel; also a split the call chooses (split_k = 0).
TEST(GemmKGroups, WithSplitKMatchesOpenBlas) {
  for (auto ta : every_transpose)
    for (auto tb : every_transpose) {
      gemm_case c;
      c.trans_a = ta, c.trans_b = tb, c.m = 37, c.n = 29, c.k = 2053;
      c.ldc_pad = 2;
      check_gemm<float>(k_groups_config<float>(4, "split_k=3"), c);
    }
  gemm_case batched;
  batched.m = 9, batched.n = 70, batched.k = 999, batched.batch = 3, batched.stride_gap = 1;
  check_gemm<double>(k_groups_config<double>(2, "split_k=5"), batched);
  gemm_case chosen;
  chosen.m = 5, chosen.n = 6, chosen.k = 3000;
  check_gemm<float>(k_groups_config<float>(2, "split_k=0"), chosen);
}

// A fused epilogue (as the kernel generator's fused GEMM attaches one) runs once, in group 0's
// store of the summed block.
TEST(GemmKGroups, AFusedEpilogueRunsInTheStore) {
  for (const bool trans_a : {false, true}) {
    const std::size_t launches = tessera::testing::check_bias_relu_epilogue(
        k_groups_config<float>(4), trans_a, !trans_a, 45, 37, 531, blas::math_mode::exact, 1e-5f);
    EXPECT_EQ(launches, 1u);
  }
}

// The groups' blocks are summed in group order, whatever order the groups finished in: ten runs
// of the same call give the same bits, and they are within rounding of the call without groups.
TEST(GemmKGroups, GivesTheSameBitsOnEveryRun) {
  tessera::testing::expect_the_same_bits_on_every_run(k_groups_config<float>(1),
                                                      {k_groups_config<float>(2), k_groups_config<float>(4)});
}

bool breaks(const blas::gemm_params& p, int element_bytes, const blas::gemm_limits& limits, std::string_view rule) {
  const auto broken = blas::check_gemm_rules(p, element_bytes, limits);
  return std::any_of(broken.begin(), broken.end(), [&](const auto& v) { return v.rule == rule; });
}

// The work-group holds k_groups sets of work-items and of local tiles; the blocks of the groups
// after the first must fit local memory too; only the local family has groups.
TEST(GemmKGroups, RulesCountEveryGroup) {
  const blas::gemm_limits limits{48 * 1024, 1024};
  const auto p = blas::parse_gemm_params(
      "local cache_line_bytes=64 item=4x8 wg=8x8 double_buffer=1 vector_width=4 k_groups=4");
  const blas::gemm_rule_values d = blas::derive(p, 4);
  EXPECT_EQ(d.tile_work_items, 64);
  EXPECT_EQ(d.work_group_size, 256);
  EXPECT_EQ(d.local_memory_bytes, 4 * 16 * (32 + 64) * 2 * 4);
  EXPECT_EQ(d.k_groups_sum_bytes, 4 * 4 * 32 * 64);
  EXPECT_TRUE(blas::check_gemm_rules(p, 4, limits).empty());
  // Each group loads its tiles alone: the loads split among one group's work-items.
  auto loads = p;
  loads.item_rows = 1, loads.vector_width = 1;  // 8 x 16 tile elements over 64 work-items: 2 each
  EXPECT_FALSE(breaks(loads, 4, limits, "local_a_tile_loads_split_evenly"));
  // 16 x 16 work-items, 8 groups: 2048.
  EXPECT_TRUE(breaks(blas::parse_gemm_params("local item=4x4 wg=16x16 k_groups=8"), 4, limits, "work_group_size_limit"));
  // 128 x 128 blocks: 8 of them are 512 KiB.
  const auto big = blas::parse_gemm_params("local cache_line_bytes=32 item=8x8 wg=16x16 vector_width=4 k_groups=8");
  EXPECT_TRUE(breaks(big, 4, limits, "local_k_groups_sum_limit"));
  EXPECT_TRUE(breaks(blas::parse_gemm_params("no_local item=4x4 wg=8x8 k_groups=2"), 4, limits, "k_groups_applies"));
  EXPECT_TRUE(breaks(blas::parse_gemm_params("local item=4x4 wg=8x8 k_groups=3"), 4, limits, "k_groups_allowed"));
}

// A configuration whose groups do not fit the device is refused before any launch, naming it: by
// the rules (work-group size, local memory) or by the kernel built (at most 256 work-items of this
// one on an H200).
TEST(GemmKGroups, AConfigurationTooLargeForTheDeviceIsRefused) {
  const auto& device = rt::context::get().device();
  const auto p = blas::parse_gemm_params("local cache_line_bytes=32 item=8x8 wg=16x16 vector_width=4 k_groups=8");
  gemm_case c;
  c.m = 5, c.n = 6, c.k = 7;
  if (static_cast<std::int64_t>(device.max_work_group_size) >= 2048 &&
      static_cast<std::int64_t>(device.local_memory_bytes) >= 7 * 128 * 128 * 4)
    GTEST_SKIP() << "this device holds the configuration";
  try {
    check_gemm<float>(p, c);
    FAIL() << "a configuration beyond the device ran";
  } catch (const tessera::unsupported_error& e) {
    EXPECT_NE(std::string(e.what()).find("k_groups=8"), std::string::npos) << e.what();
  }
}

}  // namespace
