// Name resolution and the checks that need no shapes.
#include <tessera/tile/parser.hpp>
#include <tessera/tile/program.hpp>

#include <algorithm>
#include <cctype>
#include <map>

#include <fmt/format.h>

namespace tessera::tile {

std::string_view to_string(aggregation agg) {
  switch (agg) {
    case aggregation::sum: return "+";
    case aggregation::product: return "*";
    case aggregation::max: return ">";
    case aggregation::min: return "<";
    case aggregation::assign: return "=";
  }
  return "?";
}

std::string to_string(const source_position& position) { return fmt::format("{}:{}", position.line, position.column); }

error::error(source_position position, std::string message)
    : tessera::error(fmt::format("{}:{}: {}", position.line, position.column, message)),
      position_(position),
      message_(std::move(message)) {}

bool affine_expression::uses_indices() const {
  return std::any_of(coefficients.begin(), coefficients.end(), [](const rational& c) { return !c.is_zero(); });
}

program::program(std::string source, std::shared_ptr<const ast::function> syntax)
    : source_(std::move(source)), syntax_(std::move(syntax)) {}

std::optional<std::size_t> program::find_tensor(std::string_view name) const {
  for (std::size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].name == name) return i;
  return std::nullopt;
}

namespace {

// Tile's own names for functions of codegen's table: the language's min and max are fmin and
// fmax (a NaN argument is ignored).
constexpr std::pair<std::string_view, std::string_view> tile_spellings[] = {{"min", "fmin"}, {"max", "fmax"}};

const codegen::math_function* find_function(std::string_view name) {
  for (const auto& [tile_name, table_name] : tile_spellings)
    if (name == tile_name) return codegen::find_math_function(table_name);
  return codegen::find_math_function(name);
}

bool is_capitalised(std::string_view name) { return !name.empty() && std::isupper(static_cast<unsigned char>(name[0])); }
bool is_lowercase(std::string_view name) { return !name.empty() && std::islower(static_cast<unsigned char>(name[0])); }

/// Row echelon form over the rationals; returns the pivot column of each nonzero row.
std::vector<std::size_t> row_echelon(std::vector<std::vector<rational>>& rows, std::size_t columns) {
  std::vector<std::size_t> pivots;
  std::size_t r = 0;
  for (std::size_t c = 0; c < columns && r < rows.size(); ++c) {
    std::size_t p = r;
    while (p < rows.size() && rows[p][c].is_zero()) ++p;
    if (p == rows.size()) continue;
    std::swap(rows[r], rows[p]);
    const rational pivot = rows[r][c];
    for (auto& v : rows[r]) v = v / pivot;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (i == r || rows[i][c].is_zero()) continue;
      const rational f = rows[i][c];
      for (std::size_t k = 0; k < columns; ++k) rows[i][k] -= f * rows[r][k];
    }
    pivots.push_back(c);
    ++r;
  }
  return pivots;
}

/// A nonzero vector x with rows * x = 0, given that the rank is below columns.
std::vector<rational> null_vector(std::vector<std::vector<rational>> rows, std::size_t columns) {
  const auto pivots = row_echelon(rows, columns);
  std::size_t free = 0;
  while (std::find(pivots.begin(), pivots.end(), free) != pivots.end()) ++free;
  std::vector<rational> x(columns);
  x[free] = 1;
  for (std::size_t r = 0; r < pivots.size(); ++r) x[pivots[r]] = -rows[r][free];
  return x;
}

class checker {
 public:
  checker(std::string source, ast::function syntax)
      : syntax_(std::make_shared<const ast::function>(std::move(syntax))), program_(std::move(source), syntax_) {}

  program run() {
    const ast::function& f = *syntax_;
    for (std::size_t i = 0; i < f.inputs.size(); ++i) declare_input(f.inputs[i], i);
    for (const auto& output : f.outputs) declare_output(output);
    for (std::size_t i = 0; i < f.statements.size(); ++i) check_statement(f.statements[i], i);
    for (std::size_t i = 0; i < f.outputs.size(); ++i) {
      const auto& declared = f.outputs[i];
      if (assigned_.find(declared.name) == assigned_.end())
        throw check_error(declared.position, fmt::format("output '{}' is never assigned", declared.name));
      program_.outputs.push_back(*program_.find_tensor(declared.name));
    }
    return std::move(program_);
  }

