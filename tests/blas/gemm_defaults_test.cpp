// The defaults table: problem classes, device keys, the fallback chain.
#include <tessera/blas/gemm_defaults.hpp>
#include <tessera/runtime/context.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/sanitizers.hpp"

namespace blas = tessera::blas;
namespace rt = tessera::runtime;

namespace {

rt::device_info device(std::string name, std::string vendor, rt::device_type type, std::uint64_t local_bytes,
                       std::size_t max_wg, std::string platform = "Some platform") {
  rt::device_info d;
  d.name = std::move(name), d.vendor = std::move(vendor), d.type = type, d.platform_name = std::move(platform);
  d.local_memory_bytes = local_bytes, d.max_work_group_size = max_wg, d.has_fp64 = true;
  return d;
}

TEST(GemmDefaults, ProblemClasses) {
  EXPECT_EQ(blas::classify_problem(4096, 4096, 4096, 1), blas::gemm_problem_class::large);
  EXPECT_EQ(blas::classify_problem(8192, 64, 8192, 1), blas::gemm_problem_class::medium);
  EXPECT_EQ(blas::classify_problem(256, 256, 256, 1), blas::gemm_problem_class::medium);
  EXPECT_EQ(blas::classify_problem(128, 128, 128, 1), blas::gemm_problem_class::small);
  EXPECT_EQ(blas::classify_problem(7, 100000, 100000, 1), blas::gemm_problem_class::small);
  EXPECT_EQ(blas::classify_problem(64, 64, 64, 256), blas::gemm_problem_class::batched);
}

TEST(GemmDefaults, DeviceKeysNormaliseVendorAndArchitecture) {
  const auto pocl = blas::describe_device(device("pthread-skylake-avx512-Intel(R) Xeon(R) Processor", "GenuineIntel",
                                                 rt::device_type::cpu, 2 << 20, 4096, "Portable Computing Language"));
  EXPECT_EQ(pocl.vendor, "pocl");
  EXPECT_EQ(pocl.architecture, "skylake-avx512");
  EXPECT_EQ(pocl.type, "cpu");
  const auto nv = blas::describe_device(device("NVIDIA H200", "NVIDIA Corporation", rt::device_type::gpu, 49152, 1024));
  EXPECT_EQ(nv.vendor, "nvidia");
  EXPECT_EQ(nv.type, "gpu");
  const auto amd = blas::describe_device(device("gfx90a", "Advanced Micro Devices, Inc.", rt::device_type::gpu, 65536, 256));
  EXPECT_EQ(amd.vendor, "amd");
  EXPECT_EQ(amd.architecture, "gfx90a");
}

TEST(GemmDefaults, EveryEntryIsValidForItsPrecisions) {
  for (const auto& e : blas::gemm_defaults_table()) {
    for (int bytes : {2, 4, 8}) {
      if (e.element_bytes != bytes && !(e.element_bytes == 0 && bytes != 2)) continue;
      EXPECT_THAT(blas::check_gemm_rules(e.params, bytes), ::testing::ElementsAre())
          << blas::to_string(e.params) << " for " << bytes << "-byte elements";
    }
  }
}

TEST(GemmDefaults, VendorEntriesWinOverTheGenericOnes) {
  // A device without tuned entries of its own (configs/defaults/ has none for it).
  const auto nv = device("NVIDIA A100-SXM4-80GB", "NVIDIA Corporation", rt::device_type::gpu, 49152, 1024);
  const auto choice = blas::choose_default(nv, 4, false, false, blas::gemm_problem_class::large);
  ASSERT_NE(choice.entry, nullptr);
  EXPECT_EQ(choice.entry->level, blas::gemm_match_level::vendor);
  EXPECT_EQ(choice.entry->problem, "large");
  EXPECT_EQ(choice.entry->element_bytes, 4);
  const auto cpu = device("pthread-haswell-AMD EPYC", "AuthenticAMD", rt::device_type::cpu, 2 << 20, 4096,
                          "Portable Computing Language");
  EXPECT_EQ(blas::choose_default(cpu, 4, false, false, blas::gemm_problem_class::large).entry->level,
            blas::gemm_match_level::type);
}

TEST(GemmDefaults, TunedWinnersOfTheDeviceComeFirst) {
  // configs/defaults/nvidia_gpu.json (tune_all on an H200 at 4096^3) is rendered into the table by the build.
  const auto h200 = device("NVIDIA H200", "NVIDIA Corporation", rt::device_type::gpu, 49152, 1024);
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      const auto choice = blas::choose_default(h200, 4, blas::gemm_problem_shape{4096, 4096, 4096, 1, ta, tb});
      ASSERT_NE(choice.entry, nullptr);
      EXPECT_EQ(choice.entry->level, blas::gemm_match_level::name);
      ASSERT_TRUE(choice.entry->shape.has_value());
      EXPECT_THAT(choice.entry->origin, ::testing::StartsWith("tuned "));
      EXPECT_EQ(choice.entry->transposes, (std::string{ta ? 't' : 'n', tb ? 't' : 'n'}));
    }
  // Shapes far from every tuned one fall back to the vendor's entries. (64^3 is no longer one:
  // the long-K draw's tuned shape 121 x 76 x 6890 lies within max_shape_distance of it.)
  const auto small = blas::choose_default(h200, 4, blas::gemm_problem_shape{16, 16, 16, 1});
  EXPECT_EQ(small.entry->level, blas::gemm_match_level::vendor);
  EXPECT_EQ(small.entry->problem, "small");
}

// ---- the shape database's selection rule, on tables of the test's own

blas::gemm_default_entry tuned(std::string match, std::string architecture, std::int64_t m, std::int64_t n,
                               std::int64_t k, std::int64_t batch, std::string transposes, std::string config,
                               std::string precision = "default") {
  blas::gemm_default_entry e;
  e.level = blas::gemm_match_level::name, e.match = std::move(match), e.element_bytes = 4;
  e.transposes = transposes, e.problem = "any", e.params = blas::parse_gemm_params(config);
  e.origin = "test";
  e.shape = blas::gemm_problem_shape{m, n, k, batch, transposes[0] == 't', transposes[1] == 't'};
  e.architecture = std::move(architecture), e.precision = std::move(precision);
  return e;
}

blas::gemm_default_entry class_entry(blas::gemm_match_level level, std::string match, std::string problem,
                                     std::string config) {
  blas::gemm_default_entry e;
  e.level = level, e.match = std::move(match), e.element_bytes = 0, e.transposes = "any";
  e.problem = std::move(problem), e.params = blas::parse_gemm_params(config), e.origin = "test";
  return e;
}

