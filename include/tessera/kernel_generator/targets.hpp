#pragma once
// What an assignment writes to: a non-const matrix (as a load_ of it) or a block of one.
#include <type_traits>
#include <utility>

#include <tessera/kernel_generator/as_operation.hpp>
#include <tessera/kernel_generator/load.hpp>

namespace tessera::kernel_generator {

/// What can be assigned to: a non-const matrix, or a block of one.
template <typename T>
concept assignment_target = requires { requires std::remove_cvref_t<T>::assignable; };

template <typename T>
  requires device_matrix<T> || expression<T>
decltype(auto) as_target(T&& target) {
  if constexpr (device_matrix<T>) {
    static_assert(std::is_lvalue_reference_v<T> && !std::is_const_v<std::remove_reference_t<T>>,
                  "only a non-const matrix can be assigned to");
    return load_<std::remove_reference_t<T>&>(target);
  } else {
    return as_operation(std::forward<T>(target));
  }
}
template <typename T>
using as_target_t = decltype(as_target(std::declval<T>()));

/// The element type of the matrix a target writes.
template <typename Target>
using target_value_t = typename std::remove_cvref_t<decltype(std::declval<const Target&>().target_matrix())>::value_type;

}  // namespace tessera::kernel_generator
