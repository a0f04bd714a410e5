// The parameter table (gemm_params.def) and its C++ consumers: every consumer knows exactly
// the parameters of the file (the struct, the text form, the rule inputs, the kernel's -D
// options); the file keeps to the grammar gen/gemm_params.py reads. The tuner's search
// features are checked in tests/auto_tuner/search_test.cpp, the Python model and the schema
// in gen/tests/test_gemm_params.py.
#include <tessera/blas/gemm_config.hpp>
#include <tessera/runtime/error.hpp>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/gemm_param_values.hpp"

#include <algorithm>
#include <cctype>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace blas = tessera::blas;
using ::testing::HasSubstr;
using tessera::testing::choice_values;
using tessera::testing::other_value;

namespace {

// ---- the file itself, read as text (not through the X-macros under test) ---------------

struct file_entry {
  std::string kind, name;
  std::vector<std::string> fields;  // a pair's two; else the name
};

std::vector<file_entry> file_entries() {
  std::ifstream in(TESSERA_GEMM_PARAMS_DEF);
  EXPECT_TRUE(in) << TESSERA_GEMM_PARAMS_DEF;
  const std::string name = R"(([a-z_][a-z0-9_]*))", text = R"re("([^"\\]*)")re", number = "(-?[0-9]+)";
  const std::regex family("^TESSERA_GEMM_FAMILY\\(" + name + ", " + text + ", " + text + "\\)$");
  const std::regex integer("^TESSERA_GEMM_INT\\(" + name + ", " + number + ", " + number + ", " + text + ", " + text +
                           ", " + text + "\\)$");
  const std::regex boolean("^TESSERA_GEMM_BOOL\\(" + name + ", ([01]), ([01]), " + text + ", " + text + "\\)$");
  const std::regex pair("^TESSERA_GEMM_PAIR\\(" + name + ", " + name + ", " + name + ", " + number + ", " + number +
                        ", " + number + ", " + number + ", " + text + ", " + text + ", " + text + "\\)$");
  const std::regex choice("^TESSERA_GEMM_CHOICE\\(" + name + ", " + name + ", " + name + ", " + name + ", " + text +
                          ", " + text + ", ([a-z_][a-z0-9_]*(, [a-z_][a-z0-9_]*)*)\\)$");
  const std::regex former("^TESSERA_GEMM_FORMER_KEY\\(" + name + ", " + name + "\\)$");
  std::vector<file_entry> entries;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line.rfind("//", 0) == 0 || line.rfind("#", 0) == 0) continue;
    std::smatch m;
    if (std::regex_match(line, m, family)) entries.push_back({"family", m[1], {}});
    else if (std::regex_match(line, m, integer)) entries.push_back({"int", m[1], {m[1]}});
    else if (std::regex_match(line, m, boolean)) entries.push_back({"bool", m[1], {m[1]}});
    else if (std::regex_match(line, m, pair)) entries.push_back({"pair", m[1], {m[2], m[3]}});
    else if (std::regex_match(line, m, choice)) entries.push_back({"choice", m[1], {m[1]}});
    else if (std::regex_match(line, m, former)) entries.push_back({"former", m[1], {m[2]}});
    else ADD_FAILURE() << "not an entry of the grammar gen/gemm_params.py reads: " << line;
  }
  return entries;
}

// How many fields an aggregate has: the most initializers it accepts.
struct any_value {
  template <typename T>
  constexpr operator T() const {
    return T{};
  }
};
template <typename T, typename... A>
constexpr std::size_t field_count() {
  if constexpr (requires { T{A{}..., any_value{}}; }) return field_count<T, A..., any_value>();
  else return sizeof...(A);
}

// ---- changing one parameter ------------------------------------------------------------