const std::string big_tile = "local cache_line_bytes=64 item=8x8 wg=16x16 vector_width=4 double_buffer=1";
const std::string mid_tile = "local cache_line_bytes=64 item=4x4 wg=16x16 vector_width=4";
const std::string small_tile = "local cache_line_bytes=32 item=2x2 wg=8x8 vector_width=2";
const std::string batched_tile = "no_local cache_line_bytes=32 item=4x4 wg=8x8 vector_width=4";
const std::string vendor_tile = "local cache_line_bytes=64 item=4x4 wg=8x8 vector_width=4";

const blas::gemm_device_key h200_key{"NVIDIA H200", "sm_90", "nvidia", "gpu"};
const blas::gemm_device_key h100_key{"NVIDIA H100 80GB HBM3", "sm_90", "nvidia", "gpu"};
const blas::gemm_device_key a100_key{"NVIDIA A100-SXM4-80GB", "sm_80", "nvidia", "gpu"};
const blas::gemm_limits gpu_limits{49152, 1024};

std::vector<blas::gemm_default_entry> h200_database() {
  return {tuned("NVIDIA H200", "sm_90", 4096, 4096, 4096, 1, "nn", big_tile),
          tuned("NVIDIA H200", "sm_90", 1024, 1024, 1024, 1, "nn", mid_tile),
          tuned("NVIDIA H200", "sm_90", 1024, 1024, 1024, 1, "nn", small_tile),  // the runner-up
          tuned("NVIDIA H200", "sm_90", 64, 64, 64, 512, "nn", batched_tile),
          tuned("NVIDIA H200", "sm_90", 4096, 4096, 4096, 1, "tn", small_tile),
          class_entry(blas::gemm_match_level::vendor, "nvidia", "any", vendor_tile)};
}

std::string pick(const std::vector<blas::gemm_default_entry>& table, const blas::gemm_device_key& key,
                 blas::gemm_problem_shape shape, const blas::gemm_limits& limits = gpu_limits,
                 std::string_view precision = "default") {
  return blas::to_string(blas::choose_default(table, key, limits, 4, shape, precision).params);
}

std::string text(const std::string& config) { return blas::to_string(blas::parse_gemm_params(config)); }

TEST(GemmShapeDatabase, TheTestsConfigurationsFitAnH200) {
  for (const auto& config : {big_tile, mid_tile, small_tile, batched_tile, vendor_tile})
    EXPECT_THAT(blas::check_gemm_rules(blas::parse_gemm_params(config), 4, gpu_limits), ::testing::ElementsAre()) << config;
}

TEST(GemmShapeDatabase, TheNearestTunedShapeInLogSpaceServes) {
  const auto table = h200_database();
  EXPECT_EQ(pick(table, h200_key, {4096, 4096, 4096}), text(big_tile));  // a tuned shape: its own entry
  EXPECT_EQ(pick(table, h200_key, {3001, 2999, 1003}), text(big_tile));
  EXPECT_EQ(pick(table, h200_key, {1000, 1000, 1000}), text(mid_tile));
  EXPECT_EQ(pick(table, h200_key, {1500, 1800, 900}), text(mid_tile));   // nearer 1024 than 4096 in log space
  EXPECT_EQ(pick(table, h200_key, {48, 70, 50, 300}), text(batched_tile));
}

TEST(GemmShapeDatabase, DistanceIsSymmetricInLogSpaceAndPenalisesOtherTransposes) {
  const blas::gemm_problem_shape a{1024, 1024, 1024}, twice{2048, 1024, 1024}, half{512, 1024, 1024};
  EXPECT_NEAR(blas::shape_distance(a, twice), blas::shape_distance(a, half), 1e-12);
  EXPECT_NEAR(blas::shape_distance(a, twice), std::log(2.0), 1e-12);
  EXPECT_NEAR(blas::shape_distance(a, {1024, 1024, 4096}), std::log(2.0), 1e-12);  // K at half weight
  EXPECT_EQ(blas::shape_distance(a, a), 0.0);
  EXPECT_EQ(blas::shape_distance(a, {1024, 1024, 1024, 1, true, false}), 1.0);
}

TEST(GemmShapeDatabase, KCountsLessThanTheOutputTiles) {
  // 1024 x 1024 x 16384 is as far from 1024^3 in K (x16) as from 4096^3 in M and N (x4 each);
  // halving K's weight keeps the tile of the shape with the same number of work-groups.
  EXPECT_EQ(pick(h200_database(), h200_key, {1024, 1024, 16384}), text(mid_tile));
}

TEST(GemmShapeDatabase, TheSameTransposesArePreferredAtASimilarSize) {
  const auto table = h200_database();
  EXPECT_EQ(pick(table, h200_key, {4096, 4096, 4096, 1, true, false}), text(small_tile));  // tn's own
  EXPECT_EQ(pick(table, h200_key, {2048, 2048, 2048, 1, true, false}), text(small_tile));
  // tn tuned only at 4096: at 1024 the nn-tuned 1024 shape (other transposes, same size) is nearer.
  EXPECT_EQ(pick(table, h200_key, {1024, 1024, 1024, 1, true, false}), text(mid_tile));
}

TEST(GemmShapeDatabase, DeviceFillCountsTheEdgeTilesAndTheLastWave) {
  const auto big = blas::parse_gemm_params(big_tile);  // 128 x 128 of C a work-group
  // 4096^2: 1024 work-groups, 8 waves of 132 (the last 100 of 132 full).
  EXPECT_NEAR(blas::device_fill(big, 4, {4096, 4096, 4096}, 132), 1024.0 / 1056.0, 1e-12);
  // 64 x 64: a quarter of one tile on one unit of 132.
  EXPECT_NEAR(blas::device_fill(big, 4, {64, 64, 64}, 132), 0.25 / 132.0, 1e-12);
  // 200 x 128, batch 3: 2 x 1 tiles of 128 x 128 (200 of 256 rows used), 6 work-groups on 4 units.
  EXPECT_NEAR(blas::device_fill(big, 4, {200, 128, 64, 3}, 4), (200.0 / 256.0) * 6.0 / 8.0, 1e-12);
  // split_k = 0 splits a long K over the idle units: its work-groups count as the tiles do.
  auto split = big;
  split.split_k = 0;
  const double groups = 4.0 * blas::chosen_split_k(split, 4, 256, 256, 65536, 1, 132);
  ASSERT_GE(groups, 132.0);
  EXPECT_NEAR(blas::device_fill(split, 4, {256, 256, 65536}, 132), groups / (std::ceil(groups / 132.0) * 132.0), 1e-12);
  EXPECT_NEAR(blas::device_fill(big, 4, {256, 256, 65536}, 132), 4.0 / 132.0, 1e-12);
}

