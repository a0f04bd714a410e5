// The rule table: its grammar (shared with the tuner's Python generator), the run-time
// check and the typed configurations.
#include <tessera/blas/gemm_config.hpp>
#include <tessera/runtime/error.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace blas = tessera::blas;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

std::vector<std::string_view> rule_names(const std::vector<blas::gemm_rule_violation>& v) {
  std::vector<std::string_view> out;
  for (const auto& x : v) out.push_back(x.rule);
  return out;
}

std::vector<std::string> def_lines() {
  std::ifstream in(TESSERA_GEMM_RULES_DEF);
  EXPECT_TRUE(in) << TESSERA_GEMM_RULES_DEF;
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(GemmRuleTable, EveryLineKeepsToTheGrammarPythonAlsoReads) {
  const std::regex input(R"re(^TESSERA_GEMM_INPUT\(([a-z_][a-z0-9_]*), "([^"\\]*)"\)$)re");
  const std::regex derived(R"re(^TESSERA_GEMM_DERIVED\(([a-z_][a-z0-9_]*), ([^,"]+)\)$)re");
  const std::regex rule(R"re(^TESSERA_GEMM_RULE\(([a-z_][a-z0-9_]*), ([^,"]+), "([^"\\]*)"\)$)re");
  const std::regex token(R"re(\s*([a-z_][a-z0-9_]*|[0-9]+|==|!=|<=|>=|[-+*/%<>()]))re");
  const std::set<std::string> words{"and", "or", "not"};
  std::set<std::string> defined, rules;
  // The inputs a configuration binds, from gemm_params.def, come before every line.
#define TESSERA_GEMM_BOUND(input, value) defined.insert(#input);
#include <tessera/blas/detail/gemm_bound_inputs.inc>
#undef TESSERA_GEMM_BOUND
  int entries = 0;
  for (const auto& line : def_lines()) {
    if (line.empty() || line.rfind("//", 0) == 0) continue;
    std::smatch m;
    std::string expression;
    if (std::regex_match(line, m, input)) {
      EXPECT_TRUE(defined.insert(m[1]).second) << "defined twice: " << line;
    } else if (std::regex_match(line, m, derived)) {
      expression = m[2];
      EXPECT_TRUE(defined.insert(m[1]).second) << "defined twice: " << line;
    } else if (std::regex_match(line, m, rule)) {
      expression = m[2];
      EXPECT_TRUE(rules.insert(m[1]).second) << "rule named twice: " << line;
    } else {
      ADD_FAILURE() << "not an entry of the grammar: " << line;
      continue;
    }
    ++entries;
    // The expression is names defined above, integers, operators and and/or/not only.
    for (auto it = std::sregex_iterator(expression.begin(), expression.end(), token); it != std::sregex_iterator();
         ++it) {
      const std::string t = (*it)[1];
      if (std::isalpha(static_cast<unsigned char>(t[0])) || t[0] == '_') {
        EXPECT_TRUE(words.count(t) || (defined.count(t) && t != std::string(m[1])))
            << "'" << t << "' is not defined above: " << line;
      }
      if (t == "/") {
        EXPECT_THAT(expression, HasSubstr("/ element_bytes")) << "only element_bytes divides: " << line;
      }
    }
    std::string rest = std::regex_replace(expression, token, "");
    EXPECT_TRUE(std::all_of(rest.begin(), rest.end(), [](char c) { return c == ' '; }))
        << "characters outside the grammar: '" << rest << "' in " << line;
  }
  EXPECT_GT(entries, 20);
}

TEST(GemmRules, ValidConfigurationsOfEveryFamilyPass) {
  for (const char* text : {"naive wg=16x16", "no_local vector_width=4 cache_line_bytes=64 item=8x4 wg=8x8 sg=2x4",
                           "no_local_full vector_width=16 cache_line_bytes=64 item=16x8 wg=4x4",
                           "local vector_width=4 cache_line_bytes=64 item=8x8 wg=16x16 sg=4x8 double_buffer=1 "
                           "no_bank_conflict_a=1 no_bank_conflict_b=1"}) {
    EXPECT_THAT(blas::check_gemm_rules(blas::parse_gemm_params(text), 4), ElementsAre()) << text;
  }
}