 private:
  // ---- names -------------------------------------------------------------------------
  void require_capital(std::string_view name, source_position position, std::string_view what) {
    if (!is_capitalised(name))
      throw check_error(position, fmt::format("{} name '{}' must begin with a capital letter", what, name));
  }

  /// Throws unless name is new; what the name is now becoming goes into the message.
  void claim(const std::string& name, source_position position) {
    const auto it = names_.find(name);
    if (it != names_.end())
      throw check_error(position, fmt::format("name '{}' is already used at {}; Tile names are defined once",
                                              name, to_string(it->second)));
    names_.emplace(name, position);
  }

  void declare_input(const ast::input_declaration& input, std::size_t number) {
    require_capital(input.name, input.position, "tensor");
    claim(input.name, input.position);
    tensor_info t;
    t.name = input.name;
    t.position = input.position;
    t.from = tensor_info::origin::input;
    t.defined_by = number;
    t.declares_dimensions = input.has_dimensions;
    if (input.has_dimensions) t.rank = input.dimensions.size();
    for (const auto& dim : input.dimensions) {
      require_capital(dim.name, dim.position, "dimension");
      const auto known = dimension_ids_.find(dim.name);
      std::size_t id;
      if (known != dimension_ids_.end()) {
        id = known->second;  // repeated: the sizes must agree at call time
      } else {
        claim(dim.name, dim.position);
        id = program_.dimensions.size();
        program_.dimensions.push_back({dim.name, dim.position});
        dimension_ids_.emplace(dim.name, id);
      }
      t.dimensions.push_back(id);
      t.dimension_positions.push_back(dim.position);
    }
    program_.inputs.push_back(program_.tensors.size());
    program_.tensors.push_back(std::move(t));
    assigned_.emplace(input.name, input.position);
  }

  void declare_output(const ast::output_declaration& output) {
    require_capital(output.name, output.position, "tensor");
    if (outputs_.count(output.name) || names_.count(output.name))
      throw check_error(output.position,
                        fmt::format("name '{}' is already used at {}; Tile names are defined once", output.name,
                                    to_string(outputs_.count(output.name) ? outputs_[output.name]
                                                                          : names_[output.name])));
    outputs_.emplace(output.name, output.position);
  }

  /// The tensor a statement assigns: new, capitalised, not an input or a dimension.
  std::size_t define_tensor(const std::string& name, source_position position, tensor_info::origin from,
                            std::size_t statement) {
    require_capital(name, position, "tensor");
    if (const auto it = assigned_.find(name); it != assigned_.end())
      throw check_error(position, fmt::format("tensor '{}' is already defined at {}; Tile tensors are assigned "
                                              "once",
                                              name, to_string(it->second)));
    if (const auto it = names_.find(name); it != names_.end())
      throw check_error(position, fmt::format("name '{}' is already used at {}; Tile names are defined once",
                                              name, to_string(it->second)));
    tensor_info t;
    t.name = name;
    t.position = position;
    t.from = from;
    t.defined_by = statement;
    t.is_output = outputs_.count(name) != 0;
    const std::size_t id = program_.tensors.size();
    program_.tensors.push_back(std::move(t));
    pending_.emplace(name, position);
    return id;
  }

  /// The tensor a statement reads: defined by an input or an earlier statement.
  std::size_t use_tensor(const std::string& name, source_position position) {
    if (is_lowercase(name))
      throw check_error(position, fmt::format("'{}' is used as a tensor, but tensor names begin with a capital "
                                              "letter",
                                              name));
    if (dimension_ids_.count(name))
      throw check_error(position, fmt::format("'{}' is a dimension, not a tensor", name));
    if (!assigned_.count(name)) {
      if (pending_.count(name) || name == current_output_)
        throw check_error(position, fmt::format("tensor '{}' is used in the statement that defines it", name));
      if (outputs_.count(name))
        throw check_error(position, fmt::format("tensor '{}' is used before it is assigned", name));
      throw check_error(position, fmt::format("undefined tensor '{}'", name));
    }
    return *program_.find_tensor(name);
  }