// Two tuned shapes of narrow outputs: the 128-row tile won at 2048 x 64, the 64-row one at 1024 x 64.
std::vector<blas::gemm_default_entry> narrow_database() {
  return {tuned("NVIDIA H200", "sm_90", 2048, 64, 2048, 1, "nn", big_tile),
          tuned("NVIDIA H200", "sm_90", 1024, 64, 2048, 1, "nn", mid_tile)};
}

// The configuration of the entry picked (the rule's choice; the call runs it with its own split
// of K, ANeighboursPickRunsWithTheCallsSplit).
std::string pick_with_units(const std::vector<blas::gemm_default_entry>& table, blas::gemm_problem_shape shape,
                            std::int64_t compute_units) {
  const auto choice = blas::choose_default(table, h200_key, gpu_limits, 4, shape, "default", compute_units);
  return blas::to_string(choice.entry != nullptr ? choice.entry->params : choice.params);
}

// A tuned shape's local configuration serves its neighbours with the split their tiles and K
// need (chosen_split_k on the device's units), its own shape with its tuned one.
TEST(GemmShapeDatabase, ANeighboursPickRunsWithTheCallsSplit) {
  const auto whole = tuned("NVIDIA H200", "sm_90", 4096, 4096, 4096, 1, "nn", big_tile + " split_k=1");
  std::vector<blas::gemm_default_entry> table = {whole};
  const auto choose = [&](blas::gemm_problem_shape shape, std::int64_t units) {
    return blas::choose_default(table, h200_key, gpu_limits, 4, shape, "default", units);
  };
  auto per_call = blas::parse_gemm_params(big_tile);
  per_call.split_k = 0;
  // 1000^3: 64 blocks of 128 x 128 for 132 units; the model splits K (4 slices: 256 work-groups).
  const int split = blas::chosen_split_k(per_call, 4, 1000, 1000, 1000, 1, 132);
  ASSERT_GT(split, 1);
  const auto neighbour = choose({1000, 1000, 1000}, 132);
  ASSERT_EQ(neighbour.entry, &table[0]);
  EXPECT_EQ(neighbour.params.split_k, split);
  auto expected = per_call;
  expected.split_k = split;
  EXPECT_EQ(neighbour.params, expected);  // only the split differs from the entry's
  // Its own shape: as tuned. Units unknown: the entry's. Many tiles: whole.
  EXPECT_EQ(choose({4096, 4096, 4096}, 132).params.split_k, 1);
  EXPECT_EQ(choose({1000, 1000, 1000}, 0).params.split_k, 1);
  EXPECT_EQ(choose({4096, 4096, 2048}, 132).params.split_k, 1);
  // A set split of a tuned entry is its shape's alone.
  table[0].params.split_k = 4;
  EXPECT_EQ(choose({4096, 4096, 4096}, 132).params.split_k, 4);
  EXPECT_EQ(choose({1000, 1000, 1000}, 132).params.split_k, split);
  EXPECT_EQ(choose({4096, 4096, 2048}, 132).params.split_k, 1);
  // Other families than local do not split.
  table[0].params = blas::parse_gemm_params(batched_tile);
  EXPECT_EQ(choose({1000, 1000, 1000}, 132).params, blas::parse_gemm_params(batched_tile));
}

TEST(GemmShapeDatabase, NearShapesAreWeighedByHowFullTheyKeepTheDevice) {
  const auto table = narrow_database();
  // 1800 x 64 is nearest 2048 x 64, whose 128-row tile gives 15 work-groups for 132 units (16
  // where it was tuned); the 64-row tile of 1024 x 64, a little farther, gives 29 (16 there).
  EXPECT_EQ(pick_with_units(table, {1800, 64, 2048}, 132), text(mid_tile));
  const auto big = blas::parse_gemm_params(big_tile), mid = blas::parse_gemm_params(mid_tile);
  EXPECT_GT(blas::tuned_shape_fill_score(mid, 4, {1800, 64, 2048}, {1024, 64, 2048}, 132),
            blas::tuned_shape_fill_score(big, 4, {1800, 64, 2048}, {2048, 64, 2048}, 132));
  // Without the compute units, the nearest alone.
  EXPECT_EQ(pick_with_units(table, {1800, 64, 2048}, 0), text(big_tile));
  // On a device of 8 units both tiles fill every wave but the last: the nearest's measurement serves.
  EXPECT_EQ(pick_with_units(table, {1800, 64, 2048}, 8), text(big_tile));
}

TEST(GemmShapeDatabase, ATunedShapeKeepsItsOwnMeasuredEntryWhateverTheFill) {
  const auto table = narrow_database();
  // At 2048 x 64 the 64-row tile would give twice the work-groups of where it was tuned, but the
  // 128-row tile was measured the faster here.
  EXPECT_GT(blas::tuned_shape_fill_score(blas::parse_gemm_params(mid_tile), 4, {2048, 64, 2048}, {1024, 64, 2048}, 132),
            1.0);
  EXPECT_EQ(pick_with_units(table, {2048, 64, 2048}, 132), text(big_tile));
  EXPECT_EQ(pick_with_units(table, {1024, 64, 2048}, 132), text(mid_tile));
}

TEST(GemmShapeDatabase, OnlyShapesWithinTheFillReachOfTheNearestAreWeighed) {
  const auto table = narrow_database();
  // 2600 x 64: 2048 x 64 lies 0.24 away, 1024 x 64 0.93 (beyond 0.24 + fill_choice_reach).
  ASSERT_GT(blas::shape_distance({2600, 64, 2048}, {1024, 64, 2048}),
            blas::shape_distance({2600, 64, 2048}, {2048, 64, 2048}) + blas::fill_choice_reach);
  EXPECT_EQ(pick_with_units(table, {2600, 64, 2048}, 132), text(big_tile));
}

TEST(GemmShapeDatabase, ShapesBeyondTheReachOfEveryTunedOneGetTheClassEntries) {
  EXPECT_EQ(pick(h200_database(), h200_key, {8, 100000, 8}), text(vendor_tile));
  EXPECT_GT(blas::shape_distance({8, 100000, 8}, {1024, 1024, 1024}), blas::max_shape_distance);
}

