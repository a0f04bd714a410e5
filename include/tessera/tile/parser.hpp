#pragma once
// A recursive-descent parser for Tile: `function (inputs) -> (outputs) { statements }`.
#include <string_view>

#include <tessera/tile/ast.hpp>

namespace tessera::tile {

/// Expressions nested deeper than this (parentheses, calls, indices, unary operators,
/// conditionals) are refused: a syntax_error, not a stack overflow of the parser.
inline constexpr int max_nesting_depth = 200;

/// A flat chain of binary operators (`A + A + ... + A`) is not nesting, but its syntax tree is
/// as tall as the chain is long and every later walk of the tree recurses along it: trees
/// taller than this are refused too. The bound keeps the walks that recurse along a chain (the
/// checker's, the shape inference's) within an 8 MB stack with room to spare under
/// AddressSanitizer, whose frames are the largest (GCC's overflowed at 2000); the lowering's
/// emitter walks a chain in a loop (clang's overflowed at 1001 when it recursed).
inline constexpr int max_expression_height = 1000;

/// The syntax tree of source. Throws syntax_error with the line and column of the first
/// problem; nothing is checked beyond the grammar (see check()).
ast::function parse(std::string_view source);

}  // namespace tessera::tile