  void finish_statement() {
    for (auto& [name, position] : pending_) assigned_.emplace(name, position);
    pending_.clear();
  }

  [[noreturn]] void undefined_uppercase(const std::string& name, source_position position, std::string_view role) {
    if (assigned_.count(name) || pending_.count(name) || outputs_.count(name))
      throw check_error(position, fmt::format("'{}' is a tensor; {}", name, role));
    throw check_error(position,
                      fmt::format("undefined dimension '{}' (dimensions are declared in the function header; index "
                                  "names begin with a lowercase letter)",
                                  name));
  }

  // ---- statements ---------------------------------------------------------------------
  void check_statement(const ast::statement& s, std::size_t number) {
    if (const auto* c = std::get_if<ast::contraction>(&s.body)) {
      program_.statements.push_back(check_contraction(*c, s.position, number));
    } else {
      program_.statements.push_back(check_elementwise(std::get<ast::elementwise>(s.body), s.position, number));
    }
    finish_statement();
    current_output_.clear();
  }

  // Sizes and constraint bounds: integer expressions of dimensions.
  void check_dimension_expression(const ast::expression& e, std::string_view what) {
    switch (e.kind) {
      case ast::expression_kind::number:
        if (!e.is_integer)
          throw check_error(e.position, fmt::format("{} is an integer expression; found the number '{}'", what,
                                                    e.value));
        return;
      case ast::expression_kind::name:
        if (is_lowercase(e.name))
          throw check_error(e.position, fmt::format("index '{}' cannot appear in a {}; it is an expression of "
                                                    "dimensions",
                                                    e.name, what));
        if (!dimension_ids_.count(e.name))
          undefined_uppercase(e.name, e.position, fmt::format("a {} is an expression of dimensions", what));
        return;
      case ast::expression_kind::unary:
        return check_dimension_expression(*e.operands[0], what);
      case ast::expression_kind::binary:
        if (e.op != token_kind::plus && e.op != token_kind::minus && e.op != token_kind::star &&
            e.op != token_kind::slash)
          throw check_error(e.position, fmt::format("a {} uses + - * / only", what));
        check_dimension_expression(*e.operands[0], what);
        check_dimension_expression(*e.operands[1], what);
        return;
      default:
        throw check_error(e.position, fmt::format("a {} uses dimensions, integers and + - * / only", what));
    }
  }

  void collect_indices(const ast::expression& e, std::vector<std::string>& names) {
    if (e.kind == ast::expression_kind::name && is_lowercase(e.name) &&
        std::find(names.begin(), names.end(), e.name) == names.end())
      names.push_back(e.name);
    for (const auto& operand : e.operands) collect_indices(*operand, names);
  }