TEST(GemmShapeDatabase, TheRunnerUpServesWhereTheFirstDoesNotFit) {
  // 4 KiB of local memory: the 1024 shape's first entry (4x4 items, 16x16 work-group: 8 KiB) does not fit.
  const blas::gemm_limits small_local{4096, 1024};
  ASSERT_FALSE(blas::check_gemm_rules(blas::parse_gemm_params(mid_tile), 4, small_local).empty());
  EXPECT_EQ(pick(h200_database(), h200_key, {1024, 1024, 1024}, small_local), text(small_tile));
}

TEST(GemmShapeDatabase, TunedShapesServeOtherDevicesOfTheArchitectureBeforeTheVendorEntries) {
  const auto table = h200_database();
  const auto h100 = blas::choose_default(table, h100_key, gpu_limits, 4, {1000, 1000, 1000});
  ASSERT_NE(h100.entry, nullptr);
  EXPECT_EQ(blas::to_string(h100.params), text(mid_tile));
  EXPECT_EQ(h100.entry->match, "NVIDIA H200");
  // Another architecture gets the vendor's.
  EXPECT_EQ(pick(table, a100_key, {1000, 1000, 1000}), text(vendor_tile));
}

TEST(GemmShapeDatabase, TheDevicesOwnTunedShapesComeBeforeItsArchitecturesAtAnyDistance) {
  auto table = h200_database();
  table.insert(table.begin(), tuned("NVIDIA H100", "sm_90", 512, 512, 512, 1, "nn", batched_tile));
  // For the H100, its own 512^3 entry (name level) wins over the H200's exact 1024^3 one.
  EXPECT_EQ(pick(table, h100_key, {1024, 1024, 1024}), text(batched_tile));
}

TEST(GemmShapeDatabase, EntriesOfAnotherPrecisionServeOnlyTheirs) {
  auto table = h200_database();
  table.insert(table.begin(), tuned("NVIDIA H200", "sm_90", 1024, 1024, 1024, 1, "nn", batched_tile, "tf32"));
  EXPECT_EQ(pick(table, h200_key, {1024, 1024, 1024}), text(mid_tile));
  EXPECT_EQ(pick(table, h200_key, {1024, 1024, 1024}, gpu_limits, "tf32"), text(batched_tile));
}

std::string defaults_file_error(const std::string& text);

// ---- the measured rule: every database configuration timed at the tuned shapes

blas::gemm_default_entry measured(std::int64_t m, std::int64_t n, std::int64_t k, std::string config, double gflops,
                                  std::string transposes = "nn") {
  auto e = tuned("NVIDIA H200", "sm_90", m, n, k, 1, std::move(transposes), std::move(config));
  e.role = blas::gemm_entry_role::measured, e.gflops = gflops, e.origin = "measured";
  return e;
}

// 1024^3 tuned (mid_tile won the sweep), and every configuration timed there and at 4096^3.
std::vector<blas::gemm_default_entry> measured_database() {
  return {tuned("NVIDIA H200", "sm_90", 1024, 1024, 1024, 1, "nn", mid_tile),
          measured(1024, 1024, 1024, mid_tile, 9000.0), measured(1024, 1024, 1024, big_tile, 11000.0),
          measured(1024, 1024, 1024, small_tile, 3000.0),
          tuned("NVIDIA H200", "sm_90", 4096, 4096, 4096, 1, "nn", big_tile),
          measured(4096, 4096, 4096, big_tile, 40000.0), measured(4096, 4096, 4096, mid_tile, 30000.0),
          measured(4096, 4096, 4096, small_tile, 10000.0),
          class_entry(blas::gemm_match_level::vendor, "nvidia", "any", vendor_tile)};
}

TEST(GemmMeasuredRule, AtAnUntunedShapeTheTimingsDecide) {
  const auto table = measured_database();
  // 1024 x 1024 x 1536: the fill of both tiles is as at 1024^3 (K differs), and big_tile was timed
  // the faster there (the sweep's winner, mid_tile, was not re-measured against it).
  EXPECT_EQ(pick_with_units(table, {1024, 1024, 1536}, 132), text(big_tile));
  // Without the compute units the measured entries are not weighed and never picked as winners.
  EXPECT_EQ(pick_with_units(table, {1024, 1024, 1536}, 0), text(mid_tile));
}

// At a tuned shape the database also timed every configuration at, those timings decide: the
// sweep's winner there (mid_tile, 9000 GFLOP/s in the matrix) lost to big_tile (11000) timed in
// the same run. A tuned shape without timings keeps its own entry, and so does every tuned shape
// where the compute units are not known (the measured rule weighs fill, which needs them), and
// where the timings were read after the entry (gemm_default_entry::source).
TEST(GemmMeasuredRule, AtATunedShapeItsOwnTimingsDecideAndWithoutThemItsEntry) {
  auto table = measured_database();
  EXPECT_EQ(pick_with_units(table, {1024, 1024, 1024}, 132), text(big_tile));
  EXPECT_EQ(pick_with_units(table, {1024, 1024, 1024}, 0), text(mid_tile));
  // Timings of another device (nothing of the level) do not displace the device's own entry.
  for (auto& e : table)
    if (e.role == blas::gemm_entry_role::measured) e.match = "NVIDIA H100", e.architecture = "sm_90";
  EXPECT_EQ(pick_with_units(table, {1024, 1024, 1024}, 132), text(mid_tile));
  // Timings read after the tuned entry (the built-in database's, behind a file of the user's
  // fresh tuning) do not displace it; timings read with it or before it do.
  table = measured_database();
  for (auto& e : table)
    if (e.role == blas::gemm_entry_role::measured) e.source = 1;
  EXPECT_EQ(pick_with_units(table, {1024, 1024, 1024}, 132), text(mid_tile));
  for (auto& e : table) e.source = e.role == blas::gemm_entry_role::measured ? 0 : 1;
  EXPECT_EQ(pick_with_units(table, {1024, 1024, 1024}, 132), text(big_tile));
  // Without its timings at 1024^3, the tuned entry serves there, though 4096^3's are in reach.
  table = measured_database();
  std::erase_if(table, [](const blas::gemm_default_entry& e) {
    return e.role == blas::gemm_entry_role::measured && e.shape->m == 1024;
  });
  EXPECT_EQ(pick_with_units(table, {1024, 1024, 1024}, 132), text(mid_tile));
}

