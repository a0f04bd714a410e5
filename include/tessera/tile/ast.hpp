#pragma once
// The syntax tree of a Tile function, as the parser reads it; names are not resolved yet.
#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include <tessera/tile/error.hpp>
#include <tessera/tile/lexer.hpp>

namespace tessera::tile::ast {

enum class expression_kind {
  number,       // 2, 0.5
  name,         // A, N, i
  unary,        // -x
  binary,       // a + b, a < b, ...  (op holds the operator token)
  conditional,  // c ? t : e
  call,         // sqrt(x)
  indexed,      // A[i, j]: only meaningful inside contractions
};

struct expression {
  expression_kind kind = expression_kind::number;
  source_position position;  // the operator of unary and binary expressions, else the first token
  source_position start;     // the first token of the whole expression
  token_kind op = token_kind::end_of_input;  // unary and binary operators
  std::string name;                          // name, call: the function, indexed: the tensor
  bool is_integer = false;                   // number: written without '.' or exponent
  std::int64_t integer = 0;
  double value = 0;
  std::vector<std::unique_ptr<expression>> operands;  // children, call arguments, indices
  int height = 0;                                      // longest path to a leaf (bounded by the parser)
};
using expression_ptr = std::unique_ptr<expression>;

struct dimension_declaration {
  std::string name;
  source_position position;
};

struct input_declaration {
  std::string name;
  source_position position;
  bool has_dimensions = false;  // `I[...]` (possibly `I[]`) rather than `I`
  std::vector<dimension_declaration> dimensions;
};

struct output_declaration {
  std::string name;
  source_position position;
};

/// `A[i, j + 1]` inside a contraction.
struct tensor_access {
  std::string name;
  source_position position;
  std::vector<expression_ptr> indices;
};

/// `index < bound`, meaning 0 <= index < bound.
struct constraint {
  expression_ptr index;
  expression_ptr bound;
  source_position position;  // of the index expression
};

/// `O[indices : sizes] = agg(A[...] comb B[...]), constraints;`
struct contraction {
  std::string output;
  source_position output_position;
  std::vector<expression_ptr> output_indices;
  std::vector<expression_ptr> output_sizes;
  token_kind aggregation = token_kind::plus;  // plus, star, greater, less, assign
  source_position aggregation_position;
  std::vector<tensor_access> operands;          // one or two
  token_kind combination = token_kind::end_of_input;  // star or plus with two operands
  source_position combination_position;
  std::vector<constraint> constraints;
};

/// `O = expression;`
struct elementwise {
  std::string output;
  source_position output_position;
  expression_ptr value;
};

struct statement {
  source_position position;
  std::variant<contraction, elementwise> body;
};

struct function {
  source_position position;
  std::vector<input_declaration> inputs;
  std::vector<output_declaration> outputs;
  std::vector<statement> statements;
};

}  // namespace tessera::tile::ast
