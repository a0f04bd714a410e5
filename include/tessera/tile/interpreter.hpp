#pragma once
// The reference interpreter: Tile's semantics on the host, written for obviousness rather
// than speed. It is the oracle of every device test.
//
// A contraction visits every valid index point exactly as the seed defines it: integer index
// variables, every tensor index an in-range integer, every constraint 0 <= expr < bound. It
// scans a box that contains all valid points (from a basis of the rows, then tightened by
// interval propagation) and tests every row at every point of the box. Outputs start at zero;
// an element no valid point reaches stays zero (for max, min and product too).
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include <tessera/tile/host_tensor.hpp>
#include <tessera/tile/program.hpp>

namespace tessera::tile {

/// Calls visit(x) for every valid point x (one value per index variable) of space, in
/// lexicographic order of the variables.
void for_each_valid_point(const index_space& space, const std::function<void(std::span<const std::int64_t>)>& visit);

/// Runs p on the host. Throws shape_error like bind_shapes() for shapes the program rejects.
template <typename T>
std::vector<host_tensor<T>> interpret(const program& p, const std::vector<host_tensor<T>>& inputs);

extern template std::vector<host_tensor<float>> interpret(const program&, const std::vector<host_tensor<float>>&);
extern template std::vector<host_tensor<double>> interpret(const program&, const std::vector<host_tensor<double>>&);

}  // namespace tessera::tile
