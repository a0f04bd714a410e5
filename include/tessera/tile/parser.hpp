#pragma once
// A recursive-descent parser for Tile: `function (inputs) -> (outputs) { statements }`.
#include <string_view>

#include <tessera/tile/ast.hpp>

namespace tessera::tile {

/// Expressions nested deeper than this are refused (a syntax_error, not a stack overflow).
inline constexpr int max_nesting_depth = 200;

/// The syntax tree of source. Throws syntax_error with the line and column of the first
/// problem; nothing is checked beyond the grammar (see check()).
ast::function parse(std::string_view source);

}  // namespace tessera::tile
