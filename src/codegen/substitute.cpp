#include <tessera/codegen/substitute.hpp>

#include <cctype>

namespace tessera::codegen {

namespace {

bool is_token(std::string_view text) {
  if (text.empty()) return true;
  if (text.front() == '(') {
    // One parenthesized whole: the parenthesis opened first closes last.
    int depth = 0;
    for (std::size_t k = 0; k < text.size(); ++k) {
      depth += text[k] == '(' ? 1 : text[k] == ')' ? -1 : 0;
      if (depth == 0) return k + 1 == text.size();
    }
    return false;
  }
  for (const char c : text)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.') return false;
  return true;
}

// Whether the placeholder at [begin, end) of pattern is a whole function argument.
bool stands_alone(std::string_view pattern, std::size_t begin, std::size_t end) {
  std::size_t before = begin;
  while (before > 0 && pattern[before - 1] == ' ') --before;
  std::size_t after = end;
  while (after < pattern.size() && pattern[after] == ' ') ++after;
  return before > 0 && (pattern[before - 1] == '(' || pattern[before - 1] == ',') && after < pattern.size() &&
         (pattern[after] == ')' || pattern[after] == ',');
}

}  // namespace

std::string substitute(std::string_view pattern, std::string_view first, std::string_view second) {
  std::string out;
  out.reserve(pattern.size() + 2 * (first.size() + second.size()));
  for (std::size_t k = 0; k < pattern.size(); ++k) {
    if (pattern[k] == '$' && k + 1 < pattern.size() && (pattern[k + 1] == '1' || pattern[k + 1] == '2')) {
      const std::string_view argument = pattern[k + 1] == '1' ? first : second;
      if (is_token(argument) || stands_alone(pattern, k, k + 2)) {
        out += argument;
      } else {
        out += '(';
        out += argument;
        out += ')';
      }
      ++k;
    } else {
      out += pattern[k];
    }
  }
  return out;
}

}  // namespace tessera::codegen
