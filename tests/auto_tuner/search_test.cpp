// The budgeted search compares configurations by their features: one value per parameter of
// gemm_params.def, so that the distance between two configurations sees every parameter (a
// parameter missing from the features would be ignored by the search, silently).
#include <tessera/blas/gemm_config.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "search.hpp"
#include "support/gemm_param_values.hpp"

namespace blas = tessera::blas;
using tessera::auto_tuner::search_features;

namespace {

std::vector<std::size_t> differing(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    if (a[i] != b[i]) out.push_back(i);
  return out;
}

TEST(SearchFeatures, OneFeatureForTheFamilyAndOnePerParameter) {
  EXPECT_EQ(search_features(blas::gemm_params{}).size(), 1 + std::size(blas::gemm_param_table));
}

TEST(SearchFeatures, EveryParameterMovesExactlyItsOwnFeature) {
  const blas::gemm_params base = blas::parse_gemm_params("local vector_width=4 item=8x8 wg=8x8");
  const auto before = search_features(base);
  for (std::size_t i = 0; i < std::size(blas::gemm_param_table); ++i) {
    const auto& info = blas::gemm_param_table[i];
    for (int c = 0; c < info.components(); ++c) {
      blas::gemm_params changed = base;
      info.set(changed, c, tessera::testing::other_value(info, info.get(base, c)));
      // A pair such as item=8x8 is one feature: a move from 8x8 to 16x16 is one step.
      EXPECT_THAT(differing(before, search_features(changed)), ::testing::ElementsAre(1 + i))
          << info.name << " component " << c;
    }
  }
  for (const auto& family : blas::gemm_families) {
    if (family.family == base.family) continue;
    blas::gemm_params changed = base;
    changed.family = family.family;
    EXPECT_THAT(differing(before, search_features(changed)), ::testing::ElementsAre(0u)) << family.name;
  }
}

}  // namespace

namespace {

// search_seeds on a device of 132 compute units: a leader's split-per-call twin goes first where
// the shape would split, and only where the set holds it.
TEST(SearchSeeds, ChosenSplitTwinsLeadWhereTheShapeSplits) {
  const blas::gemm_params tile =
      blas::parse_gemm_params("local cache_line_bytes=64 item=4x4 wg=16x16 sg=4x8 double_buffer=1 vector_width=4");
  blas::gemm_params twin = tile;
  twin.split_k = 0;
  const blas::gemm_params other = blas::parse_gemm_params("local cache_line_bytes=32 item=8x8 wg=16x8 vector_width=4");
  const std::vector<blas::gemm_params> configs{other, tile, twin};
  using tessera::auto_tuner::search_seeds;
  // One 64 x 64 tile, a long K: the twin, then the leaders.
  EXPECT_EQ(search_seeds({tile, other}, configs, 64, 64, 65536, 1, 4, 132),
            (std::vector<blas::gemm_params>{twin, tile, other}));
  // Tiles enough: the leaders alone.
  EXPECT_EQ(search_seeds({tile, other}, configs, 4096, 4096, 4096, 1, 4, 132),
            (std::vector<blas::gemm_params>{tile, other}));
  // A twin not in the set is not sought; a twin among the leaders is not repeated.
  EXPECT_EQ(search_seeds({tile}, {tile}, 64, 64, 65536, 1, 4, 132), (std::vector<blas::gemm_params>{tile}));
  EXPECT_EQ(search_seeds({twin, tile}, configs, 64, 64, 65536, 1, 4, 132),
            (std::vector<blas::gemm_params>{twin, tile}));
  EXPECT_TRUE(search_seeds({}, configs, 64, 64, 65536, 1, 4, 132).empty());
}

// A leader whose own tile the set does not split (the H200's 64 x 64 x 65536 led with a wg=8x8,
// sg=1x1 tile, and the NVIDIA set splits 16x16 and 8x16 work-groups) brings the split-per-call
// configuration nearest to it: the fewest parameters differing.
TEST(SearchSeeds, NearestChosenSplitWhereTheLeadersTileIsNotSplit) {
  const auto parse = [](const char* text) { return blas::parse_gemm_params(text); };
  const auto leader = parse("local cache_line_bytes=64 item=4x4 wg=8x8 double_buffer=1 vector_width=4");
  const auto near =
      parse("local cache_line_bytes=64 item=4x4 wg=16x16 sg=4x8 double_buffer=1 vector_width=4 split_k=0");
  const auto far = parse("local cache_line_bytes=32 item=8x8 wg=8x16 sg=4x8 double_buffer=1 vector_width=4 split_k=0");
  using tessera::auto_tuner::search_seeds;
  EXPECT_EQ(search_seeds({leader}, {far, leader, near}, 64, 64, 65536, 1, 4, 132),
            (std::vector<blas::gemm_params>{near, leader}));
  EXPECT_EQ(search_seeds({leader}, {near, far, leader}, 64, 64, 65536, 1, 4, 132),
            (std::vector<blas::gemm_params>{near, leader}));
  // Where the shape does not split, the leader alone.
  EXPECT_EQ(search_seeds({leader}, {far, leader, near}, 4096, 4096, 4096, 1, 4, 132),
            (std::vector<blas::gemm_params>{leader}));
}

// A leader that wastes a quarter or more of the device brings the configuration of its family that
// fills it best, the nearest to the leader among equals: at n = 16 a 128 x 64 block computes 16
// useful columns of 64, and a 128 x 16 block all of them.
TEST(SearchSeeds, ATileFittedToANarrowOutputFollowsALeaderThatWastesIt) {
  const auto parse = [](const char* text) { return blas::parse_gemm_params(text); };
  const auto wide = parse("local cache_line_bytes=64 item=8x8 wg=16x8 sg=8x4 double_buffer=1 vector_width=4");
  const auto narrow = parse("local cache_line_bytes=64 item=8x4 wg=16x4 double_buffer=1 vector_width=4");
  const auto small = parse("local cache_line_bytes=32 item=2x2 wg=8x8 double_buffer=1 vector_width=2");
  const auto other_family = parse("no_local cache_line_bytes=32 item=4x4 wg=8x4 vector_width=4");
  using tessera::auto_tuner::search_seeds;
  // 16384 x 16: 128 blocks of 128 x 16 fill the 132 units' first wave to 0.97; the 2 x 2 items'
  // 16 x 16 blocks fill as well, but differ from the leader in more parameters.
  EXPECT_EQ(search_seeds({wide}, {small, other_family, wide, narrow}, 16384, 16, 4096, 1, 4, 132),
            (std::vector<blas::gemm_params>{narrow, wide}));
  // Wide outputs: the leader fills the device, nothing is added.
  EXPECT_EQ(search_seeds({wide}, {small, wide, narrow}, 4096, 4096, 4096, 1, 4, 132),
            (std::vector<blas::gemm_params>{wide}));
  // Nothing of the leader's family fills a quarter more: nothing is added.
  EXPECT_EQ(search_seeds({wide}, {other_family, wide}, 16384, 16, 4096, 1, 4, 132),
            (std::vector<blas::gemm_params>{wide}));
}

}  // namespace
