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