// At a call's own measured shape the near shapes' timings rank the configurations timed there near
// the fastest (measured_rule_own_shape_floor of it or more); they do not overrule the shape's own
// timings beyond that. 1024 x 1024 x 2048 differs from the call in K alone (each tile fills the
// device as at the call) and favours big_tile, which ran at 0.7 of small_tile at the call.
TEST(GemmMeasuredRule, AtAMeasuredShapeOnlyConfigurationsTimedNearItsFastestAreWeighed) {
  const auto table_with = [](double mid_at_call) {
    return std::vector<blas::gemm_default_entry>{
        tuned("NVIDIA H200", "sm_90", 1024, 1024, 1024, 1, "nn", small_tile),
        measured(1024, 1024, 1024, small_tile, 10000.0), measured(1024, 1024, 1024, mid_tile, mid_at_call),
        measured(1024, 1024, 1024, big_tile, 7000.0), measured(1024, 1024, 2048, big_tile, 20000.0),
        measured(1024, 1024, 2048, mid_tile, 18000.0), measured(1024, 1024, 2048, small_tile, 6000.0)};
  };
  ASSERT_LT(7500.0, blas::measured_rule_own_shape_floor * 10000.0);
  ASSERT_GE(9000.0, blas::measured_rule_own_shape_floor * 10000.0);
  // mid_tile at 0.9 of the fastest is weighed, and the near shape makes it the pick over small_tile.
  EXPECT_EQ(pick_with_units(table_with(9000.0), {1024, 1024, 1024}, 132), text(mid_tile));
  // Below the floor it is not: small_tile, the fastest there, is the one candidate left.
  EXPECT_EQ(pick_with_units(table_with(7500.0), {1024, 1024, 1024}, 132), text(small_tile));
  // Away from a measured shape every configuration timed at the nearest is weighed: big_tile's
  // timings at 1024 x 1024 x 2048, the nearer, make it the pick at 1024 x 1024 x 1800.
  EXPECT_EQ(pick_with_units(table_with(7500.0), {1024, 1024, 1800}, 132), text(big_tile));
}

TEST(GemmMeasuredRule, TimingsAreWeighedByTheFillAtTheCall) {
  const auto table = measured_database();
  // 512 x 512 x 1024: big_tile's 128 x 128 blocks give 16 work-groups for 132 units (64 at 1024^3);
  // mid_tile's 64 x 64 ones 64 (256 at 1024^3, two waves). The fill outweighs big_tile's 22%.
  const blas::gemm_problem_shape call{512, 512, 1024}, there{1024, 1024, 1024};
  const auto big = blas::parse_gemm_params(big_tile), mid = blas::parse_gemm_params(mid_tile);
  EXPECT_GT(blas::measured_shape_score(mid, 4, 9000.0 / 11000.0, call, there, 132),
            blas::measured_shape_score(big, 4, 1.0, call, there, 132));
  EXPECT_NEAR(blas::measured_shape_score(big, 4, 1.0, call, there, 132), 16.0 / 64.0, 1e-12);
  EXPECT_EQ(pick_with_units(table, call, 132), text(mid_tile));
}

TEST(GemmMeasuredRule, AMeasuredSplitCountsAtACallOnlyWhereTheCallSplitsToo) {
  // mid_tile (64 x 64 blocks) measured with a split of 3 at 2048^3. At 1500 x 1500 x 1000 the call
  // runs it whole (chosen_split_k, as split_for_the_call does): its 576 work-groups fill 0.832 of
  // five waves, where 3 slices would fill 0.892 of fourteen: the fill there is the whole one's.
  // At 1500 x 1500 x 3000 the call splits it (3 again), and the measured split counts.
  auto split3 = blas::parse_gemm_params(mid_tile), whole = split3, chosen = split3;
  split3.split_k = 3, whole.split_k = 1, chosen.split_k = 0;
  const blas::gemm_problem_shape there{2048, 2048, 2048}, runs_whole{1500, 1500, 1000}, splits{1500, 1500, 3000};
  ASSERT_EQ(blas::chosen_split_k(chosen, 4, 1500, 1500, 1000, 1, 132), 1);
  ASSERT_EQ(blas::chosen_split_k(chosen, 4, 1500, 1500, 3000, 1, 132), 3);
  const double at_there = blas::device_fill(split3, 4, there, 132);
  EXPECT_NEAR(blas::measured_shape_score(split3, 4, 0.8, runs_whole, there, 132),
              0.8 * blas::device_fill(whole, 4, runs_whole, 132) / at_there, 1e-12);
  EXPECT_GT(blas::device_fill(split3, 4, runs_whole, 132), 1.05 * blas::device_fill(whole, 4, runs_whole, 132));
  EXPECT_NEAR(blas::measured_shape_score(split3, 4, 0.8, splits, there, 132),
              0.8 * blas::device_fill(split3, 4, splits, 132) / at_there, 1e-12);
  EXPECT_NEAR(blas::measured_shape_score(split3, 4, 0.8, there, there, 132), 0.8, 1e-12);
}

TEST(GemmMeasuredRule, AMeasuredSplitCountsAtACallOnlyUpToTheSplitTheCallRuns) {
  // mid_tile measured with a split of 8 at 2048^3. At 1500 x 1500 x 3000 the call runs it in 3
  // slices: its fill there is that of 3, not of the 8 it was measured with. At 300 x 300 x 20000
  // the call splits it in more than 8: the measured split's fill stands (more slices are the
  // split model's guess, not a measurement).
  auto split8 = blas::parse_gemm_params(mid_tile), in3 = split8, chosen = split8;
  split8.split_k = 8, in3.split_k = 3, chosen.split_k = 0;
  const blas::gemm_problem_shape there{2048, 2048, 2048}, fewer{1500, 1500, 3000}, more{300, 300, 20000};
  ASSERT_EQ(blas::chosen_split_k(chosen, 4, 1500, 1500, 3000, 1, 132), 3);
  ASSERT_GT(blas::chosen_split_k(chosen, 4, 300, 300, 20000, 1, 132), 8);
  const double at_there = blas::device_fill(split8, 4, there, 132);
  EXPECT_NEAR(blas::measured_shape_score(split8, 4, 0.9, fewer, there, 132),
              0.9 * blas::device_fill(in3, 4, fewer, 132) / at_there, 1e-12);
  EXPECT_NE(blas::device_fill(in3, 4, fewer, 132), blas::device_fill(split8, 4, fewer, 132));
  EXPECT_NEAR(blas::measured_shape_score(split8, 4, 0.9, more, there, 132),
              0.9 * blas::device_fill(split8, 4, more, 132) / at_there, 1e-12);
}

