#include <tessera/tile/parser.hpp>

#include <fmt/format.h>

namespace tessera::tile {

namespace {

using ast::expression;
using ast::expression_kind;
using ast::expression_ptr;

class parser {
 public:
  explicit parser(std::vector<token> tokens) : tokens_(std::move(tokens)) {}

  ast::function parse_function() {
    ast::function f;
    f.position = current().position;
    expect(token_kind::keyword_function, "a Tile program starts with 'function'");
    expect(token_kind::left_paren, "after 'function'");
    if (!at(token_kind::right_paren)) {
      do f.inputs.push_back(parse_input());
      while (accept(token_kind::comma));
    }
    expect(token_kind::right_paren, "to close the inputs");
    expect(token_kind::arrow, "between the inputs and the outputs");
    expect(token_kind::left_paren, "to open the outputs");
    do {
      const token& name = expect(token_kind::identifier, "an output name");
      f.outputs.push_back({name.text, name.position});
      if (at(token_kind::left_bracket))
        throw syntax_error(current().position,
                           fmt::format("output '{}' takes no dimensions in the header; its shape comes from the "
                                       "statement that assigns it",
                                       name.text));
    } while (accept(token_kind::comma));
    expect(token_kind::right_paren, "to close the outputs");
    expect(token_kind::left_brace, "to open the function body");
    while (!at(token_kind::right_brace)) {
      if (at(token_kind::end_of_input))
        throw syntax_error(current().position, "expected '}' to close the function body, found the end of the input");
      f.statements.push_back(parse_statement());
    }
    expect(token_kind::right_brace, "to close the function body");
    if (!at(token_kind::end_of_input))
      throw syntax_error(current().position,
                         fmt::format("unexpected {} after the end of the function", describe_current()));
    return f;
  }

 private:
  const token& current() const { return tokens_[index_]; }
  const token& peek(std::size_t ahead) const {
    return tokens_[std::min(index_ + ahead, tokens_.size() - 1)];
  }
  bool at(token_kind kind) const { return current().kind == kind; }
  const token& advance() {
    const token& t = tokens_[index_];
    if (index_ + 1 < tokens_.size()) ++index_;
    return t;
  }
  bool accept(token_kind kind) {
    if (!at(kind)) return false;
    advance();
    return true;
  }
  std::string describe_current() const {
    const token& t = current();
    if (t.kind == token_kind::end_of_input) return "the end of the input";
    return fmt::format("'{}'", t.text);
  }
  const token& expect(token_kind kind, std::string_view context) {
    if (!at(kind))
      throw syntax_error(current().position,
                         fmt::format("expected {} ({}), found {}", describe(kind), context, describe_current()));
    return advance();
  }

  ast::input_declaration parse_input() {
    const token& name = expect(token_kind::identifier, "an input name");
    ast::input_declaration input{name.text, name.position, false, {}};
    if (accept(token_kind::left_bracket)) {
      input.has_dimensions = true;
      if (!at(token_kind::right_bracket)) {
        do {
          if (at(token_kind::integer))
            throw syntax_error(current().position,
                               "input dimensions are names (e.g. N), not numbers; a size is given by the input");
          const token& dim = expect(token_kind::identifier, "a dimension name");
          input.dimensions.push_back({dim.text, dim.position});
        } while (accept(token_kind::comma));
      }
      expect(token_kind::right_bracket, "to close the dimensions");
    }
    return input;
  }

  ast::statement parse_statement() {
    ast::statement s;
    s.position = current().position;
    const token& name = expect(token_kind::identifier, "a statement starts with the name it assigns");
    if (at(token_kind::left_bracket)) {
      s.body = parse_contraction(name);
    } else if (accept(token_kind::assign)) {
      ast::elementwise e{name.text, name.position, parse_expression()};
      s.body = std::move(e);
    } else {
      throw syntax_error(current().position,
                         fmt::format("expected '=' or '[' after '{}', found {}", name.text, describe_current()));
    }
    expect(token_kind::semicolon, "statements end with ';'");
    return s;
  }