  affine_expression to_affine(const ast::expression& e, const std::vector<std::string>& names) {
    affine_expression a;
    a.coefficients.assign(names.size(), rational(0));
    a.position = e.position;
    auto numeric = [](const affine_expression& x) { return !x.uses_indices() && x.dimension_terms.empty(); };
    auto scale = [](affine_expression& x, const rational& f) {
      for (auto& c : x.coefficients) c *= f;
      for (auto& t : x.dimension_terms) t.factor *= f;
      x.constant *= f;
    };
    auto first_index = [&](const affine_expression& x) {
      for (std::size_t v = 0; v < x.coefficients.size(); ++v)
        if (!x.coefficients[v].is_zero()) return names[v];
      return std::string();
    };
    try {
      switch (e.kind) {
        case ast::expression_kind::number:
          if (!e.is_integer)
            throw check_error(e.position, fmt::format("index expressions use integers; found '{}' (write a "
                                                      "fraction as a division, e.g. i / 2)",
                                                      e.value));
          a.constant = e.integer;
          return a;
        case ast::expression_kind::name: {
          if (is_lowercase(e.name)) {
            const auto it = std::find(names.begin(), names.end(), e.name);
            a.coefficients[it - names.begin()] = 1;
          } else if (dimension_ids_.count(e.name)) {
            a.dimension_terms.push_back({rational(1), &e});
          } else {
            undefined_uppercase(e.name, e.position, "index expressions use indices and dimensions");
          }
          return a;
        }
        case ast::expression_kind::unary:
          a = to_affine(*e.operands[0], names);
          scale(a, rational(-1));
          a.position = e.position;
          return a;
        case ast::expression_kind::binary: {
          affine_expression l = to_affine(*e.operands[0], names);
          affine_expression r = to_affine(*e.operands[1], names);
          switch (e.op) {
            case token_kind::minus:
              scale(r, rational(-1));
              [[fallthrough]];
            case token_kind::plus:
              for (std::size_t v = 0; v < names.size(); ++v) a.coefficients[v] = l.coefficients[v] + r.coefficients[v];
              a.dimension_terms = l.dimension_terms;
              a.dimension_terms.insert(a.dimension_terms.end(), r.dimension_terms.begin(), r.dimension_terms.end());
              a.constant = l.constant + r.constant;
              return a;
            case token_kind::star:
              if (l.uses_indices() && r.uses_indices())
                throw check_error(e.position, fmt::format("index expression is not affine: it multiplies '{}' by "
                                                          "'{}'",
                                                          first_index(l), first_index(r)));
              if (numeric(r)) {
                scale(l, r.constant);
                l.position = e.position;
                return l;
              }
              if (numeric(l)) {
                scale(r, l.constant);
                r.position = e.position;
                return r;
              }
              if (l.uses_indices() || r.uses_indices())
                throw check_error(e.position, fmt::format("index '{}' is multiplied by a dimension; coefficients of "
                                                          "indices are numbers",
                                                          first_index(l.uses_indices() ? l : r)));
              a.dimension_terms.push_back({rational(1), &e});
              return a;
            case token_kind::slash:
              if (r.uses_indices())
                throw check_error(e.position,
                                  fmt::format("division by an expression of indices ('{}'); indices may only be "
                                              "divided by numbers",
                                              first_index(r)));
              if (numeric(r)) {
                if (r.constant.is_zero()) throw check_error(e.position, "division by zero");
                scale(l, rational(1) / r.constant);
                l.position = e.position;
                return l;
              }
              if (l.uses_indices())
                throw check_error(e.position,
                                  fmt::format("division of indices by a non-constant: '{}' is divided by an "
                                              "expression of dimensions; indices may only be divided by numbers",
                                              first_index(l)));
              a.dimension_terms.push_back({rational(1), &e});
              return a;
            default:
              throw check_error(e.position, "index expressions use + - * / only; comparisons belong in "
                                            "elementwise statements");
          }
        }
        case ast::expression_kind::call:
          throw check_error(e.position, fmt::format("function '{}' cannot be called in an index expression", e.name));
        case ast::expression_kind::indexed:
          throw check_error(e.position, fmt::format("tensor '{}' cannot be read inside an index expression", e.name));
        case ast::expression_kind::conditional:
          throw check_error(e.position, "'?:' cannot appear in an index expression");
      }
    } catch (const arithmetic_overflow&) {
      throw check_error(e.position, "the numbers of this index expression overflow 64-bit integers");
    }
    return a;
  }