TEST(GemmMeasuredRule, TheNearerShapesTimingsWeighMore) {
  // Two shapes that differ in K alone (so each tile's fill is the same at both) disagree.
  const std::vector<blas::gemm_default_entry> table{
      tuned("NVIDIA H200", "sm_90", 1024, 1024, 1024, 1, "nn", big_tile), measured(1024, 1024, 1024, big_tile, 100.0),
      measured(1024, 1024, 1024, mid_tile, 90.0), tuned("NVIDIA H200", "sm_90", 1024, 1024, 4096, 1, "nn", mid_tile),
      measured(1024, 1024, 4096, mid_tile, 100.0), measured(1024, 1024, 4096, big_tile, 90.0)};
  EXPECT_EQ(pick_with_units(table, {1024, 1024, 1536}, 132), text(big_tile));
  EXPECT_EQ(pick_with_units(table, {1024, 1024, 3000}, 132), text(mid_tile));
}

TEST(GemmMeasuredRule, EvidenceTakenAtAnotherFillWeighsLess) {
  EXPECT_NEAR(blas::measured_shape_weight(0.7, 1.0), std::exp(-0.7 / blas::measured_rule_scale), 1e-12);
  // A gain and its inverse say as little of the call: the fill model is trusted neither way.
  EXPECT_NEAR(blas::measured_shape_weight(0.0, 2.0), blas::measured_shape_weight(0.0, 0.5), 1e-12);
  EXPECT_NEAR(blas::measured_shape_weight(0.0, std::exp(blas::measured_rule_fill_scale)), std::exp(-1.0), 1e-12);

  // The call 1024 x 1024 x 1536 fills the device as 1024^3 does (K differs) for both blocks. At
  // 512 x 1024 x 1024 big_tile's 128 x 128 blocks fill half as much as at the call and mid_tile's
  // 64 x 64 ones as much: big_tile's 0.6 of the best there says 1.2 at the call by the fill model.
  // At 1024^3, the same fill as the call's, big_tile was the slower. Weighed by distance alone
  // big_tile would win on the far shape's doubled fill.
  const blas::gemm_problem_shape call{1024, 1024, 1536}, same_fill{1024, 1024, 1024}, half_fill{512, 1024, 1024};
  const auto big = blas::parse_gemm_params(big_tile), mid = blas::parse_gemm_params(mid_tile);
  const double big_gain = blas::measured_shape_score(big, 4, 1.0, call, half_fill, 132);
  ASSERT_NEAR(big_gain, 2.0, 0.1);
  ASSERT_NEAR(blas::measured_shape_score(mid, 4, 1.0, call, half_fill, 132), 1.0, 0.05);
  ASSERT_NEAR(blas::measured_shape_score(big, 4, 1.0, call, same_fill, 132), 1.0, 1e-12);
  const double near = std::exp(-blas::shape_distance(call, same_fill) / blas::measured_rule_scale);
  const double far = std::exp(-blas::shape_distance(call, half_fill) / blas::measured_rule_scale);
  ASSERT_GT(near * std::log(0.95) + far * std::log(0.6 * big_gain), 0.0);  // big_tile's lead by distance alone
  const std::vector<blas::gemm_default_entry> table{
      tuned("NVIDIA H200", "sm_90", 1024, 1024, 1024, 1, "nn", mid_tile), measured(1024, 1024, 1024, mid_tile, 100.0),
      measured(1024, 1024, 1024, big_tile, 95.0), tuned("NVIDIA H200", "sm_90", 512, 1024, 1024, 1, "nn", mid_tile),
      measured(512, 1024, 1024, mid_tile, 100.0), measured(512, 1024, 1024, big_tile, 60.0)};
  EXPECT_EQ(pick_with_units(table, call, 132), text(mid_tile));
}

TEST(GemmMeasuredRule, AConfigurationTimedAtFewOfTheNearShapesIsNotJudgedOnThemAlone) {
  // Five shapes of the call's output (so each block fills the device alike at all of them) around
  // K = 2048. mid_tile, new to the database, was timed only at the nearest, where it was the
  // fastest: judged there alone its score would be the best possible. big_tile was timed at all
  // five and was the fastest at the other four.
  const blas::gemm_problem_shape call{4096, 4096, 2048};
  const std::int64_t ks[] = {1536, 3072, 1024, 4096, 768};
  double all_near = 0.0;
  for (const std::int64_t k : ks) all_near += blas::measured_shape_weight(blas::shape_distance(call, {4096, 4096, k}), 1.0);
  const double nearest = blas::measured_shape_weight(blas::shape_distance(call, {4096, 4096, ks[0]}), 1.0);
  ASSERT_LT(nearest, blas::measured_rule_coverage * all_near);
  const auto database = [&](bool mid_timed_everywhere) {
    std::vector<blas::gemm_default_entry> table;
    for (const std::int64_t k : ks) {
      table.push_back(tuned("NVIDIA H200", "sm_90", 4096, 4096, k, 1, "nn", big_tile));
      const bool first = k == ks[0];
      table.push_back(measured(4096, 4096, k, big_tile, first ? 95.0 : 100.0));
      if (first || mid_timed_everywhere) table.push_back(measured(4096, 4096, k, mid_tile, first ? 100.0 : 99.0));
    }
    return table;
  };
  EXPECT_EQ(pick_with_units(database(false), call, 132), text(big_tile));
  // Timed at all five, mid_tile's lead at the nearest outweighs its 1% behind at the others.
  EXPECT_EQ(pick_with_units(database(true), call, 132), text(mid_tile));
  // Where no configuration of the nearest was timed at enough of the others, the best of them is
  // still the pick (not the nearest tuned winner's).
  auto thin = database(false);
  thin.erase(thin.begin() + 1);  // the nearest keeps mid_tile alone
  const auto choice = blas::choose_default(thin, h200_key, gpu_limits, 4, call, "default", 132);
  ASSERT_NE(choice.entry, nullptr);
  EXPECT_EQ(choice.entry->role, blas::gemm_entry_role::measured);
  EXPECT_EQ(blas::to_string(choice.entry->params), text(mid_tile));
}

TEST(GemmMeasuredRule, ConfigurationsThatDoNotFitTheDeviceArePassedOver) {
  // 4 KiB of local memory: neither big_tile nor mid_tile fits, small_tile does.
  const blas::gemm_limits small_local{4096, 1024};
  ASSERT_FALSE(blas::check_gemm_rules(blas::parse_gemm_params(big_tile), 4, small_local).empty());
  const auto table = measured_database();  // choice.entry points into it
  const auto choice = blas::choose_default(table, h200_key, small_local, 4, {1024, 1024, 1536}, "default", 132);
  EXPECT_EQ(blas::to_string(choice.params), text(small_tile));
  ASSERT_NE(choice.entry, nullptr);
  EXPECT_EQ(choice.entry->role, blas::gemm_entry_role::measured);
}

