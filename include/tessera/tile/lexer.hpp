#pragma once
// Tokens of Tile source. `#` starts a comment to the end of the line (an extension of the seed).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <tessera/tile/error.hpp>

namespace tessera::tile {

enum class token_kind {
  identifier, integer, floating, keyword_function,
  left_paren, right_paren, left_bracket, right_bracket, left_brace, right_brace,
  comma, semicolon, colon, question, arrow,
  assign, equal, not_equal, less, greater, less_equal, greater_equal,
  plus, minus, star, slash,
  end_of_input,
};

/// How a token kind reads in messages ("';'", "identifier").
std::string_view describe(token_kind kind);

struct token {
  token_kind kind = token_kind::end_of_input;
  std::string text;  // the source text of the token
  source_position position;
  std::int64_t integer = 0;  // for integer
  double floating = 0;       // for floating (and integer)
};

/// The tokens of source, ending with end_of_input. Throws syntax_error for a character that
/// starts no token or a malformed or too large number.
std::vector<token> tokenize(std::string_view source);

}  // namespace tessera::tile