std::string upper(std::string_view name) {
  std::string out(name);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// The words of b that are not in a.
std::vector<std::string> added(const std::string& a, const std::string& b) {
  const auto wa = words(a);
  std::vector<std::string> out;
  for (const auto& w : words(b))
    if (std::find(wa.begin(), wa.end(), w) == wa.end()) out.push_back(w);
  return out;
}

TEST(GemmParamTable, TheFileKeepsToItsGrammar) {
  const auto entries = file_entries();
  EXPECT_GE(entries.size(), 10u);
  std::set<std::string> names;
  for (const auto& e : entries) {
    if (e.kind == "former") continue;
    EXPECT_TRUE(names.insert(e.name).second) << "defined twice: " << e.name;
  }
}

TEST(GemmParamTable, FamiliesAreThoseOfTheFile) {
  std::vector<std::string> in_file, in_cpp;
  for (const auto& e : file_entries())
    if (e.kind == "family") in_file.push_back(e.name);
  for (const auto& f : blas::gemm_families) {
    in_cpp.push_back(std::string(f.name));
    EXPECT_EQ(blas::to_string(f.family), f.name);
    EXPECT_FALSE(f.source.empty()) << f.name;
  }
  EXPECT_EQ(in_cpp, in_file);
}

TEST(GemmParamTable, TheStructHoldsExactlyTheParametersOfTheFile) {
  std::vector<std::string> file_params, cpp_params, file_fields, cpp_fields;
  for (const auto& e : file_entries()) {
    if (e.kind == "family" || e.kind == "former") continue;
    file_params.push_back(e.name);
    file_fields.insert(file_fields.end(), e.fields.begin(), e.fields.end());
  }
  for (const auto& info : blas::gemm_param_table) {
    cpp_params.push_back(std::string(info.name));
    for (int c = 0; c < info.components(); ++c) cpp_fields.push_back(std::string(info.fields[c]));
  }
  EXPECT_EQ(cpp_params, file_params);
  EXPECT_EQ(cpp_fields, file_fields);
  EXPECT_EQ(field_count<blas::gemm_params>(), 1 + file_fields.size()) << "gemm_params has fields beyond the table";
}

TEST(GemmParamTable, DefaultsAreTheTables) {
  const blas::gemm_params p;
  EXPECT_EQ(p.family, blas::gemm_families[0].family);
  for (const auto& info : blas::gemm_param_table)
    for (int c = 0; c < info.components(); ++c) EXPECT_EQ(info.get(p, c), info.default_value[c]) << info.name;
}

TEST(GemmParamText, RoundTripsEveryParameterInEveryFamily) {
  for (const auto& family : blas::gemm_families) {
    const blas::gemm_params base = blas::parse_gemm_params(family.name);
    EXPECT_EQ(blas::parse_gemm_params(blas::to_string(base)), base) << blas::to_string(base);
    for (const auto& info : blas::gemm_param_table) {
      const bool applies = blas::gemm_param_applies(info.families, family.family);
      EXPECT_EQ(blas::to_string(base).find(" " + std::string(info.name) + "=") != std::string::npos, applies)
          << info.name << " in " << family.name << ": the text names a parameter exactly where it applies";
      for (int c = 0; c < info.components(); ++c) {
        blas::gemm_params changed = base;
        info.set(changed, c, other_value(info, info.get(base, c)));
        const std::string text = blas::to_string(changed);
        EXPECT_EQ(blas::parse_gemm_params(text), changed) << text;
        EXPECT_THAT(text, HasSubstr(" " + std::string(info.name) + "=")) << info.name << " in " << family.name;
      }
    }
  }
}

TEST(GemmParamText, FormerKeysAndTheFormerFullFormStillRead) {
  // The text form before the parameter table (results and defaults written then).
  EXPECT_EQ(blas::parse_gemm_params("local vw=4 cls=32 item=8x8 wg=16x16 sg=4x8 tl=1x1 batch_tile=1x1 db=1 nbc_a=0 "
                                    "nbc_b=1 batch=strided"),
            blas::parse_gemm_params("local vector_width=4 cache_line_bytes=32 item=8x8 wg=16x16 sg=4x8 "
                                    "double_buffer=1 no_bank_conflict_b=1"));
  EXPECT_EQ(blas::parse_gemm_params("naive vw=1 cls=0 item=1x1 wg=8x8 sg=1x1 tl=1x1 batch_tile=1x2 db=0 nbc_a=0 "
                                    "nbc_b=0 batch=strided"),
            blas::parse_gemm_params("naive wg=8x8 batch_tile=1x2"));
  for (const auto& e : file_entries())
    if (e.kind == "former") {
      const blas::gemm_params p = blas::parse_gemm_params("local " + e.name + "=1");
      EXPECT_EQ(p, blas::parse_gemm_params("local " + e.fields[0] + "=1")) << e.name << " -> " << e.fields[0];
    }
}

TEST(GemmParamText, UnreadableWordsAreNamed) {
  const auto message = [](const char* text) {
    try {
      blas::parse_gemm_params(text);
    } catch (const tessera::argument_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(message("tiled item=4x4"), HasSubstr("'tiled': the first word is the family: local, no_local"));
  EXPECT_THAT(message("local item=4"), HasSubstr("ROWSxCOLS"));
  EXPECT_THAT(message("local vector_width=four"), HasSubstr("'vector_width=four': expected an integer"));
  EXPECT_THAT(message("local vector_width="), HasSubstr("expected an integer"));
  EXPECT_THAT(message("local double_buffer=2"), HasSubstr("expected 0 or 1"));
  EXPECT_THAT(message("local batch=sideways"), HasSubstr("expected one of strided, interleaved"));
  EXPECT_THAT(message("local colour=red"), HasSubstr("unknown key (the keys: cache_line_bytes, item,"));
  EXPECT_THAT(message("local item"), HasSubstr("expected key=value"));
  EXPECT_THAT(message(""), HasSubstr("empty"));
}

TEST(GemmKernelDefines, EveryParameterReachesTheKernelUnderItsName) {
  const blas::gemm_params base = blas::parse_gemm_params("local vector_width=4 item=8x8 wg=8x8");
  const std::string before = blas::kernel_defines(base, 4);
  EXPECT_THAT(before, HasSubstr("-DIS_LOCAL=1"));
  EXPECT_THAT(before, HasSubstr("-DIS_NAIVE=0"));
  EXPECT_THAT(before, HasSubstr("-DK_TILE=16"));  // a derived value of gemm_rules.def
  for (const auto& info : blas::gemm_param_table)
    for (int c = 0; c < info.components(); ++c) {
      blas::gemm_params changed = base;
      const std::int64_t value = other_value(info, info.get(base, c));
      info.set(changed, c, value);
      // The parameter's own option changes; others may follow (derived values such as K_TILE).
      const auto changes = added(before, blas::kernel_defines(changed, 4));
      const std::string expected =
          info.kind == blas::gemm_param_kind::choice
              ? fmt::format("-D{}_IS_{}=1", upper(info.name), upper(choice_values(info)[value]))
              : fmt::format("-D{}={}", upper(info.fields[c]), value);
      EXPECT_THAT(changes, ::testing::Contains(expected)) << info.name << " component " << c;
    }
  for (const auto& family : blas::gemm_families) {
    blas::gemm_params other = base;
    other.family = family.family;
    EXPECT_THAT(blas::kernel_defines(other, 4), HasSubstr(fmt::format("-DIS_{}=1", upper(family.name))));
  }
}

TEST(GemmChecks, EachParameterHasItsAllowedAndAppliesChecks) {
  // The generated checks: a value outside "allowed" and, in a family a parameter does not
  // apply to, a value other than its unused one, are named <parameter>_allowed / _applies.
  for (const auto& info : blas::gemm_param_table) {
    for (const auto& family : blas::gemm_families) {
      const blas::gemm_params base = blas::parse_gemm_params(family.name);
      if (blas::gemm_param_applies(info.families, family.family)) continue;
      blas::gemm_params changed = base;
      info.set(changed, 0, other_value(info, info.get(base, 0)));
      const auto broken = blas::check_gemm_rules(changed, 4);
      ASSERT_FALSE(broken.empty()) << info.name << " in " << family.name;
      EXPECT_EQ(broken.front().rule, std::string(info.name) + "_applies");
    }
    if (info.allowed.empty()) continue;
    blas::gemm_params bad = blas::parse_gemm_params(blas::gemm_families[0].name);
    std::int64_t value = -1;
    while (blas::gemm_value_allowed(info.allowed, value)) --value;
    info.set(bad, 0, value);
    const auto broken = blas::check_gemm_rules(bad, 4);
    ASSERT_FALSE(broken.empty()) << info.name;
    EXPECT_EQ(broken.front().rule, std::string(info.name) + "_allowed");
  }
}

}  // namespace