TEST(GemmMeasuredRule, MeasuredShapesReachFartherThanTunedWinners) {
  const auto table = measured_database();
  // 100 x 3000 x 1024 lies beyond max_shape_distance of 1024^3 (and of 4096^3) but within measured_rule_reach.
  const blas::gemm_problem_shape far{100, 3000, 1024};
  ASSERT_GT(blas::shape_distance(far, {1024, 1024, 1024}), blas::max_shape_distance);
  ASSERT_LT(blas::shape_distance(far, {1024, 1024, 1024}), blas::measured_rule_reach);
  const auto choice = blas::choose_default(table, h200_key, gpu_limits, 4, far, "default", 132);
  ASSERT_NE(choice.entry, nullptr);
  EXPECT_EQ(choice.entry->role, blas::gemm_entry_role::measured);
  // Without the compute units, and beyond the measured reach: the vendor's class entry.
  EXPECT_EQ(pick_with_units(table, far, 0), text(vendor_tile));
  EXPECT_EQ(pick_with_units(table, {8, 100000, 8}, 132), text(vendor_tile));
}

TEST(GemmMeasuredRule, ADefaultsFileReadsMeasuredEntriesAndNamesBadOnes) {
  const std::string head = R"({"entries": [{"level": "name", "match": "X", "element_bytes": 4, "transposes": "nn",
      "problem": "large", "configuration": "local item=4x4 wg=8x8", "origin": "o")";
  const std::string shape = R"(, "shape": {"m": 3, "n": 5, "k": 7, "batch": 1})";
  EXPECT_EQ(defaults_file_error(head + shape + R"(, "role": "measured", "gflops": 12.5}]})"), "(no error)");
  EXPECT_THAT(defaults_file_error(head + shape + R"(, "role": "measured"}]})"),
              ::testing::HasSubstr("$.entries[0].gflops: a measured entry's GFLOP/s: expected a number above 0"));
  EXPECT_THAT(defaults_file_error(head + R"(, "role": "measured", "gflops": 3}]})"),
              ::testing::HasSubstr("$.entries[0].shape: a measured entry is a tuned shape's"));
  EXPECT_THAT(defaults_file_error(head + shape + R"(, "role": "guessed"}]})"),
              ::testing::HasSubstr("$.entries[0].role: expected one of tuned, measured, got 'guessed'"));
  EXPECT_THAT(defaults_file_error(head + shape + R"(, "gflops": -1}]})"),
              ::testing::HasSubstr("$.entries[0].gflops: expected a finite number of at least 0"));
}

std::string defaults_file_error(const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("tessera_defaults_" + std::to_string(std::random_device{}()) + ".json");
  std::ofstream(path) << text;
  std::string message = "(no error)";
  try {
    blas::read_gemm_defaults_file(path.string());
  } catch (const tessera::argument_error& e) {
    message = e.what();
  }
  std::filesystem::remove(path);
  return message;
}

TEST(GemmShapeDatabase, ADefaultsFileIsReadWithItsShapesAndBadOnesAreNamed) {
  const std::string entry =
      R"({"level": "name", "match": "X", "architecture": "sm_90", "element_bytes": 4, "transposes": "tn",
          "problem": "large", "shape": {"m": 3, "n": 5, "k": 7, "batch": 2}, "precision": "default",
          "configuration": "local item=4x4 wg=8x8", "origin": "o"})";
  EXPECT_EQ(defaults_file_error(R"({"entries": [)" + entry + "]}"), "(no error)");
  EXPECT_THAT(defaults_file_error(R"({"entries": [{"level": "nme"}]})"),
              ::testing::HasSubstr("$.entries[0].level: expected one of name, architecture"));
  EXPECT_THAT(defaults_file_error(R"({"entries": [{"level": "name", "match": "X", "element_bytes": 4, "transposes": "nn",
      "problem": "any", "shape": {"m": 0, "n": 1, "k": 1, "batch": 1}, "configuration": "naive"}]})"),
              ::testing::HasSubstr("$.entries[0].shape.m: expected a whole number"));
  EXPECT_THAT(defaults_file_error(R"({"entries": [{"level": "name", "match": "X", "element_bytes": 4, "transposes": "nn",
      "problem": "any", "configuration": "local wg=banana"}]})"),
              ::testing::HasSubstr("$.entries[0].configuration"));
  EXPECT_THAT(defaults_file_error("{\"entries\": [}"), ::testing::HasSubstr("malformed JSON"));
  EXPECT_THAT(defaults_file_error("[]"), ::testing::HasSubstr("$.entries: expected a list"));
  EXPECT_THAT([] {
    try {
      blas::read_gemm_defaults_file("/no/such/defaults.json");
    } catch (const tessera::argument_error& e) {
      return std::string(e.what());
    }
    return std::string();
  }(), ::testing::HasSubstr("/no/such/defaults.json: cannot be read"));
}

// A random shape: m and n log-uniform in 1..2^16, k in 1..2^17, one time in four a batch of 1..2^14.
blas::gemm_problem_shape random_shape(std::mt19937_64& random) {
  const auto size = [&](int max_log2) {
    return std::max<std::int64_t>(1, std::int64_t(std::exp2(std::uniform_real_distribution<double>(0, max_log2)(random))));
  };
  const std::int64_t m = size(16), n = size(16), k = size(17);
  const std::int64_t batch = std::uniform_int_distribution<int>(0, 3)(random) == 0 ? size(14) : 1;
  const bool trans_a = random() & 1, trans_b = random() & 1;
  return {m, n, k, batch, trans_a, trans_b};
}

// Under AddressSanitizer at -O0 (scripts/test-sanitizers.sh) a pick took 1.3 ms against 45 us in
// the release build (321 s for the test below, a quarter of that run's test time, before picks
// read an index): there, where the question is memory errors in the same code, a tenth of the
// shapes; the release run checks all.
constexpr int random_shape_count = tessera::testing::under_address_sanitizer ? 500 : 5000;

