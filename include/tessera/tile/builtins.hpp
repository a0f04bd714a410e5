#pragma once
// The elementwise functions of Tile. To add one, add one line to the table in
// src/tile/builtins.cpp: its name, its arity, its OpenCL C and its host definition.
#include <cstddef>
#include <span>
#include <string_view>

namespace tessera::tile {

struct builtin_function {
  std::string_view name;
  std::size_t arity;
  /// OpenCL C with {a}, {b} for the arguments and {T} for the element type.
  std::string_view opencl;
  /// The same function on the host (the reference interpreter); unused arguments are 0.
  double (*host)(double a, double b);
};

/// Every builtin, in the order of the table.
std::span<const builtin_function> builtin_functions();

/// The builtin named name, or nullptr.
const builtin_function* find_builtin(std::string_view name);

}  // namespace tessera::tile