  statement check_contraction(const ast::contraction& c, source_position position, std::size_t number) {
    // Read the right-hand side before the output exists, so that `O[..] = +(O[..])` is an undefined use.
    contraction out;
    out.position = position;
    current_output_ = c.output;
    std::vector<std::string>& names = out.index_names;
    for (const auto& e : c.output_indices) collect_indices(*e, names);
    for (const auto& operand : c.operands)
      for (const auto& e : operand.indices) collect_indices(*e, names);
    for (const auto& k : c.constraints) collect_indices(*k.index, names);

    for (const auto& e : c.output_indices) out.output_indices.push_back(to_affine(*e, names));
    for (const auto& operand : c.operands) {
      tensor_use use;
      use.tensor = use_tensor(operand.name, operand.position);
      use.position = operand.position;
      const auto& info = program_.tensors[use.tensor];
      if (info.rank && *info.rank != operand.indices.size())
        throw check_error(operand.position,
                          fmt::format("rank mismatch: tensor '{}' has {} dimension(s) (declared at {}) but is "
                                      "indexed with {}",
                                      operand.name, *info.rank, to_string(info.position), operand.indices.size()));
      for (const auto& e : operand.indices) use.indices.push_back(to_affine(*e, names));
      out.operands.push_back(std::move(use));
    }
    if (c.output_indices.size() != c.output_sizes.size())
      throw check_error(c.output_position,
                        fmt::format("output '{}' has {} index expression(s) but {} size(s)", c.output,
                                    c.output_indices.size(), c.output_sizes.size()));
    for (const auto& e : c.output_sizes) {
      check_dimension_expression(*e, "size");
      out.output_sizes.push_back(e.get());
    }
    for (const auto& k : c.constraints) {
      check_dimension_expression(*k.bound, "constraint bound");
      out.constraints.push_back({to_affine(*k.index, names), k.bound.get(), k.position});
    }
    switch (c.aggregation) {
      case token_kind::plus: out.agg = aggregation::sum; break;
      case token_kind::star: out.agg = aggregation::product; break;
      case token_kind::greater: out.agg = aggregation::max; break;
      case token_kind::less: out.agg = aggregation::min; break;
      default: out.agg = aggregation::assign; break;
    }
    out.aggregation_position = c.aggregation_position;
    out.comb = c.combination == token_kind::star   ? combination::multiply
               : c.combination == token_kind::plus ? combination::add
                                                   : combination::none;

    check_bounded(out, c);
    if (out.agg == aggregation::assign) check_assignment(out);

    out.output = define_tensor(c.output, c.output_position, tensor_info::origin::contraction, number);
    program_.tensors[out.output].rank = c.output_sizes.size();
    return out;
  }

  // The valid indices form {x : 0 <= A x + b < s}; it is bounded exactly when no nonzero
  // direction keeps every row constant, i.e. when A has full column rank.
  void check_bounded(const contraction& c, const ast::contraction& syntax) {
    std::vector<std::vector<rational>> rows;
    for (const auto& e : c.output_indices) rows.push_back(e.coefficients);
    for (const auto& use : c.operands)
      for (const auto& e : use.indices) rows.push_back(e.coefficients);
    for (const auto& k : c.constraints) rows.push_back(k.index.coefficients);
    const std::size_t n = c.index_names.size();
    try {
      auto echelon = rows;
      if (row_echelon(echelon, n).size() == n) return;
      const auto direction = null_vector(rows, n);
      std::vector<std::string> moving;
      for (std::size_t v = 0; v < n; ++v)
        if (!direction[v].is_zero())
          moving.push_back(fmt::format("{} by {}", c.index_names[v], direction[v].to_string()));
      const std::string& first = c.index_names[std::find_if(direction.begin(), direction.end(), [](const rational& r) {
                                                 return !r.is_zero();
                                               }) - direction.begin()];
      std::string message;
      if (moving.size() == 1)
        message = fmt::format("the set of valid indices is unbounded: no tensor index or constraint limits index "
                              "'{}'",
                              first);
      else
        message = fmt::format("the set of valid indices is unbounded: changing {} together leaves every tensor "
                              "index and constraint unchanged; add a constraint such as '{} < N'",
                              fmt::join(moving, ", "), first);
      throw check_error(syntax.aggregation_position, message);
    } catch (const arithmetic_overflow&) {
      throw check_error(syntax.aggregation_position, "index coefficients of this contraction are too large");
    }
  }

  // Conservative, as the seed allows: `=` is accepted when the output indices determine every
  // index variable (the map from valid indices to output elements is then injective).
  void check_assignment(const contraction& c) {
    std::vector<std::vector<rational>> rows;
    for (const auto& e : c.output_indices) rows.push_back(e.coefficients);
    const std::size_t n = c.index_names.size();
    try {
      if (row_echelon(rows, n).size() == n) return;
      std::vector<std::vector<rational>> original;
      for (const auto& e : c.output_indices) original.push_back(e.coefficients);
      const auto direction = null_vector(original, n);
      std::vector<std::string> free;
      for (std::size_t v = 0; v < n; ++v)
        if (!direction[v].is_zero()) free.push_back(fmt::format("'{}'", c.index_names[v]));
      throw check_error(c.aggregation_position,
                        fmt::format("aggregation '=' may write an element of '{}' more than once: the output indices "
                                    "do not determine {}; use '+', '>' or '<' if each element receives at most one "
                                    "value",
                                    current_output_, fmt::join(free, ", ")));
    } catch (const arithmetic_overflow&) {
      throw check_error(c.aggregation_position, "index coefficients of this contraction are too large");
    }
  }

