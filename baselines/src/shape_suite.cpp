#include <tessera/baselines/shape_suite.hpp>

#include <tessera/runtime/atomic_file.hpp>
#include <tessera/runtime/error.hpp>

#include <cmath>
#include <limits>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace tessera::baselines {

namespace {

using json = nlohmann::json;

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw argument_error(fmt::format("{}: {}", where, what));
}

std::int64_t size_of(const json& shape, const char* key, bool required, std::int64_t fallback,
                     const std::string& where) {
  if (!shape.contains(key)) {
    if (required) fail(where, fmt::format("missing key '{}'", key));
    return fallback;
  }
  const json& v = shape[key];
  constexpr std::int64_t int_max = std::numeric_limits<int>::max();
  if (!v.is_number_integer() || v.get<std::int64_t>() < 1 || v.get<std::int64_t>() > int_max)
    fail(fmt::format("{}.{}", where, key), fmt::format("expected a whole number from 1 to {}, got {}", int_max, v.dump()));
  return v.get<std::int64_t>();
}

std::vector<std::string> transposes_of(const json& shape, const std::string& where) {
  if (!shape.contains("transposes")) fail(where, "missing key 'transposes' (nn, nt, tn, tt, a list of them, or \"all\")");
  const json& v = shape["transposes"];
  const std::set<std::string> known{"nn", "nt", "tn", "tt"};
  std::vector<std::string> out;
  if (v.is_string() && v.get<std::string>() == "all") return {"nn", "nt", "tn", "tt"};
  const json list = v.is_array() ? v : json::array({v});
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_string() || !known.count(list[i].get<std::string>()))
      fail(fmt::format("{}.transposes{}", where, v.is_array() ? fmt::format("[{}]", i) : ""),
           fmt::format("expected nn, nt, tn, tt (or \"all\"), got {}", list[i].dump()));
    out.push_back(list[i].get<std::string>());
  }
  if (out.empty()) fail(fmt::format("{}.transposes", where), "an empty list");
  return out;
}

}  // namespace

std::string suite_shape::label() const {
  return fmt::format("{}x{}x{} {}{}", m, n, k, transposes(), batch > 1 ? fmt::format(", batch {}", batch) : "");
}

std::vector<suite_shape> parse_shape_suite(const std::string& text, const std::string& path) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    // nlohmann names the byte; the line and column are what an editor needs.
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n') ++line, column = 1;
      else ++column;
    }
    fail(fmt::format("{}:{}:{}", path, line, column), fmt::format("malformed JSON: {}", e.what()));
  }
  std::string list_where = "$";
  if (doc.is_object()) {
    for (const auto& [key, value] : doc.items())
      if (key != "description" && key != "shapes") fail(fmt::format("{}: $.{}", path, key), "unknown key (description, shapes)");
    if (!doc.contains("shapes")) fail(fmt::format("{}: $", path), "missing key 'shapes'");
    doc = doc["shapes"];
    list_where = "$.shapes";
  }
  if (!doc.is_array()) fail(fmt::format("{}: {}", path, list_where), "expected a list of shapes");
  if (doc.empty()) fail(fmt::format("{}: {}", path, list_where), "the suite has no shapes");
  std::vector<suite_shape> out;
  for (std::size_t i = 0; i < doc.size(); ++i) {
    const std::string where = fmt::format("{}: {}[{}]", path, list_where, i);
    const json& s = doc[i];
    if (!s.is_object()) fail(where, "expected an object {m, n, k, batch, transposes, weight}");
    for (const auto& [key, value] : s.items())
      if (key != "m" && key != "n" && key != "k" && key != "batch" && key != "transposes" && key != "weight" &&
          key != "note")
        fail(fmt::format("{}.{}", where, key), "unknown key (m, n, k, batch, transposes, weight, note)");
    suite_shape shape;
    shape.m = size_of(s, "m", true, 1, where);
    shape.n = size_of(s, "n", true, 1, where);
    shape.k = size_of(s, "k", true, 1, where);
    shape.batch = size_of(s, "batch", false, 1, where);
    if (s.contains("weight")) {
      const json& w = s["weight"];
      if (!w.is_number() || !(w.get<double>() > 0) || !std::isfinite(w.get<double>()))
        fail(where + ".weight", fmt::format("expected a number above 0, got {}", w.dump()));
      shape.weight = w.get<double>();
    }
    shape.where = where;
    for (const auto& t : transposes_of(s, where)) {
      shape.trans_a = t[0] == 't', shape.trans_b = t[1] == 't';
      out.push_back(shape);
    }
  }
  return out;
}

std::vector<suite_shape> read_shape_suite(const std::filesystem::path& path) {
  const auto text = runtime::read_whole_file(path);
  if (!text) fail(path.string(), "cannot be read (no such file, or not readable)");
  return parse_shape_suite(*text, path.string());
}

}  // namespace tessera::baselines
