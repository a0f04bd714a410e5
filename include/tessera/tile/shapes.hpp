#pragma once
// Call-time binding: the input shapes fix the dimensions, every tensor's shape and, per
// contraction, the exact system of rows that defines its valid indices.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <tessera/tile/program.hpp>

namespace tessera::tile {

/// Sizes of a tensor's axes, outermost first (row-major: the last axis is contiguous).
using shape = std::vector<std::int64_t>;

/// "(3, 4)"; "()" for a scalar.
std::string to_string(const shape& s);
/// The number of elements; throws arithmetic_overflow past 2^63.
std::int64_t element_count(const shape& s);
/// Row-major strides, in elements.
std::vector<std::int64_t> row_major_strides(const shape& s);

/// One row of a contraction's index space: value = coefficients . x + constant; a valid x has
/// 0 <= value < bound, and an integer value where integral (tensor indices must be integers;
/// constraints need not be).
struct index_row {
  std::vector<rational> coefficients;
  rational constant;
  std::int64_t bound = 0;
  bool integral = true;
};

/// The valid indices of a contraction: integer points satisfying every row.
struct index_space {
  std::size_t variables = 0;
  std::vector<index_row> output_rows;                // one per output axis
  std::vector<std::vector<index_row>> operand_rows;  // one list per operand, one row per axis
  std::vector<index_row> constraint_rows;

  /// Output rows, then operand rows, then constraint rows.
  std::vector<const index_row*> all_rows() const;
};

struct binding {
  std::vector<std::int64_t> dimensions;         // per dimension id
  std::vector<shape> shapes;                    // per tensor id
  std::vector<std::optional<index_space>> spaces;  // per statement; set for contractions
};

/// Binds a program to its input shapes (in header order). Throws shape_error naming the
/// place in the source and the sizes involved when they contradict the program.
binding bind_shapes(const program& p, std::span<const shape> input_shapes);

/// An integer expression of dimensions (sizes, bounds); `/` truncates toward zero.
std::int64_t evaluate_integer(const ast::expression& e, const program& p, const std::vector<std::int64_t>& dims);

}  // namespace tessera::tile
