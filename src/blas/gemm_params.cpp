// The text form and kernel options of a configuration, generated from gemm_params.def.
#include <tessera/blas/gemm_config.hpp>
#include <tessera/runtime/error.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>

#include <fmt/format.h>

namespace tessera::blas {

namespace {

struct former_key {
  std::string_view key, name;
};
constexpr former_key former_keys[] = {
#define TESSERA_GEMM_FORMER_KEY(key, name) {#key, #name},
#include <tessera/blas/gemm_params.def>
    {"", ""},  // so that the table may list none
};

// A choice's value names: "strided, interleaved" -> the index-th.
std::string_view choice_value(std::string_view values, std::int64_t index) {
  for (std::int64_t i = 0;; ++i) {
    const std::size_t comma = values.find(',');
    std::string_view word = values.substr(0, comma);
    while (!word.empty() && word.front() == ' ') word.remove_prefix(1);
    while (!word.empty() && word.back() == ' ') word.remove_suffix(1);
    if (i == index) return word;
    if (comma == std::string_view::npos) return "unknown";
    values.remove_prefix(comma + 1);
  }
}

std::string value_text(const gemm_param_info& info, const gemm_params& p) {
  switch (info.kind) {
    case gemm_param_kind::pair: return fmt::format("{}x{}", info.get(p, 0), info.get(p, 1));
    case gemm_param_kind::choice: return std::string(choice_value(info.values, info.get(p, 0)));
    case gemm_param_kind::integer:
    case gemm_param_kind::boolean: break;
  }
  return std::to_string(info.get(p, 0));
}

bool holds_unused(const gemm_param_info& info, const gemm_params& p) {
  for (int c = 0; c < info.components(); ++c)
    if (info.get(p, c) != info.unused[c]) return false;
  return true;
}

std::string valid_keys() {
  std::string keys;
  for (const auto& info : gemm_param_table) keys += fmt::format("{}{}", keys.empty() ? "" : ", ", info.name);
  return keys;
}

std::string family_names() {
  std::string names;
  for (const auto& f : gemm_families) names += fmt::format("{}{}", names.empty() ? "" : ", ", f.name);
  return names;
}

[[noreturn]] void bad_word(std::string_view text, std::string_view word, std::string_view why) {
  throw argument_error(fmt::format("gemm configuration '{}': cannot read '{}': {}", text, word, why));
}

std::int64_t read_int(std::string_view text, std::string_view word, std::string_view value) {
  int out = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), out);
  if (ec != std::errc() || end != value.data() + value.size() || value.empty())
    bad_word(text, word, "expected an integer");
  return out;
}

void read_value(const gemm_param_info& info, gemm_params& p, std::string_view text, std::string_view word,
                std::string_view value) {
  switch (info.kind) {
    case gemm_param_kind::integer: info.set(p, 0, read_int(text, word, value)); return;
    case gemm_param_kind::boolean:
      if (value == "1" || value == "true") return info.set(p, 0, 1);
      if (value == "0" || value == "false") return info.set(p, 0, 0);
      bad_word(text, word, "expected 0 or 1");
    case gemm_param_kind::pair: {
      const auto x = value.find('x');
      if (x == std::string_view::npos) bad_word(text, word, "expected ROWSxCOLS");
      info.set(p, 0, read_int(text, word, value.substr(0, x)));
      info.set(p, 1, read_int(text, word, value.substr(x + 1)));
      return;
    }
    case gemm_param_kind::choice:
      for (std::int64_t i = 0; choice_value(info.values, i) != "unknown"; ++i)
        if (choice_value(info.values, i) == value) return info.set(p, 0, i);
      bad_word(text, word, fmt::format("expected one of {}", info.values));
  }
}

const gemm_param_info* find_param(std::string_view key) {
  for (const auto& f : former_keys)
    if (!f.key.empty() && f.key == key) key = f.name;
  for (const auto& info : gemm_param_table)
    if (info.name == key) return &info;
  return nullptr;
}

}  // namespace

std::string to_string(const gemm_params& p) {
  std::string out(to_string(p.family));
  for (const auto& info : gemm_param_table)
    if (gemm_param_applies(info.families, p.family) || !holds_unused(info, p))
      out += fmt::format(" {}={}", info.name, value_text(info, p));
  return out;
}

gemm_params parse_gemm_params(std::string_view text) {
  gemm_params p;
  std::size_t pos = 0;
  bool first = true;
  while (pos < text.size()) {
    while (pos < text.size() && text[pos] == ' ') ++pos;
    if (pos >= text.size()) break;
    std::size_t end = text.find(' ', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view word = text.substr(pos, end - pos);
    pos = end;
    if (first) {
      first = false;
      const auto* family = std::find_if(std::begin(gemm_families), std::end(gemm_families),
                                        [&](const gemm_family_info& f) { return f.name == word; });
      if (family == std::end(gemm_families))
        bad_word(text, word, fmt::format("the first word is the family: {}", family_names()));
      p.family = family->family;
      // A parameter that does not apply holds its unused value, so "naive wg=16x16" is complete.
      for (const auto& info : gemm_param_table)
        if (!gemm_param_applies(info.families, p.family))
          for (int c = 0; c < info.components(); ++c) info.set(p, c, info.unused[c]);
      continue;
    }
    const auto eq = word.find('=');
    if (eq == std::string_view::npos) bad_word(text, word, "expected key=value");
    const gemm_param_info* info = find_param(word.substr(0, eq));
    if (info == nullptr) bad_word(text, word, fmt::format("unknown key (the keys: {})", valid_keys()));
    read_value(*info, p, text, word, word.substr(eq + 1));
  }
  if (first) throw argument_error(fmt::format("gemm configuration is empty: expected a family ({})", family_names()));
  return p;
}

std::string kernel_defines(const gemm_params& params, int element_bytes) {
  const gemm_rule_values v = derive(params, element_bytes);
  std::string out;
  const auto define = [&out](std::string_view name, std::int64_t value) {
    out += out.empty() ? "-D" : " -D";
    for (const char c : name) out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    out += fmt::format("={}", value);
  };
#define TESSERA_GEMM_BOUND(input, value) define(#input, v.input);
#include <tessera/blas/detail/gemm_bound_inputs.inc>
#undef TESSERA_GEMM_BOUND
#define TESSERA_GEMM_INPUT(name, meaning)
#define TESSERA_GEMM_DERIVED(name, expression) define(#name, v.name);
#define TESSERA_GEMM_RULE(name, expression, message)
#include <tessera/blas/gemm_rules.def>
#undef TESSERA_GEMM_INPUT
#undef TESSERA_GEMM_DERIVED
#undef TESSERA_GEMM_RULE
  return out;
}

}  // namespace tessera::blas
