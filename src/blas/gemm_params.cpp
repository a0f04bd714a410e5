#include <tessera/blas/gemm_config.hpp>
#include <tessera/runtime/error.hpp>

#include <charconv>

#include <fmt/format.h>

namespace tessera::blas {

std::string_view to_string(gemm_family family) {
  switch (family) {
    case gemm_family::naive: return "naive";
    case gemm_family::no_local: return "no_local";
    case gemm_family::no_local_full: return "no_local_full";
    case gemm_family::local: return "local";
  }
  return "unknown";
}

std::string to_string(const gemm_params& p) {
  return fmt::format("{} vw={} cls={} item={}x{} wg={}x{} sg={}x{} tl={}x{} batch_tile={}x{} db={} nbc_a={} nbc_b={} batch={}",
                     to_string(family_of(p)), p.vector_width, p.cache_line_bytes, p.item_rows, p.item_cols,
                     p.wg_rows, p.wg_cols, p.sg_rows, p.sg_cols, p.tl_rows, p.tl_cols, p.item_batch, p.wg_batch,
                     int(p.double_buffer), int(p.no_bank_conflict_a), int(p.no_bank_conflict_b),
                     p.batch == gemm_batch_type::strided ? "strided" : "interleaved");
}

namespace {

[[noreturn]] void bad_word(std::string_view text, std::string_view word, std::string_view why) {
  throw argument_error(fmt::format("gemm configuration '{}': cannot read '{}': {}", text, word, why));
}

int read_int(std::string_view text, std::string_view word, std::string_view value) {
  int out = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), out);
  if (ec != std::errc() || end != value.data() + value.size()) bad_word(text, word, "expected an integer");
  return out;
}

void read_pair(std::string_view text, std::string_view word, std::string_view value, int& first, int& second) {
  const auto x = value.find('x');
  if (x == std::string_view::npos) bad_word(text, word, "expected ROWSxCOLS");
  first = read_int(text, word, value.substr(0, x));
  second = read_int(text, word, value.substr(x + 1));
}

bool read_bool(std::string_view text, std::string_view word, std::string_view value) {
  if (value == "1" || value == "true") return true;
  if (value == "0" || value == "false") return false;
  bad_word(text, word, "expected 0 or 1");
}

}  // namespace

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
      p.algorithm = gemm_algorithm::standard;
      p.vectorization = gemm_vectorization::partial;
      if (word == "naive") {
        p.algorithm = gemm_algorithm::naive;
        p.memory = gemm_memory::no_local;
        p.cache_line_bytes = 0;  // the naive kernel's fixed parts, so "naive wg=16x16" is complete
        p.item_rows = p.item_cols = 1;
      } else if (word == "no_local") {
        p.memory = gemm_memory::no_local;
      } else if (word == "no_local_full") {
        p.memory = gemm_memory::no_local;
        p.vectorization = gemm_vectorization::full;
      } else if (word == "local") {
        p.memory = gemm_memory::local;
      } else {
        bad_word(text, word, "the first word is the family: naive, no_local, no_local_full or local");
      }
      continue;
    }
    const auto eq = word.find('=');
    if (eq == std::string_view::npos) bad_word(text, word, "expected key=value");
    const std::string_view key = word.substr(0, eq), value = word.substr(eq + 1);
    if (key == "vw") p.vector_width = read_int(text, word, value);
    else if (key == "cls") p.cache_line_bytes = read_int(text, word, value);
    else if (key == "item") read_pair(text, word, value, p.item_rows, p.item_cols);
    else if (key == "wg") read_pair(text, word, value, p.wg_rows, p.wg_cols);
    else if (key == "sg") read_pair(text, word, value, p.sg_rows, p.sg_cols);
    else if (key == "tl") read_pair(text, word, value, p.tl_rows, p.tl_cols);
    else if (key == "batch_tile") read_pair(text, word, value, p.item_batch, p.wg_batch);
    else if (key == "db") p.double_buffer = read_bool(text, word, value);
    else if (key == "nbc_a") p.no_bank_conflict_a = read_bool(text, word, value);
    else if (key == "nbc_b") p.no_bank_conflict_b = read_bool(text, word, value);
    else if (key == "batch") {
      if (value == "strided") p.batch = gemm_batch_type::strided;
      else if (value == "interleaved") p.batch = gemm_batch_type::interleaved;
      else bad_word(text, word, "expected strided or interleaved");
    } else {
      bad_word(text, word, "unknown key (vw, cls, item, wg, sg, tl, batch_tile, db, nbc_a, nbc_b, batch)");
    }
  }
  if (first) throw argument_error("gemm configuration is empty: expected a family (naive, no_local, no_local_full, local)");
  return p;
}

}  // namespace tessera::blas
