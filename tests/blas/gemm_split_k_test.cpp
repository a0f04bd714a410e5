// Split-K (gemm_params::split_k): several work-groups share an output tile along K, a second
// kernel sums their partial tiles in a fixed order. Against OpenBLAS at odd sizes with long K,
// every transpose, float and double; and the same bits on every run.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <optional>
#include <cmath>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "blas/gemm_check.hpp"

namespace blas = tessera::blas;
namespace rt = tessera::runtime;
using tessera::testing::check_gemm;
using tessera::testing::gemm_case;

namespace {

using tessera::testing::every_transpose;

// A size log-uniform in [1, high).
std::int64_t log_uniform(std::mt19937_64& random, double high) {
  return static_cast<std::int64_t>(std::exp(std::uniform_real_distribution<double>(0.0, std::log(high))(random)));
}

template <typename T>
blas::gemm_params split_config(int split) {
  return tessera::testing::small_local_config<T>(fmt::format("split_k={}", split));
}

template <typename T>
void matches_openblas_at_odd_sizes() {
  // Few output tiles and long, odd K (slices that end mid-tile and, at k = 1003 with 16 slices
  // of 8-element tiles, a last slice shorter than the others); m, n of 1 and primes.
  const std::array<std::int64_t, 3> sizes[] = {{1, 1, 1003}, {7, 5, 4099}, {33, 17, 1003}, {64, 61, 2053}, {13, 1, 257}};
  // 7: a split other than a power of two, as chosen_split_k makes for some tile counts (float only:
  // each split and transpose is a kernel to build).
  for (int split : std::is_same_v<T, float> ? std::vector<int>{4, 7, 16} : std::vector<int>{4, 16})
    tessera::testing::check_every_transpose_at<T>(split_config<T>(split), sizes);
  tessera::testing::check_batched_and_no_k<T>(split_config<T>(8), 777);
}

TEST(GemmSplitK, FloatMatchesOpenBlasAtOddSizesAndEveryTranspose) { matches_openblas_at_odd_sizes<float>(); }
TEST(GemmSplitK, DoubleMatchesOpenBlasAtOddSizesAndEveryTranspose) { matches_openblas_at_odd_sizes<double>(); }

// Many slices (up to chosen_split_k's largest), more than the K tiles at k = 1003 (empty slices).
template <typename T>
void many_slices_match_openblas() {
  // 64 slices at every transpose, 256 at two (each split and transpose is a kernel to build).
  const std::int64_t sizes[][3] = {{1, 1, 1003}, {33, 17, 2053}};
  for (auto ta : every_transpose)
    for (auto tb : every_transpose)
      for (const auto& s : sizes)
        for (int split : {64, 256}) {
          if (split == 256 && ta != tb) continue;
          gemm_case c;
          c.trans_a = ta, c.trans_b = tb, c.m = s[0], c.n = s[1], c.k = s[2];
          c.lda_pad = 2, c.ldb_pad = 1, c.ldc_pad = 3, c.odd_ld = true;
          check_gemm<T>(split_config<T>(split), c);
        }
}

TEST(GemmSplitK, ManySlicesFloat) { many_slices_match_openblas<float>(); }
TEST(GemmSplitK, ManySlicesDouble) { many_slices_match_openblas<double>(); }

// chosen_split_k on a device of 132 compute units (an H100 or H200), for a configuration of
// 64 x 64 blocks of 256 work-items and K tiles of 16 floats (four work-groups keep a unit busy,
// and four fit it at once: their 16 KiB of local memory each): split_k_model_time's fastest count.
TEST(GemmSplitK, ChosenSplitFollowsTheModel) {
  const blas::gemm_params p =
      blas::parse_gemm_params("local cache_line_bytes=64 item=4x4 wg=16x16 sg=4x8 double_buffer=1 vector_width=4 split_k=0");
  const auto chosen = [&](std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch = 1) {
    return blas::chosen_split_k(p, 4, m, n, k, batch, 132);
  };
  ASSERT_EQ(blas::derive(p, 4).local_memory_bytes, 16384);
  EXPECT_EQ(blas::split_k_groups_per_unit(blas::derive(p, 4)), 4);  // 16384 outputs over 64 x 64
  EXPECT_EQ(blas::split_k_groups_held(blas::derive(p, 4)), 4);      // 84 KiB over 16 + 1 KiB
  EXPECT_DOUBLE_EQ(blas::split_k_slice_overhead_time(blas::derive(p, 4)), 6.0);  // 96 elements of K
  // The model by hand: one tile and 4096 K tiles whole, one work-group, as long as a batch of 4
  // (1.5 x 4 is more than the unit holds), so 4 / 4 x (4096 + 6); in 256 slices 2 a unit, also as
  // long as 4: (16 + 6).
  EXPECT_DOUBLE_EQ(blas::split_k_model_time(1, 4096, 1, 4, 4, 6.0, 132), 4096.0 + 6.0);
  EXPECT_DOUBLE_EQ(blas::split_k_model_time(1, 4096, 256, 4, 4, 6.0, 132), 16.0 + 6.0);
  // 1058 groups: 9 on the busiest unit, two batches of 4 and one as long as 4: (8 + 4) / 4.
  EXPECT_DOUBLE_EQ(blas::split_k_model_time(529, 100, 2, 4, 4, 6.0, 132), 3.0 * (50.0 + 6.0));
  // Where a unit holds 8, a batch of 8 and one as long as 6: (8 + 6) / 4.
  EXPECT_DOUBLE_EQ(blas::split_k_model_time(529, 100, 2, 4, 8, 6.0, 132), 3.5 * (50.0 + 6.0));
  // 266 groups of a block that keeps a unit busy alone and that it holds alone: 3 batches.
  EXPECT_DOUBLE_EQ(blas::split_k_model_time(133, 100, 2, 1, 1, 6.0, 132), 3.0 * (50.0 + 6.0));
  EXPECT_EQ(chosen(64, 64, 65536), 256);
  EXPECT_EQ(chosen(100, 100, 20000), 125);  // 4 tiles: 500 groups of 10 K tiles, 4 a unit
  EXPECT_EQ(chosen(784, 128, 1152), 9);     // 26 tiles, 72 K tiles: 9 slices of 8
  EXPECT_EQ(chosen(196, 256, 2304), 18);    // 16 tiles, 144 K tiles: 18 slices of 8 (288 groups)
  EXPECT_EQ(chosen(49, 512, 4608), 36);     // 8 tiles
  EXPECT_EQ(chosen(64, 64, 65536, 132), 4);  // a batch of 132 entries: 4 a unit
  EXPECT_EQ(chosen(64, 64, 240), 1);         // 15 K tiles: not 8 a slice for 2
  // 16 K tiles: 2 slices of 8 would take 8 + 6 against 16 + 6 whole, but not with the second
  // launch's 8 (128 elements of K for 4 x 64 x 64 outputs in K tiles of 16).
  EXPECT_DOUBLE_EQ(blas::split_k_second_launch_time(blas::derive(p, 4)), 8.0);
  EXPECT_EQ(chosen(64, 64, 241), 1);
  EXPECT_EQ(chosen(64, 64, 0), 1);
  // A few batches of tiles: 11 x 11 tiles (121) split 13, 12 a unit (three batches of 4).
  EXPECT_EQ(chosen(11 * 64, 11 * 64, 65536), 13);
  // Whole, 1056 tiles are two batches of 4 a unit, gaining nothing from a split; one tile more
  // leaves a third batch of one.
  EXPECT_EQ(chosen(64, 64, 65536, 1056), 1);
  EXPECT_EQ(chosen(64, 64, 65536, 1057), 17);
  // Many batches of tiles: no split gains 5% in the model.
  EXPECT_EQ(chosen(2048, 2048, 2048), 1);  // 1024 tiles
  EXPECT_EQ(chosen(4096, 4096, 65536), 1);
  // From 20 x (1 + 1.5 x 4) x 132 tiles (18480) the search is skipped: the model cannot gain there.
  EXPECT_EQ(chosen(64, 64, 65536, 18479), 1);
  EXPECT_EQ(chosen(64, 64, 65536, 18480), 1);
  const blas::gemm_params big = blas::parse_gemm_params(
      "local cache_line_bytes=64 item=8x8 wg=16x16 sg=4x8 double_buffer=1 vector_width=4 split_k=0");
  EXPECT_EQ(blas::split_k_groups_per_unit(blas::derive(big, 4)), 1);
  EXPECT_EQ(blas::split_k_groups_held(blas::derive(big, 4)), 2);  // 32768 outputs over 128 x 128
  // 128 x 128 blocks, one keeps a unit busy and it holds two: 36 tiles at 768 x 768 split 7 are
  // 252 work-groups, 2 a unit.
  EXPECT_EQ(blas::chosen_split_k(big, 4, 768, 768, 3072, 1, 132), 7);
  EXPECT_EQ(blas::chosen_split_k(big, 4, 167, 393, 2521, 1, 132), 16);   // 8 tiles: 128 groups, 18 would be 144
  EXPECT_EQ(blas::chosen_split_k(big, 4, 2048, 2048, 2048, 1, 132), 1);  // 256 tiles: one batch of 2 whole
  EXPECT_EQ(blas::chosen_split_k(big, 4, 1536, 1536, 1536, 1, 132), 3);  // 144 tiles: 432 groups, 4 a unit
  EXPECT_EQ(blas::chosen_split_k(big, 4, 768, 768, 400, 1, 132), 3);  // 25 K tiles: at most 3 slices of 8
  // A set split is the call's; other families do not split.
  EXPECT_EQ(blas::chosen_split_k(blas::parse_gemm_params("local item=4x4 wg=16x16 split_k=8"), 4, 8192, 8192, 64, 1, 132),
            8);
  EXPECT_EQ(blas::chosen_split_k(blas::parse_gemm_params("naive wg=16x16"), 4, 64, 64, 65536, 1, 132), 1);
  // The largest sizes a call may have: no overflow on the way; at most max_chosen_split_k.
  const std::int64_t most = std::numeric_limits<int>::max();
  EXPECT_EQ(chosen(most, most, most, most), 1);
  EXPECT_EQ(chosen(1, 1, most, 131), 133);
  EXPECT_EQ(blas::chosen_split_k(p, 4, 1, 1, most, 1, std::numeric_limits<std::uint32_t>::max()), 256);
}

// The second kernel's launch (split_k_second_launch_k) keeps short-K calls of a few microseconds
// whole, where the slices alone would look faster: on an H200, 31 x 2745 x 157 TN in 32 x 32
// blocks ran 21.0 us split in 2 against 9.4 us whole.
TEST(GemmSplitK, TheSecondLaunchKeepsAShortCallWhole) {
  const blas::gemm_params p =
      blas::parse_gemm_params("local cache_line_bytes=32 item=4x4 wg=8x8 double_buffer=1 vector_width=4 split_k=0");
  const blas::gemm_rule_values d = blas::derive(p, 4);
  ASSERT_EQ(d.block_rows, 32);
  ASSERT_EQ(d.block_cols, 32);
  ASSERT_EQ(d.k_tile, 8);
  ASSERT_EQ(blas::split_k_groups_per_unit(d), 16);
  ASSERT_EQ(blas::split_k_groups_held(d), 16);  // 84 KiB over its 4 + 1 KiB of local memory
  // 128 elements of K for 16384 outputs: 16 K tiles of 16 work-groups of 32 x 32.
  EXPECT_DOUBLE_EQ(blas::split_k_second_launch_time(d), 16.0);
  // A slice's overhead, 96 elements of K: 12 K tiles of 8.
  EXPECT_DOUBLE_EQ(blas::split_k_slice_overhead_time(d), 12.0);
  // 86 tiles and 20 K tiles: whole 20 + 12 = 32 (one batch); in 2 slices 10 + 12 = 22, which
  // alone would be 5% faster, but not with the second launch's 16.
  EXPECT_DOUBLE_EQ(blas::split_k_model_time(86, 20, 1, 16, 16, 12.0, 132), 32.0);
  EXPECT_DOUBLE_EQ(blas::split_k_model_time(86, 20, 2, 16, 16, 12.0, 132), 22.0);
  EXPECT_EQ(blas::chosen_split_k(p, 4, 31, 2745, 157, 1, 132), 1);
  // A long K still splits: 86 tiles and 1250 K tiles.
  EXPECT_GT(blas::chosen_split_k(p, 4, 31, 2745, 10000, 1, 132), 1);
}

// A unit holds what fits its local memory: three 128 x 64 blocks with K tiles of 16 floats (24 KiB
// each), not the four their outputs would allow. On an H200, 4388 x 279 x 8931 TT (175 tiles) in
// 3 slices, 525 work-groups and so 4 on most units (a batch of 3 and one more), ran 0.82x of 6
// slices; the model that held four a unit chose 3.
TEST(GemmSplitK, TheWorkGroupsAUnitHoldsAtOnce) {
  const blas::gemm_params p =
      blas::parse_gemm_params("local cache_line_bytes=64 item=8x8 wg=16x8 sg=4x8 double_buffer=1 vector_width=4 split_k=0");
  const blas::gemm_rule_values d = blas::derive(p, 4);
  ASSERT_EQ(d.block_rows, 128);
  ASSERT_EQ(d.block_cols, 64);
  ASSERT_EQ(d.local_memory_bytes, 24576);
  EXPECT_EQ(blas::split_k_groups_per_unit(d), 2);
  EXPECT_EQ(blas::split_k_groups_held(d), 3);
  // 175 tiles and 559 K tiles: in 3 slices 4 a unit, a batch of 3 and one as long as 3 (1.5 x 2),
  // (3 + 3) / 2 x (187 + 6); in 9 slices 12 a unit, 4 batches of 3: 6 x (63 + 6).
  EXPECT_DOUBLE_EQ(blas::split_k_model_time(175, 559, 3, 2, 3, 6.0, 132), 3.0 * (187.0 + 6.0));
  EXPECT_DOUBLE_EQ(blas::split_k_model_time(175, 559, 9, 2, 3, 6.0, 132), 6.0 * (63.0 + 6.0));
  EXPECT_EQ(blas::chosen_split_k(p, 4, 4388, 279, 8931, 1, 132), 9);
  // Double-buffered K tiles of 32 floats take 48 KiB: one fits, so the unit holds what keeps it busy.
  const blas::gemm_rule_values wide = blas::derive(blas::parse_gemm_params(
      "local cache_line_bytes=128 item=8x8 wg=16x8 sg=4x8 double_buffer=1 vector_width=4 split_k=0"), 4);
  ASSERT_EQ(wide.local_memory_bytes, 49152);
  EXPECT_EQ(blas::split_k_groups_held(wide), blas::split_k_groups_per_unit(wide));
  // Each k-group sums its own share of K: a 64 x 64 block in two keeps 8192 outputs, so two of
  // its work-groups keep a unit busy (not four), and two fit (32 KiB of local memory each).
  const blas::gemm_rule_values grouped = blas::derive(blas::parse_gemm_params(
      "local cache_line_bytes=64 item=8x8 wg=8x8 double_buffer=1 vector_width=4 k_groups=2 split_k=0"), 4);
  ASSERT_EQ(grouped.block_rows * grouped.block_cols, 4096);
  ASSERT_EQ(grouped.local_memory_bytes, 32768);
  EXPECT_EQ(blas::split_k_groups_per_unit(grouped), 2);
  EXPECT_EQ(blas::split_k_groups_held(grouped), 2);
}

// Over thousands of random shapes and several devices: a split from 1 to max_chosen_split_k, at
// least min_split_k_slice_k_tiles K tiles a slice, the model's fastest count within those bounds
// and, with the second launch's time, chosen_split_gain faster than whole, and a configuration
// that passes every rule with it.
TEST(GemmSplitK, ChosenSplitIsValidForRandomShapes) {
  std::mt19937_64 random(12);
  const std::vector<std::string> texts = {
      "local cache_line_bytes=64 item=4x4 wg=16x16 sg=4x8 double_buffer=1 vector_width=4 split_k=0",
      "local cache_line_bytes=32 item=8x8 wg=16x8 double_buffer=1 vector_width=4 split_k=0",
      "local cache_line_bytes=32 item=2x2 wg=8x8 vector_width=2 split_k=0",
      "local cache_line_bytes=128 item=4x4 wg=16x16 sg=4x8 double_buffer=1 vector_width=4 split_k=0",
      "local cache_line_bytes=64 item=8x8 wg=8x8 double_buffer=1 vector_width=4 k_groups=2 split_k=0"};
  int splits = 0;
  for (const std::string& text : texts) {
    const blas::gemm_params p = blas::parse_gemm_params(text);
    for (const int element_bytes : {4, 8}) {
      if (!blas::check_gemm_rules(p, element_bytes).empty()) continue;  // not a configuration of these elements
      const blas::gemm_rule_values d = blas::derive(p, element_bytes);
      for (int i = 0; i < 2000; ++i) {
        const std::int64_t m = log_uniform(random, 70000), n = log_uniform(random, 70000), k = log_uniform(random, 300000),
                           batch = i % 4 == 0 ? log_uniform(random, 5000) : 1, units = log_uniform(random, 300);
        SCOPED_TRACE(::testing::Message() << text << " " << m << "x" << n << "x" << k << " batch " << batch << ", "
                                          << units << " units, " << element_bytes << "-byte elements");
        const int split = blas::chosen_split_k(p, element_bytes, m, n, k, batch, units);
        ASSERT_TRUE(split >= 1 && split <= blas::max_chosen_split_k);
        const std::int64_t tiles = (m + d.block_rows - 1) / d.block_rows * ((n + d.block_cols - 1) / d.block_cols) * batch;
        const std::int64_t k_tiles = (k + d.k_tile - 1) / d.k_tile;
        const std::int64_t most = std::min<std::int64_t>(blas::max_chosen_split_k, k_tiles / blas::min_split_k_slice_k_tiles);
        const std::int64_t groups_per_unit = blas::split_k_groups_per_unit(d);
        const std::int64_t outputs = d.block_rows * d.block_cols * d.k_groups;  // a sum per k-group
        ASSERT_TRUE(groups_per_unit >= 1 &&
                    groups_per_unit * outputs <= std::max<std::int64_t>(blas::split_k_unit_outputs, outputs));
        ASSERT_LE(groups_per_unit * d.work_group_size,
                  std::max<std::int64_t>(blas::split_k_busy_work_items, d.work_group_size));
        // What a unit holds at once: within its work-items, outputs and local memory, but never
        // fewer than keep it busy.
        const std::int64_t groups_held = blas::split_k_groups_held(d);
        ASSERT_GE(groups_held, groups_per_unit);
        if (groups_held > groups_per_unit) {
          ASSERT_LE(groups_held * d.work_group_size, blas::split_k_unit_work_items);
          ASSERT_LE(groups_held * outputs, blas::split_k_unit_held_outputs);
          ASSERT_LE(groups_held * (d.local_memory_bytes + blas::split_k_local_memory_reserve_bytes),
                    blas::split_k_unit_local_memory_bytes);
        }
        const auto model = [&](std::int64_t s) {
          return blas::split_k_model_time(tiles, k_tiles, s, groups_per_unit, groups_held,
                                          blas::split_k_slice_overhead_time(d), units);
        };
        const double whole = model(1), second_launch = blas::split_k_second_launch_time(d);
        ASSERT_GT(second_launch, 0.0);
        if (split > 1) {
          ++splits;
          ASSERT_GE(k_tiles, blas::min_split_k_slice_k_tiles * split);
          const double chosen = model(split);
          ASSERT_GE(whole, blas::chosen_split_gain * (chosen + second_launch));
          for (std::int64_t s = 2; s <= most; ++s)
            ASSERT_GE(model(s), chosen) << "split " << s;
        } else if (tiles > 0) {
          for (std::int64_t s = 2; s <= most; ++s)
            ASSERT_LT(whole, blas::chosen_split_gain * (model(s) + second_launch))
                << "split " << s;
        }
        blas::gemm_params with = p;
        with.split_k = split;
        ASSERT_TRUE(blas::check_gemm_rules(with, element_bytes).empty());
      }
    }
  }
  EXPECT_GT(splits, 500);  // the shapes reach the split path, not only the whole one
}

// split_k = 0 on this device: the chosen split's launches (one, or the slices and their sum),
// against OpenBLAS.
TEST(GemmSplitK, AChosenSplitRunsAsItSays) {
  const auto& device = rt::context::get().device();
  const blas::gemm_params p = blas::parse_gemm_params("local vector_width=2 cache_line_bytes=32 item=4x4 wg=8x8 split_k=0");
  for (const auto& s : std::vector<std::array<std::int64_t, 3>>{{5, 6, 1000}, {300, 200, 100}, {7, 3, 1}}) {
    gemm_case c;
    c.m = s[0], c.n = s[1], c.k = s[2];
    const int split = blas::chosen_split_k(p, 4, c.m, c.n, c.k, 1, device.compute_units);
    SCOPED_TRACE(::testing::Message() << c.m << "x" << c.n << "x" << c.k << ": split " << split);
    const auto before = blas::detail::launch_count();
    check_gemm<float>(p, c);
    EXPECT_EQ(blas::detail::launch_count() - before, split > 1 ? 2u : 1u);
  }
}

// The partial tiles are summed in slice order, whatever order the work-groups ran in: ten runs
// of the same call give the same bits (and a different split gives a result within rounding).
TEST(GemmSplitK, GivesTheSameBitsOnEveryRun) {
  tessera::testing::expect_the_same_bits_on_every_run(split_config<float>(1), {split_config<float>(16), split_config<float>(256)});
}

// Each split adds one launch (the sum of the partial tiles).
TEST(GemmSplitK, SumsInASecondLaunch) {
  gemm_case c;
  c.m = 5, c.n = 6, c.k = 100;
  const auto before = blas::detail::launch_count();
  check_gemm<float>(split_config<float>(4), c);
  EXPECT_EQ(blas::detail::launch_count() - before, 2u);
}

// A tail split (chosen_tail_split) on a device of 132 compute units: 2665 x 1911 x 2065 NT in
// 128 x 128 blocks is 21 x 15 tiles, which split 5 spreads over 1575 work-groups; one batch of
// two a unit holds 264 of them, so 17 rows of blocks (255 tiles) run whole and the last 4 rows,
// 489 x 1911, take the split chosen for them. On an H200 this ran 1.13x faster than the split.
TEST(GemmSplitK, ATailSplitRunsWholeBatchesUnsplit) {
  const blas::gemm_params big = blas::parse_gemm_params(
      "local cache_line_bytes=32 item=8x8 wg=16x16 sg=4x8 double_buffer=1 vector_width=4 split_k=0");
  const blas::gemm_rule_values d = blas::derive(big, 4);
  ASSERT_EQ(d.block_rows, 128);
  ASSERT_EQ(d.block_cols, 128);
  ASSERT_EQ(blas::split_k_groups_held(d), 2);
  const int split = blas::chosen_split_k(big, 4, 2665, 1911, 2065, 1, 132);
  ASSERT_EQ(split, 5);
  const auto plan = blas::chosen_tail_split(big, split, 4, 2665, 1911, 2065, 1, 132);
  ASSERT_TRUE(plan);
  EXPECT_TRUE(plan->along_rows);
  EXPECT_EQ(plan->whole_blocks, 17);
  EXPECT_EQ(plan->split, blas::chosen_split_k(big, 4, 2665 - 17 * 128, 1911, 2065, 1, 132));
  EXPECT_GT(plan->split, 1);
  // Fewer tiles than one batch (36 at 768 x 768, split 7): nothing to run whole.
  EXPECT_FALSE(blas::chosen_tail_split(big, 7, 4, 768, 768, 3072, 1, 132));
  // No split, another family: nothing.
  EXPECT_FALSE(blas::chosen_tail_split(big, 1, 4, 2665, 1911, 2065, 1, 132));
  EXPECT_FALSE(blas::chosen_tail_split(blas::parse_gemm_params("naive wg=16x16"), 5, 4, 2665, 1911, 2065, 1, 132));
  // As blas::gemm runs it: NT, TN and TT calls; not NN, nor a call that copies an operand
  // (pretranspose, TT's A).
  for (const bool trans_a : {false, true})
    for (const bool trans_b : {false, true})
      EXPECT_EQ(blas::tail_split_for_call(big, 4, {2665, 1911, 2065, 1, trans_a, trans_b}, 132, 0).has_value(),
                trans_a || trans_b);
  blas::gemm_params copying = big;
  copying.pretranspose = 1;
  EXPECT_FALSE(blas::tail_split_for_call(copying, 4, {2665, 1911, 2065, 1, true, true}, 132, 0));
  EXPECT_TRUE(blas::tail_split_for_call(copying, 4, {2665, 1911, 2065, 1, false, true}, 132, 0));  // NT copies none
}

// Over random shapes, devices and configurations: a tail split leaves whole rows (or columns) of
// blocks on both sides, runs no more tiles whole than whole batches hold, takes the split chosen
// for the rest, and is taken exactly where the model expects it faster than the split, counting
// its extra launch.
TEST(GemmSplitK, ATailSplitFollowsTheModelForRandomShapes) {
  std::mt19937_64 random(13);
  const std::vector<std::string> texts = {
      "local cache_line_bytes=64 item=4x4 wg=16x16 sg=4x8 double_buffer=1 vector_width=4 split_k=0",
      "local cache_line_bytes=32 item=8x8 wg=16x8 double_buffer=1 vector_width=4 split_k=0",
      "local cache_line_bytes=32 item=8x8 wg=16x16 sg=4x8 double_buffer=1 vector_width=4 split_k=0",
      "local cache_line_bytes=64 item=8x8 wg=8x8 double_buffer=1 vector_width=4 k_groups=2 split_k=0"};
  int plans = 0, declined = 0;
  for (const std::string& text : texts) {
    const blas::gemm_params p = blas::parse_gemm_params(text);
    const blas::gemm_rule_values d = blas::derive(p, 4);
    for (int i = 0; i < 3000; ++i) {
      const std::int64_t m = log_uniform(random, 20000), n = log_uniform(random, 20000), k = log_uniform(random, 100000),
                         batch = i % 5 == 0 ? log_uniform(random, 50) : 1, units = log_uniform(random, 300);
      SCOPED_TRACE(::testing::Message() << text << " " << m << "x" << n << "x" << k << " batch " << batch << ", "
                                        << units << " units");
      const int split = blas::chosen_split_k(p, 4, m, n, k, batch, units);
      const auto plan = blas::chosen_tail_split(p, split, 4, m, n, k, batch, units);
      const std::int64_t row_blocks = (m + d.block_rows - 1) / d.block_rows, col_blocks = (n + d.block_cols - 1) / d.block_cols;
      const std::int64_t tiles = row_blocks * col_blocks * batch;
      const std::int64_t slots = units * blas::split_k_groups_held(d);
      const std::int64_t whole_tiles = tiles / slots * slots;
      if (split <= 1 || tiles < slots) {
        ASSERT_FALSE(plan);
        continue;
      }
      const bool along_rows = whole_tiles / (col_blocks * batch) * col_blocks >= whole_tiles / (row_blocks * batch) * row_blocks;
      const std::int64_t whole_blocks = along_rows ? whole_tiles / (col_blocks * batch) : whole_tiles / (row_blocks * batch);
      const std::int64_t blocks = along_rows ? row_blocks : col_blocks;
      if (whole_blocks < 1 || whole_blocks >= blocks) {
        ASSERT_FALSE(plan);
        continue;
      }
      const std::int64_t head = whole_blocks * (along_rows ? col_blocks : row_blocks) * batch;
      ASSERT_LE(head, whole_tiles);
      const int tail_split = along_rows ? blas::chosen_split_k(p, 4, m - whole_blocks * d.block_rows, n, k, batch, units)
                                        : blas::chosen_split_k(p, 4, m, n - whole_blocks * d.block_cols, k, batch, units);
      const std::int64_t k_tiles = (k + d.k_tile - 1) / d.k_tile;
      const auto model = [&](std::int64_t t, std::int64_t s) {
        return blas::split_k_model_time(t, k_tiles, s, blas::split_k_groups_per_unit(d), blas::split_k_groups_held(d),
                                        blas::split_k_slice_overhead_time(d), units);
      };
      const double launch = blas::split_k_second_launch_time(d);
      const double split_time = model(tiles, split) + launch;
      const double tail_time = model(head, 1) + model(tiles - head, tail_split) + launch + (tail_split > 1 ? launch : 0.0);
      if (tail_time < split_time) {
        ASSERT_TRUE(plan);
        ++plans;
        EXPECT_EQ(plan->along_rows, along_rows);
        EXPECT_EQ(plan->whole_blocks, whole_blocks);
        EXPECT_EQ(plan->split, tail_split);
      } else {
        ASSERT_FALSE(plan);
        ++declined;
      }
    }
  }
  EXPECT_GT(plans, 100);  // the shapes reach both outcomes
  EXPECT_GT(declined, 10);
}

// The blocks of small_local_config<T> (32 x 32, K tiles of 8 elements) and an NT call of
// (rows - 1) x (cols - 2) blocks' worth of m x n and long K on the test device whose chosen split
// runs as a tail split along rows (or columns): the smallest such call of up to twice a batch's
// work-groups in blocks along each side (a few on PoCL's units, about 70 on an H200's 132).
template <typename T>
std::optional<std::array<std::int64_t, 3>> tail_split_call(bool along_rows, std::int64_t batch) {
  const std::int64_t units = rt::context::get().device().compute_units;
  const blas::gemm_params p = split_config<T>(0);
  const std::int64_t k = 2003;
  const auto batch_slots = double(units * blas::split_k_groups_held(blas::derive(p, sizeof(T))));
  const auto most = static_cast<std::int64_t>(std::ceil(std::sqrt(2.0 * batch_slots))) + 2;
  std::optional<std::array<std::int64_t, 3>> best;
  for (std::int64_t rows = 1; rows <= most; ++rows)
    for (std::int64_t cols = 1; cols <= most; ++cols) {
      const std::int64_t m = 32 * rows - 1, n = 32 * cols - 2;
      const auto plan = blas::tail_split_for_call(p, sizeof(T), {m, n, k, batch, false, true}, units, 0);
      if (plan && plan->along_rows == along_rows && (!best || m * n < (*best)[0] * (*best)[1])) best = {{m, n, k}};
    }
  return best;
}

// split_k = 0 at calls that run as tail splits on this device: against OpenBLAS in every
// transpose, float and double, with padded, odd leading dimensions and an offset, batched too;
// three launches (the whole part, the tail's slices, their sum) where the tail splits, and NN as
// its split (the slices and their sum).
template <typename T>
void tail_splits_match_openblas() {
  const auto units = rt::context::get().device().compute_units;
  const blas::gemm_params p = split_config<T>(0);
  for (const bool along_rows : {true, false})
    for (const std::int64_t batch : {1, 3}) {
      const auto shape = tail_split_call<T>(along_rows, batch);
      ASSERT_TRUE(shape) << "no call of the blocks searched runs as a tail split along "
                         << (along_rows ? "rows" : "columns") << " on " << units << " compute units";
      for (auto ta : every_transpose)
        for (auto tb : every_transpose) {
          gemm_case c;
          c.trans_a = ta, c.trans_b = tb, c.m = (*shape)[0], c.n = (*shape)[1], c.k = (*shape)[2], c.batch = batch;
          c.lda_pad = 2, c.ldb_pad = 1, c.ldc_pad = 3, c.odd_ld = true, c.stride_gap = 1, c.offset = 5;
          c.beta = 0.5;
          const bool nn = ta == blas::transpose::none && tb == blas::transpose::none;
          const auto plan = blas::tail_split_for_call(
              p, sizeof(T), {c.m, c.n, c.k, batch, ta == blas::transpose::trans, tb == blas::transpose::trans}, units, 0);
          ASSERT_EQ(plan.has_value(), !nn);
          ASSERT_GT(blas::chosen_split_k(p, sizeof(T), c.m, c.n, c.k, batch, units), 1);
          const auto before = blas::detail::launch_count();
          check_gemm<T>(p, c);
          EXPECT_EQ(blas::detail::launch_count() - before, !nn && plan->split > 1 ? 3u : 2u);
        }
    }
}

TEST(GemmSplitK, FloatTailSplitsMatchOpenBlas) { tail_splits_match_openblas<float>(); }
TEST(GemmSplitK, DoubleTailSplitsMatchOpenBlas) { tail_splits_match_openblas<double>(); }

// A tail split gives the same bits on every run, and so does blas::gemm; a split the caller
// sets runs as it says (two launches), never as a tail split.
TEST(GemmSplitK, ATailSplitGivesTheSameBitsOnEveryRun) {
  auto& ctx = rt::context::get();
  const auto shape = tail_split_call<float>(true, 1);
  ASSERT_TRUE(shape);
  const std::int64_t m = (*shape)[0], n = (*shape)[1], k = (*shape)[2];
  const auto a = tessera::testing::random_values<float>(m * k);
  const auto b = tessera::testing::random_values<float>(k * n);
  rt::device_buffer da(ctx, a.size() * sizeof(float)), db(ctx, b.size() * sizeof(float)), dc(ctx, m * n * sizeof(float));
  da.write(0, da.bytes(), a.data());
  db.write(0, db.bytes(), b.data());
  blas::gemm_arguments<float> args;
  args.trans_b = blas::transpose::trans;
  args.m = m, args.n = n, args.k = k, args.alpha = 1.0f, args.beta = 0.0f;
  args.a = &da, args.lda = m, args.b = &db, args.ldb = n, args.c = &dc, args.ldc = m;
  const blas::gemm_params chosen = split_config<float>(0);
  const auto run = [&](const blas::gemm_params& params) {
    const auto before = blas::detail::launch_count();
    blas::gemm_with(params, args).wait();
    std::vector<float> out(m * n);
    dc.read(0, dc.bytes(), out.data());
    return std::pair{out, blas::detail::launch_count() - before};
  };
  const auto [first, launches] = run(chosen);
  EXPECT_GE(launches, 2u);
  for (int i = 0; i < 5; ++i)
    ASSERT_EQ(std::memcmp(run(chosen).first.data(), first.data(), first.size() * sizeof(float)), 0) << "run " << i;
  const int split = blas::chosen_split_k(chosen, 4, m, n, k, 1, ctx.device().compute_units);
  ASSERT_GT(split, 1);
  const auto [as_set, set_launches] = run(split_config<float>(split));
  EXPECT_EQ(set_launches, 2u);
  for (std::size_t i = 0; i < first.size(); ++i)
    ASSERT_NEAR(as_set[i], first[i], 1e-3f * (1 + std::abs(first[i])));
}

}  // namespace