  ast::contraction parse_contraction(const token& name) {
    ast::contraction c;
    c.output = name.text;
    c.output_position = name.position;
    expect(token_kind::left_bracket, "to open the output indices");
    if (!at(token_kind::right_bracket)) {
      if (!at(token_kind::colon)) {
        do c.output_indices.push_back(parse_additive());
        while (accept(token_kind::comma));
      }
      if (!at(token_kind::colon))
        throw syntax_error(current().position,
                           fmt::format("expected ':' and the output sizes after the indices of '{}' "
                                       "(e.g. {}[i, j: M, N]), found {}",
                                       name.text, name.text, describe_current()));
      advance();
      do c.output_sizes.push_back(parse_additive());
      while (accept(token_kind::comma));
    }
    expect(token_kind::right_bracket, "to close the output indices and sizes");
    // `O[i: N] ==(I[i])` lexes its `= =` as one '=='; split it back.
    if (at(token_kind::equal)) {
      c.aggregation = token_kind::assign;
      c.aggregation_position = current().position;
      ++c.aggregation_position.column;
      advance();
    } else {
      expect(token_kind::assign, "after the output of a contraction");
      const token& agg = current();
      switch (agg.kind) {
        case token_kind::plus:
        case token_kind::star:
        case token_kind::greater:
        case token_kind::less:
        case token_kind::assign: break;
        default:
          throw syntax_error(agg.position,
                             fmt::format("expected an aggregation '+', '*', '>', '<' or '=' before '(', found {}",
                                         describe_current()));
      }
      c.aggregation = agg.kind;
      c.aggregation_position = agg.position;
      advance();
    }
    expect(token_kind::left_paren, "after the aggregation");
    c.operands.push_back(parse_access());
    if (at(token_kind::star) || at(token_kind::plus)) {
      c.combination = current().kind;
      c.combination_position = current().position;
      advance();
      c.operands.push_back(parse_access());
    }
    if (!at(token_kind::right_paren))
      throw syntax_error(current().position,
                         fmt::format("expected ')' after the tensors of the contraction, found {}; a contraction "
                                     "combines one tensor, or two with '*' or '+'",
                                     describe_current()));
    advance();
    while (accept(token_kind::comma)) {
      ast::constraint k;
      k.position = current().position;
      k.index = parse_additive();
      if (!at(token_kind::less))
        throw syntax_error(current().position,
                           fmt::format("expected '<' in the constraint (constraints read 'expression < bound'), "
                                       "found {}",
                                       describe_current()));
      advance();
      k.bound = parse_additive();
      c.constraints.push_back(std::move(k));
    }
    return c;
  }

  ast::tensor_access parse_access() {
    const token& name = expect(token_kind::identifier, "a tensor inside the contraction");
    ast::tensor_access access{name.text, name.position, {}};
    if (!at(token_kind::left_bracket))
      throw syntax_error(current().position,
                         fmt::format("tensor '{}' needs its indices inside a contraction (e.g. {}[i], or {}[] for "
                                     "a scalar)",
                                     name.text, name.text, name.text));
    advance();
    if (!at(token_kind::right_bracket)) {
      do access.indices.push_back(parse_additive());
      while (accept(token_kind::comma));
    }
    expect(token_kind::right_bracket, "to close the indices");
    return access;
  }

  // Every recursive path goes through here, so this bounds the recursion depth.
  struct depth_guard {
    explicit depth_guard(parser& p) : p_(p) {
      if (++p_.depth_ > max_nesting_depth)
        throw syntax_error(p_.current().position,
                           fmt::format("expression nested more than {} levels deep", max_nesting_depth));
    }
    ~depth_guard() { --p_.depth_; }
    parser& p_;
  };

  expression_ptr make(expression_kind kind, source_position position) {
    auto e = std::make_unique<expression>();
    e->kind = kind;
    e->position = position;
    e->start = position;
    return e;
  }
  expression_ptr make_binary(token_kind op, source_position position, expression_ptr a, expression_ptr b) {
    auto e = make(expression_kind::binary, position);
    e->op = op;
    e->start = a->start;
    e->operands.push_back(std::move(a));
    e->operands.push_back(std::move(b));
    return limit_height(std::move(e));
  }
  // Long chains (a + a + ... + a) build tall trees without deep recursion here and are not
  // nesting (depth_guard counts that); every later walk of the tree recurses along them, so
  // their height has a bound of its own.
  expression_ptr limit_height(expression_ptr e) {
    for (const auto& operand : e->operands) e->height = std::max(e->height, operand->height + 1);
    if (e->height > max_expression_height)
      throw syntax_error(e->position, fmt::format("expression more than {} operations tall (a chain of that many "
                                                  "operators?): split it into several statements",
                                                  max_expression_height));
    return e;
  }

