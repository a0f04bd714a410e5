#include <tessera/tile/lexer.hpp>

#include <cctype>
#include <cerrno>
#include <cstdlib>

#include <fmt/format.h>

namespace tessera::tile {

std::string_view describe(token_kind kind) {
  switch (kind) {
    case token_kind::identifier: return "a name";
    case token_kind::integer: return "an integer";
    case token_kind::floating: return "a number";
    case token_kind::keyword_function: return "'function'";
    case token_kind::left_paren: return "'('";
    case token_kind::right_paren: return "')'";
    case token_kind::left_bracket: return "'['";
    case token_kind::right_bracket: return "']'";
    case token_kind::left_brace: return "'{'";
    case token_kind::right_brace: return "'}'";
    case token_kind::comma: return "','";
    case token_kind::semicolon: return "';'";
    case token_kind::colon: return "':'";
    case token_kind::question: return "'?'";
    case token_kind::arrow: return "'->'";
    case token_kind::assign: return "'='";
    case token_kind::equal: return "'=='";
    case token_kind::not_equal: return "'!='";
    case token_kind::less: return "'<'";
    case token_kind::greater: return "'>'";
    case token_kind::less_equal: return "'<='";
    case token_kind::greater_equal: return "'>='";
    case token_kind::plus: return "'+'";
    case token_kind::minus: return "'-'";
    case token_kind::star: return "'*'";
    case token_kind::slash: return "'/'";
    case token_kind::end_of_input: return "the end of the input";
  }
  return "a token";
}

namespace {

class lexer {
 public:
  explicit lexer(std::string_view source) : source_(source) {}

  std::vector<token> run() {
    std::vector<token> tokens;
    for (;;) {
      skip_space_and_comments();
      token t;
      t.position = position_;
      if (at_end()) {
        t.kind = token_kind::end_of_input;
        tokens.push_back(std::move(t));
        return tokens;
      }
      const std::size_t start = offset_;
      const char c = peek();
      if (std::isalpha(static_cast<unsigned char>(c))) {
        while (!at_end() && (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_')) advance();
        t.text = std::string(source_.substr(start, offset_ - start));
        t.kind = t.text == "function" ? token_kind::keyword_function : token_kind::identifier;
      } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                 (c == '.' && std::isdigit(static_cast<unsigned char>(peek(1))))) {
        lex_number(t);
      } else {
        lex_punctuation(t);
      }
      if (t.text.empty()) t.text = std::string(source_.substr(start, offset_ - start));
      tokens.push_back(std::move(t));
    }
  }

 private:
  bool at_end() const { return offset_ >= source_.size(); }
  char peek(std::size_t ahead = 0) const {
    return offset_ + ahead < source_.size() ? source_[offset_ + ahead] : '\0';
  }
  void advance() {
    if (source_[offset_] == '\n') {
      ++position_.line;
      position_.column = 1;
    } else {
      ++position_.column;
    }
    ++offset_;
  }

  void skip_space_and_comments() {
    while (!at_end()) {
      const char c = peek();
      if (c == '#') {
        while (!at_end() && peek() != '\n') advance();
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        advance();
      } else {
        return;
      }
    }
  }

  void lex_number(token& t) {
    const std::size_t start = offset_;
    bool is_float = false;
    while (std::isdigit(static_cast<unsigned char>(peek()))) advance();
    if (peek() == '.') {
      is_float = true;
      advance();
      while (std::isdigit(static_cast<unsigned char>(peek()))) advance();
    }
    if (peek() == 'e' || peek() == 'E') {
      const std::size_t sign = (peek(1) == '+' || peek(1) == '-') ? 1 : 0;
      if (!std::isdigit(static_cast<unsigned char>(peek(1 + sign))))
        throw syntax_error(t.position, fmt::format("malformed number '{}': the exponent has no digits",
                                                   source_.substr(start, offset_ - start + 1 + sign)));
      is_float = true;
      advance();
      if (sign) advance();
      while (std::isdigit(static_cast<unsigned char>(peek()))) advance();
    }
    if (std::isalpha(static_cast<unsigned char>(peek())) || peek() == '_' || peek() == '.')
      throw syntax_error(t.position, fmt::format("malformed number '{}'", source_.substr(start, offset_ - start + 1)));
    t.text = std::string(source_.substr(start, offset_ - start));
    errno = 0;
    if (is_float) {
      t.kind = token_kind::floating;
      t.floating = std::strtod(t.text.c_str(), nullptr);
      if (errno == ERANGE && std::abs(t.floating) > 1.0)
        throw syntax_error(t.position, fmt::format("number '{}' is too large", t.text));
    } else {
      t.kind = token_kind::integer;
      t.integer = std::strtoll(t.text.c_str(), nullptr, 10);
      if (errno == ERANGE)
        throw syntax_error(t.position, fmt::format("integer '{}' is too large (the limit is 2^63 - 1)", t.text));
      t.floating = static_cast<double>(t.integer);
    }
  }

  void lex_punctuation(token& t) {
    const char c = peek();
    const char next = peek(1);
    auto one = [&](token_kind kind) {
      t.kind = kind;
      advance();
    };
    auto two = [&](token_kind kind) {
      t.kind = kind;
      advance();
      advance();
    };
    switch (c) {
      case '(': return one(token_kind::left_paren);
      case ')': return one(token_kind::right_paren);
      case '[': return one(token_kind::left_bracket);
      case ']': return one(token_kind::right_bracket);
      case '{': return one(token_kind::left_brace);
      case '}': return one(token_kind::right_brace);
      case ',': return one(token_kind::comma);
      case ';': return one(token_kind::semicolon);
      case ':': return one(token_kind::colon);
      case '?': return one(token_kind::question);
      case '+': return one(token_kind::plus);
      case '*': return one(token_kind::star);
      case '/': return one(token_kind::slash);
      case '-': return next == '>' ? two(token_kind::arrow) : one(token_kind::minus);
      case '=': return next == '=' ? two(token_kind::equal) : one(token_kind::assign);
      case '<': return next == '=' ? two(token_kind::less_equal) : one(token_kind::less);
      case '>': return next == '=' ? two(token_kind::greater_equal) : one(token_kind::greater);
      case '!':
        if (next == '=') return two(token_kind::not_equal);
        break;
      default: break;
    }
    const unsigned char u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f)
      throw syntax_error(t.position, fmt::format("unexpected character '{}'", c));
    throw syntax_error(t.position, fmt::format("unexpected byte 0x{:02x}", u));
  }

  std::string_view source_;
  std::size_t offset_ = 0;
  source_position position_;
};

}  // namespace

std::vector<token> tokenize(std::string_view source) { return lexer(source).run(); }

}  // namespace tessera::tile
