#pragma once
// A checked Tile function: names resolved, index expressions in affine form, ranks known
// where the header declares them. Shapes come later, at call time (see shapes.hpp).
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <tessera/tile/ast.hpp>
#include <tessera/codegen/math_functions.hpp>
#include <tessera/tile/error.hpp>
#include <tessera/tile/rational.hpp>

namespace tessera::tile {

enum class aggregation { sum, product, max, min, assign };
enum class combination { none, multiply, add };

/// "+", "*", ">", "<", "=".
std::string_view to_string(aggregation agg);

/// An index expression: sum of coefficients[v] * index v, plus sum of factor * (an expression
/// of dimensions and numbers, evaluated exactly at call time), plus constant. Coefficients are
/// rational (`i / 2`); an index expression is valid only where its value is an integer.
struct affine_expression {
  struct dimension_term {
    rational factor;
    const ast::expression* value;  // index-free: numbers and dimensions only
  };
  std::vector<rational> coefficients;  // one per index variable of the contraction
  std::vector<dimension_term> dimension_terms;
  rational constant;
  source_position position;

  bool uses_indices() const;
};

/// A tensor read inside a contraction: `A[i, j + 1]`.
struct tensor_use {
  std::size_t tensor;
  source_position position;
  std::vector<affine_expression> indices;
};

/// `index < bound`: 0 <= index < bound, bound an integer expression of dimensions.
struct index_constraint {
  affine_expression index;
  const ast::expression* bound;
  source_position position;
};

struct contraction {
  std::size_t output;
  source_position position;
  std::vector<std::string> index_names;  // in order of first appearance
  std::vector<affine_expression> output_indices;
  std::vector<const ast::expression*> output_sizes;  // integer expressions of dimensions
  aggregation agg = aggregation::sum;
  source_position aggregation_position;
  combination comb = combination::none;
  std::vector<tensor_use> operands;  // one or two
  std::vector<index_constraint> constraints;
};

/// An elementwise expression with resolved names.
struct value_expression {
  enum class kind { literal, tensor, dimension, negate, binary, select, call };
  kind what = kind::literal;
  source_position position;
  double literal = 0;
  std::size_t id = 0;                        // tensor or dimension
  token_kind op = token_kind::end_of_input;  // binary: + - * / == != < > <= >=
  const codegen::math_function* function = nullptr;  // call: a function of codegen's table
  std::vector<value_expression> operands;
};

struct elementwise {
  std::size_t output;
  source_position position;
  value_expression value;
};

using statement = std::variant<contraction, elementwise>;

struct tensor_info {
  enum class origin { input, contraction, elementwise };
  std::string name;
  source_position position;  // where it is declared or first assigned
  origin from = origin::input;
  std::size_t defined_by = 0;           // input number, or statement number
  std::optional<std::size_t> rank;      // where known without shapes
  bool declares_dimensions = false;     // inputs: `A[M, N]` rather than `A`
  std::vector<std::size_t> dimensions;  // inputs that declare dimensions: dimension ids per axis
  std::vector<source_position> dimension_positions;
  bool is_output = false;
};

struct dimension_info {
  std::string name;
  source_position position;  // first declaration
};

/// A checked function. It owns its syntax tree, which the affine forms point into.
class program {
 public:
  program(std::string source, std::shared_ptr<const ast::function> syntax);

  const std::string& source() const noexcept { return source_; }
  const ast::function& syntax() const noexcept { return *syntax_; }

  std::vector<tensor_info> tensors;
  std::vector<dimension_info> dimensions;
  std::vector<std::size_t> inputs;   // tensor ids, in header order
  std::vector<std::size_t> outputs;  // tensor ids, in header order
  std::vector<statement> statements;

  /// The tensor named name, if any.
  std::optional<std::size_t> find_tensor(std::string_view name) const;

 private:
  std::string source_;
  std::shared_ptr<const ast::function> syntax_;
};

/// Resolves names and checks the rules that need no shapes. Throws check_error with the line
/// and column of the offending name or expression.
program check(std::string source, ast::function syntax);

/// parse() then check().
program check(std::string_view source);

}  // namespace tessera::tile
