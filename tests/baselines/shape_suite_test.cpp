// Shape suites (tune_* --shapes FILE and bench_gemm_shapes, configs/shapes/*.json): parsing, messages, distances.
#include <tessera/baselines/shape_suite.hpp>

#include <tessera/runtime/error.hpp>

#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace at = tessera::baselines;
using ::testing::HasSubstr;

namespace {

std::string error_of(const std::string& text) {
  try {
    at::parse_shape_suite(text, "suite.json");
  } catch (const tessera::argument_error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ShapeSuite, ReadsAListWithDefaultsAndExpandsTransposes) {
  const auto shapes = at::parse_shape_suite(
      R"([{"m": 3, "n": 5, "k": 7, "transposes": "all"}, {"m": 2, "n": 4, "k": 6, "batch": 9, "transposes": ["tn"], "weight": 2.5}])",
      "suite.json");
  ASSERT_EQ(shapes.size(), 5u);
  EXPECT_EQ(shapes[0].transposes(), "nn");
  EXPECT_EQ(shapes[3].transposes(), "tt");
  EXPECT_EQ(shapes[0].batch, 1);
  EXPECT_EQ(shapes[0].weight, 1.0);
  EXPECT_EQ(shapes[4].label(), "2x4x6 tn, batch 9");
  EXPECT_EQ(shapes[4].weight, 2.5);
}

TEST(ShapeSuite, ReadsAnObjectWithDescription) {
  const auto shapes = at::parse_shape_suite(R"({"description": "d", "shapes": [{"m": 1, "n": 1, "k": 1, "transposes": "nt"}]})",
                                            "suite.json");
  ASSERT_EQ(shapes.size(), 1u);
  EXPECT_TRUE(shapes[0].trans_b);
}

TEST(ShapeSuite, BadInputNamesTheFileAndTheJsonPath) {
  EXPECT_THAT(error_of(R"([{"m": 0, "n": 1, "k": 1, "transposes": "nn"}])"), HasSubstr("suite.json: $[0].m: expected a whole number"));
  EXPECT_THAT(error_of(R"([{"m": 1, "n": 1, "transposes": "nn"}])"), HasSubstr("suite.json: $[0]: missing key 'k'"));
  EXPECT_THAT(error_of(R"([{"m": 1, "n": 1, "k": 1.5, "transposes": "nn"}])"), HasSubstr("$[0].k"));
  EXPECT_THAT(error_of(R"([{"m": 1, "n": 1, "k": 1, "transposes": ["nn", "xy"]}])"), HasSubstr("$[0].transposes[1]"));
  EXPECT_THAT(error_of(R"([{"m": 1, "n": 1, "k": 1, "transposes": "nn", "weight": 0}])"), HasSubstr("$[0].weight"));
  EXPECT_THAT(error_of(R"([{"m": 1, "n": 1, "k": 1, "transposes": "nn", "size": 3}])"), HasSubstr("$[0].size: unknown key"));
  EXPECT_THAT(error_of(R"({"shapes": []})"), HasSubstr("$.shapes: the suite has no shapes"));
  EXPECT_THAT(error_of("[{\"m\": 1,\n  \"n\": }]"), HasSubstr("suite.json:2:"));
  EXPECT_THAT(error_of(R"([{"m": 1, "n": 1, "k": 1, "transposes": "nn", "batch": 3000000000}])"), HasSubstr("$[0].batch"));
}

TEST(ShapeSuite, EveryShippedSuiteParses) {
  std::size_t suites = 0;
  for (const auto& entry : std::filesystem::directory_iterator(TESSERA_SHAPES_DIR)) {
    if (entry.path().extension() != ".json") continue;
    EXPECT_NO_THROW(EXPECT_FALSE(at::read_shape_suite(entry.path()).empty())) << entry.path();
    ++suites;
  }
  EXPECT_GE(suites, 6u);
}

}  // namespace
