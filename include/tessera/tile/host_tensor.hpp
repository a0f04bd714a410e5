#pragma once
// A tensor in host memory, row-major (C order, as NumPy stores by default): the element at
// (i0, ..., ik) is values[((i0 * s1 + i1) * s2 + i2) ...]. The reference interpreter's type.
#include <cstdint>
#include <vector>

#include <tessera/tile/shapes.hpp>

namespace tessera::tile {

template <typename T>
struct host_tensor {
  shape dims;
  std::vector<T> values;

  host_tensor() = default;
  host_tensor(shape s, std::vector<T> v) : dims(std::move(s)), values(std::move(v)) {}
  explicit host_tensor(shape s) : dims(std::move(s)), values(static_cast<std::size_t>(element_count(dims))) {}

  std::int64_t size() const { return static_cast<std::int64_t>(values.size()); }
};

}  // namespace tessera::tile