  statement check_elementwise(const ast::elementwise& e, source_position position, std::size_t number) {
    elementwise out;
    out.position = position;
    current_output_ = e.output;
    std::optional<std::size_t> rank = 0;
    out.value = to_value(*e.value, rank);
    out.output = define_tensor(e.output, e.output_position, tensor_info::origin::elementwise, number);
    program_.tensors[out.output].rank = rank;
    return out;
  }

  value_expression to_value(const ast::expression& e, std::optional<std::size_t>& rank) {
    value_expression v;
    v.position = e.position;
    switch (e.kind) {
      case ast::expression_kind::number:
        v.what = value_expression::kind::literal;
        v.literal = e.value;
        return v;
      case ast::expression_kind::name:
        if (is_lowercase(e.name))
          throw check_error(e.position, fmt::format("'{}' is not a tensor or a dimension: those begin with a capital "
                                                    "letter, and indices exist only in contractions",
                                                    e.name));
        if (const auto d = dimension_ids_.find(e.name); d != dimension_ids_.end()) {
          v.what = value_expression::kind::dimension;
          v.id = d->second;
          return v;
        }
        v.what = value_expression::kind::tensor;
        v.id = use_tensor(e.name, e.position);
        if (rank && program_.tensors[v.id].rank) rank = std::max(*rank, *program_.tensors[v.id].rank);
        else rank.reset();
        return v;
      case ast::expression_kind::unary:
        v.what = value_expression::kind::negate;
        v.operands.push_back(to_value(*e.operands[0], rank));
        return v;
      case ast::expression_kind::binary:
        v.what = value_expression::kind::binary;
        v.op = e.op;
        v.operands.push_back(to_value(*e.operands[0], rank));
        v.operands.push_back(to_value(*e.operands[1], rank));
        return v;
      case ast::expression_kind::conditional:
        v.what = value_expression::kind::select;
        for (const auto& operand : e.operands) v.operands.push_back(to_value(*operand, rank));
        return v;
      case ast::expression_kind::call: {
        v.what = value_expression::kind::call;
        v.function = find_function(e.name);
        if (!v.function) {
          std::vector<std::string_view> known;
          for (const auto& f : codegen::math_functions()) known.push_back(f.name);
          for (const auto& [tile_name, table_name] : tile_spellings) known.push_back(tile_name);
          throw check_error(e.position, fmt::format("unknown function '{}' (known: {})", e.name, fmt::join(known, ", ")));
        }
        if (e.operands.size() != v.function->arity)
          throw check_error(e.position, fmt::format("function '{}' takes {} argument(s), given {}", e.name,
                                                    v.function->arity, e.operands.size()));
        for (const auto& operand : e.operands) v.operands.push_back(to_value(*operand, rank));
        return v;
      }
      case ast::expression_kind::indexed:
        throw check_error(e.position, fmt::format("elementwise statements do not index tensors: '{}[...]' belongs in "
                                                  "a contraction such as O[i: N] = +({}[i])",
                                                  e.name, e.name));
    }
    return v;
  }

  std::shared_ptr<const ast::function> syntax_;
  program program_;
  std::map<std::string, source_position> names_;     // tensors and dimensions of the header
  std::map<std::string, source_position> outputs_;   // declared outputs
  std::map<std::string, source_position> assigned_;  // tensors defined so far
  std::map<std::string, source_position> pending_;   // defined by the statement being checked
  std::map<std::string, std::size_t> dimension_ids_;
  std::string current_output_;
};

}  // namespace

program check(std::string source, ast::function syntax) { return checker(std::move(source), std::move(syntax)).run(); }

program check(std::string_view source) { return check(std::string(source), parse(source)); }

}  // namespace tessera::tile