  expression_ptr parse_expression() {
    depth_guard guard(*this);
    auto condition = parse_equality();
    if (!at(token_kind::question)) return condition;
    const source_position position = current().position;
    advance();
    auto if_true = parse_expression();
    expect(token_kind::colon, "between the branches of '?:'");
    auto if_false = parse_expression();
    auto e = make(expression_kind::conditional, position);
    e->start = condition->start;
    e->operands.push_back(std::move(condition));
    e->operands.push_back(std::move(if_true));
    e->operands.push_back(std::move(if_false));
    return limit_height(std::move(e));
  }

  expression_ptr parse_equality() {
    auto left = parse_relational();
    while (at(token_kind::equal) || at(token_kind::not_equal)) {
      const token& op = advance();
      left = make_binary(op.kind, op.position, std::move(left), parse_relational());
    }
    return left;
  }

  expression_ptr parse_relational() {
    auto left = parse_additive();
    while (at(token_kind::less) || at(token_kind::greater) || at(token_kind::less_equal) ||
           at(token_kind::greater_equal)) {
      const token& op = advance();
      left = make_binary(op.kind, op.position, std::move(left), parse_additive());
    }
    return left;
  }

  expression_ptr parse_additive() {
    auto left = parse_multiplicative();
    while (at(token_kind::plus) || at(token_kind::minus)) {
      const token& op = advance();
      left = make_binary(op.kind, op.position, std::move(left), parse_multiplicative());
    }
    return left;
  }

  expression_ptr parse_multiplicative() {
    auto left = parse_unary();
    while (at(token_kind::star) || at(token_kind::slash)) {
      const token& op = advance();
      left = make_binary(op.kind, op.position, std::move(left), parse_unary());
    }
    return left;
  }

  expression_ptr parse_unary() {
    depth_guard guard(*this);
    if (at(token_kind::minus)) {
      const token& op = advance();
      auto e = make(expression_kind::unary, op.position);
      e->op = token_kind::minus;
      e->operands.push_back(parse_unary());
      return limit_height(std::move(e));
    }
    if (at(token_kind::plus)) {
      advance();
      return parse_unary();
    }
    return parse_primary();
  }

  expression_ptr parse_primary() {
    const token& t = current();
    switch (t.kind) {
      case token_kind::integer:
      case token_kind::floating: {
        advance();
        auto e = make(expression_kind::number, t.position);
        e->is_integer = t.kind == token_kind::integer;
        e->integer = t.integer;
        e->value = t.floating;
        return e;
      }
      case token_kind::identifier: {
        advance();
        if (at(token_kind::left_paren)) {
          auto e = make(expression_kind::call, t.position);
          e->name = t.text;
          advance();
          if (!at(token_kind::right_paren)) {
            do e->operands.push_back(parse_expression());
            while (accept(token_kind::comma));
          }
          expect(token_kind::right_paren, fmt::format("to close the arguments of '{}'", t.text));
          return limit_height(std::move(e));
        }
        if (at(token_kind::left_bracket)) {
          auto e = make(expression_kind::indexed, t.position);
          e->name = t.text;
          advance();
          if (!at(token_kind::right_bracket)) {
            do e->operands.push_back(parse_additive());
            while (accept(token_kind::comma));
          }
          expect(token_kind::right_bracket, "to close the indices");
          return limit_height(std::move(e));
        }
        auto e = make(expression_kind::name, t.position);
        e->name = t.text;
        return e;
      }
      case token_kind::left_paren: {
        advance();
        auto e = parse_expression();
        expect(token_kind::right_paren, "to close the parenthesis");
        return e;
      }
      default:
        throw syntax_error(t.position, fmt::format("expected an expression, found {}", describe_current()));
    }
  }

  std::vector<token> tokens_;
  std::size_t index_ = 0;
  int depth_ = 0;
};

}  // namespace

ast::function parse(std::string_view source) { return parser(tokenize(source)).parse_function(); }

}  // namespace tessera::tile