TEST(GemmRules, EachBrokenRuleIsNamed) {
  const auto broken = [](const char* text, int bytes = 4, blas::gemm_limits limits = blas::compile_time_limits) {
    return rule_names(blas::check_gemm_rules(blas::parse_gemm_params(text), bytes, limits));
  };
  // Checks generated from gemm_params.def: allowed values, and the value where a parameter does not apply.
  EXPECT_THAT(broken("no_local vector_width=3 item=6x4 wg=8x8"), ElementsAre("vector_width_allowed"));
  EXPECT_THAT(broken("local item=0x4 wg=8x8"), ElementsAre("item_allowed"));
  EXPECT_THAT(broken("naive item=2x1 wg=8x8"), ElementsAre("item_applies"));
  EXPECT_THAT(broken("naive wg=8x8 cache_line_bytes=16"), ElementsAre("cache_line_bytes_applies"));
  EXPECT_THAT(broken("no_local item=4x4 wg=8x8 double_buffer=1"), ElementsAre("double_buffer_applies"));
  // The rules of gemm_rules.def.
  EXPECT_THAT(broken("no_local vector_width=4 item=6x4 wg=8x8"), ElementsAre("vector_width_divides_item_rows"));
  EXPECT_THAT(broken("no_local_full vector_width=4 item=8x4 wg=8x8"), ElementsAre("full_vector_whole_rows"));
  EXPECT_THAT(broken("local vector_width=4 cache_line_bytes=64 item=4x2 wg=8x8"),
              ElementsAre("local_vector_width_divides_item_cols"));
  EXPECT_THAT(broken("local vector_width=8 cache_line_bytes=16 item=8x8 wg=4x4"),
              ElementsAre("local_vector_width_divides_k_tile"));
  EXPECT_THAT(broken("local vector_width=1 cache_line_bytes=4 item=1x1 wg=8x8"),
              ElementsAre("local_a_tile_loads_split_evenly", "local_b_tile_loads_split_evenly"));
  EXPECT_THAT(broken("local vector_width=1 cache_line_bytes=0 item=4x4 wg=8x8"), ElementsAre("local_needs_k_tile"));
  EXPECT_THAT(broken("local item=4x4 wg=8x8 sg=3x1"), ElementsAre("sub_group_tile_divides_work_group"));
  EXPECT_THAT(broken("local item=4x4 wg=8x8 tl=2x1"), ElementsAre("block_level_tiles_unsupported"));
  EXPECT_THAT(broken("local item=4x4 wg=8x8 batch=interleaved"), ElementsAre("interleaved_batch_unsupported"));
  EXPECT_THAT(broken("local item=4x4 wg=8x8 batch_tile=1x2"), ElementsAre("local_one_batch_per_work_group"));
  EXPECT_THAT(broken("local item=4x4 wg=8x8 cache_line_bytes=66"), ElementsAre("cache_line_multiple_of_element"));
  EXPECT_THAT(broken("local item=4x4 wg=8x8", 2), ElementsAre("element_size"));
  EXPECT_THAT(broken("naive wg=64x32"), ElementsAre("work_group_size_limit"));
  const char* fits_half = "local vector_width=4 cache_line_bytes=64 item=8x8 wg=16x16 double_buffer=1";
  EXPECT_THAT(broken(fits_half, 4, {32768, 1024}), ElementsAre());
  EXPECT_THAT(broken((std::string(fits_half) + " no_bank_conflict_a=1").c_str(), 4, {32768, 1024}),
              ElementsAre("local_memory_limit"));
}

TEST(GemmRules, DerivedValuesFollowTheTable) {
  const auto d = blas::derive(
      blas::parse_gemm_params("local vector_width=4 cache_line_bytes=64 item=8x8 wg=16x16 double_buffer=1 "
                              "no_bank_conflict_b=1"),
      4);
  EXPECT_EQ(d.k_tile, 16);
  EXPECT_EQ(d.block_rows, 128);
  EXPECT_EQ(d.work_group_size, 256);
  EXPECT_EQ(d.pad_b, 4);
  EXPECT_EQ(d.local_memory_bytes, 4 * 16 * (128 + 128 + 4) * 2);
  EXPECT_EQ(blas::derive(blas::parse_gemm_params("local cache_line_bytes=64 item=8x8 wg=16x16"), 8).k_tile, 8);
}

TEST(GemmTypedConfig, ConvertsToTheSameValuesAsTheTextForm) {
  using config = blas::gemm_kernel_config<blas::gemm_params{.family = blas::gemm_family::local, .item_rows = 8,
                                                            .item_cols = 8, .wg_rows = 16, .wg_cols = 16,
                                                            .sg_rows = 4, .sg_cols = 8, .double_buffer = true,
                                                            .no_bank_conflict_b = true, .vector_width = 4},
                                          false, false, float>;
  EXPECT_EQ(config::params, blas::parse_gemm_params("local vector_width=4 cache_line_bytes=64 item=8x8 wg=16x16 sg=4x8 "
                                                    "double_buffer=1 no_bank_conflict_a=0 no_bank_conflict_b=1"));
  using naive = blas::gemm_kernel_config<blas::gemm_params{.family = blas::gemm_family::naive, .cache_line_bytes = 0,
                                                           .item_rows = 1, .item_cols = 1},
                                         true, true, double>;
  EXPECT_EQ(naive::params, blas::parse_gemm_params("naive wg=8x8"));
  EXPECT_TRUE((blas::gemm_rules_check<naive::params, 8>::value));
}

}  // namespace