// The property the lead's judging relies on: whatever the shape (random, odd, huge, empty-ish)
// and whatever the device, the pick passes every rule for that device.
TEST(GemmShapeDatabase, EveryPickForThousandsOfRandomShapesFitsTheDevice) {
  auto table = h200_database();
  const auto& built_in = blas::gemm_defaults_table();
  table.insert(table.end(), built_in.begin(), built_in.end());
  const std::vector<std::pair<blas::gemm_device_key, blas::gemm_limits>> devices{
      {h200_key, gpu_limits},
      {h100_key, {232448, 1024}},
      {a100_key, {49152, 1024}},
      {{"NVIDIA Tiny", "sm_50", "nvidia", "gpu"}, {4096, 64}},
      {{"pthread-skylake-avx512-Intel(R) Xeon(R) Processor", "skylake-avx512", "pocl", "cpu"}, {4 << 20, 4096}},
      {{"pthread-haswell-AMD EPYC", "haswell", "pocl", "cpu"}, {65536, 4096}},
      {{"gfx90a", "gfx90a", "amd", "gpu"}, {65536, 256}},
      {{"Mystery", "", "nobody", "accelerator"}, {0, 1}}};
  const blas::gemm_defaults_index index(table);
  std::mt19937_64 random(20261125);
  std::size_t picks = 0;
  for (int i = 0; i < random_shape_count; ++i) {
    const blas::gemm_problem_shape shape = random_shape(random);
    for (const auto& [key, limits] : devices)
      for (int bytes : {4, 8})
        for (std::int64_t compute_units : {0, 2, 132}) {  // not known (the nearest alone), a CPU's, an H200's
          const auto choice = blas::choose_default(index, key, limits, bytes, shape, "default", compute_units);
          ASSERT_THAT(blas::check_gemm_rules(choice.params, bytes, limits), ::testing::ElementsAre())
              << blas::to_string(choice.params) << " for " << key.name << " at " << shape.m << "x" << shape.n << "x"
              << shape.k << " batch " << shape.batch << " on " << compute_units << " compute units";
          ++picks;
        }
  }
  EXPECT_EQ(picks, std::size_t(random_shape_count) * 8 * 2 * 3);
}

// An index groups a table's measured rows per element size and precision at the first pick that
// asks, then serves every later pick from them: one index over many picks, element sizes and
// precisions interleaved, picks what an index of each pick's own does (the built-in database:
// the H200's measured shapes).
TEST(GemmShapeDatabase, OneIndexOverManyPicksPicksAsAnIndexPerPick) {
  const auto& table = blas::gemm_defaults_table();
  const blas::gemm_defaults_index shared(table);
  auto h200 = device("NVIDIA H200", "NVIDIA Corporation", rt::device_type::gpu, 49152, 1024);
  h200.nvidia_compute_capability = 90;  // tensor cores: the TF32 and fp16 entries fit
  const blas::gemm_limits h200_limits = blas::device_limits(h200);
  std::mt19937_64 random(2026120201);
  int measured = 0;
  for (int i = 0; i < 60; ++i) {
    const auto shape = random_shape(random);
    for (int bytes : {8, 4, 2})
      for (std::string_view precision : {"default", "tf32", "fp16"}) {
        const auto reused = blas::choose_default(shared, h200_key, h200_limits, bytes, shape, precision, 132);
        const auto own = blas::choose_default(blas::gemm_defaults_index(table), h200_key, h200_limits, bytes, shape,
                                              precision, 132);
        ASSERT_EQ(reused.entry, own.entry) << shape.m << "x" << shape.n << "x" << shape.k << " batch " << shape.batch
                                           << ", " << bytes << "-byte elements, " << precision;
        ASSERT_EQ(blas::to_string(reused.params), blas::to_string(own.params));
        measured += reused.entry != nullptr && reused.entry->role == blas::gemm_entry_role::measured;
      }
  }
  EXPECT_GT(measured, 0) << "no pick came from the measured rule: the test would not see its grouping";
}

// Threads share one index (gemm_defaults_table_index serves every blas::gemm call): its groups
// are made once, under a lock, by whichever thread asks first.
TEST(GemmShapeDatabase, ThreadsPickFromOneIndex) {
  const auto& table = blas::gemm_defaults_table();
  const blas::gemm_defaults_index shared(table);
  std::vector<blas::gemm_problem_shape> shapes;
  std::mt19937_64 random(2026120202);
  for (int i = 0; i < 40; ++i) shapes.push_back(random_shape(random));
  std::vector<std::vector<const blas::gemm_default_entry*>> picks(4);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < picks.size(); ++t)
    threads.emplace_back([&, t] {
      for (const auto& shape : shapes)
        for (int bytes : {4, 8}) picks[t].push_back(blas::choose_default(shared, h200_key, gpu_limits, bytes, shape, "default", 132).entry);
    });
  for (auto& thread : threads) thread.join();
  for (std::size_t t = 1; t < picks.size(); ++t) EXPECT_EQ(picks[t], picks[0]) << "thread " << t;
  std::size_t i = 0;
  for (const auto& shape : shapes)
    for (int bytes : {4, 8})
      EXPECT_EQ(picks[0][i++], blas::choose_default(table, h200_key, gpu_limits, bytes, shape, "default", 132).entry);
}

TEST(GemmDefaults, UnknownDevicesGetTheGenericEntries) {
  const auto other = device("Mystery Accelerator", "Nobody", rt::device_type::accelerator, 65536, 1024);
  const auto choice = blas::choose_default(other, 8, true, false, blas::gemm_problem_class::small);
  ASSERT_NE(choice.entry, nullptr);
  EXPECT_EQ(choice.entry->level, blas::gemm_match_level::any);
}

TEST(GemmDefaults, EntriesThatDoNotFitAreSkippedDownToOneThatDoes) {
  const auto tiny = device("NVIDIA Tiny", "NVIDIA Corporation", rt::device_type::gpu, 1024, 16);
  for (auto problem : {blas::gemm_problem_class::small, blas::gemm_problem_class::large}) {
    const auto choice = blas::choose_default(tiny, 4, false, false, problem);
    EXPECT_THAT(blas::check_gemm_rules(choice.params, 4, blas::device_limits(tiny)), ::testing::ElementsAre());
  }
  const auto one = device("Single", "Nobody", rt::device_type::other, 0, 1);
  EXPECT_EQ(blas::choose_default(one, 4, false, false, blas::gemm_problem_class::large).params.family,
            blas::gemm_family::naive);
}

TEST(GemmDefaults, TheTestDeviceGetsAConfigurationThatFitsIt) {
  const auto& d = rt::context::get().device();
  for (auto problem : {blas::gemm_problem_class::small, blas::gemm_problem_class::medium,
                       blas::gemm_problem_class::large, blas::gemm_problem_class::batched}) {
    const auto choice = blas::choose_default(d, 4, false, true, problem);
    EXPECT_THAT(blas::check_gemm_rules(choice.params, 4, blas::device_limits(d)), ::testing::ElementsAre());
  }
}

}  // namespace
