#pragma once
// dim<N>: the extents of a launch or an object, dim<2>{rows, cols}.
#include <array>
#include <concepts>
#include <cstddef>
#include <string>
#include <type_traits>

#include <tessera/runtime/error.hpp>

namespace tessera::unified {

template <std::size_t N>
struct dim {
  std::array<std::size_t, N> extents{};

  constexpr dim() = default;
  /// Throws argument_error for a negative extent (a size_t would wrap it to a huge one).
  template <std::integral... I>
    requires(sizeof...(I) == N)
  constexpr dim(I... e) : extents{checked(e)...} {}

  constexpr std::size_t operator[](std::size_t d) const { return extents[d]; }
  friend constexpr bool operator==(const dim&, const dim&) = default;

 private:
  template <std::integral I>
  static constexpr std::size_t checked(I e) {
    if constexpr (std::is_signed_v<I>)
      if (e < 0) throw runtime::argument_error("dim: negative extent " + std::to_string(e));
    return static_cast<std::size_t>(e);
  }
};

}  // namespace tessera::unified
