#pragma once
// Turning what users write into operations: matrices into load_, host numbers into
// scalar_, expressions kept by value (temporaries) or by reference (named expressions).
#include <type_traits>
#include <utility>

#include <tessera/kernel_generator/load.hpp>
#include <tessera/kernel_generator/scalar.hpp>

namespace tessera::kernel_generator {

/// The kernel type of a host number used beside an operand of value type Partner: floating
/// partners take it in their own precision (`2.0 * a` stays float for a float a), integer
/// ones keep a floating number's type, and integers meet integers as int.
template <typename Scalar, typename Partner>
using adapted_scalar_t =
    std::conditional_t<std::is_floating_point_v<Partner>, Partner,
                       std::conditional_t<std::is_floating_point_v<Scalar>, Scalar, int>>;

/// A host number with no operand beside it (`select(c, 1.0, 2.0)`): its own type.
template <typename Scalar>
using standalone_scalar_t = std::conditional_t<std::is_floating_point_v<Scalar>, Scalar, int>;

template <typename T>
  requires expression<T> || device_matrix<T>
decltype(auto) as_operation(T&& x) {
  if constexpr (expression<T>) {
    if constexpr (std::is_lvalue_reference_v<T>) return static_cast<const std::remove_cvref_t<T>&>(x);
    else return std::remove_cvref_t<T>(std::move(x));
  } else if constexpr (std::is_lvalue_reference_v<T>) {
    return load_<T>(x);  // matrix<T>& or const matrix<T>&
  } else {
    return load_<std::remove_cvref_t<T>>(std::move(x));
  }
}

/// x as an operation beside an operand of value type Partner.
template <typename Partner, typename T>
decltype(auto) as_operation_beside(T&& x) {
  if constexpr (host_scalar<T>) {
    using S = adapted_scalar_t<std::remove_cvref_t<T>, Partner>;
    return scalar_<S>(static_cast<S>(x));
  } else {
    return as_operation(std::forward<T>(x));
  }
}

/// x as an operation when nothing beside it decides a host number's type.
template <typename T>
decltype(auto) as_standalone_operation(T&& x) {
  if constexpr (host_scalar<T>) {
    using S = standalone_scalar_t<std::remove_cvref_t<T>>;
    return scalar_<S>(static_cast<S>(x));
  } else {
    return as_operation(std::forward<T>(x));
  }
}

template <typename T>
using as_operation_t = decltype(as_operation(std::declval<T>()));

/// The value type an argument will have as an operation (host numbers: standalone).
template <typename T>
using operand_value_t = value_type_t<decltype(as_standalone_operation(std::declval<T>()))>;

}  // namespace tessera::kernel_generator
