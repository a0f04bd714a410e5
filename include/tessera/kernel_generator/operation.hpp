#pragma once
// The CRTP base of every kernel-generator operation (see README.md in this folder).
//
// An operation is a small class holding its arguments (other operations) and knowing how to
//  - generate OpenCL C for its value at element (i, j): emit(), called through generate(),
//    which makes sure each value is computed once per scope;
//  - declare the kernel parameters it needs: own_parameters(visitor), called through
//    visit_parameters(), the one traversal used both to declare parameters and to set them;
//  - evaluate itself on the host at (i, j): host_value(), the tests' oracle;
//  - report its shape (rows(), cols(), any_size for broadcasts), its triangular view and
//    which elements of its arguments it reads (argument_map, for the aliasing analysis).
#include <concepts>
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include <tessera/kernel_generator/access.hpp>
#include <tessera/kernel_generator/kernel_context.hpp>
#include <tessera/kernel_generator/shape.hpp>
#include <tessera/runtime/matrix.hpp>

namespace tessera::kernel_generator {

using runtime::device_scalar;
using runtime::matrix;
using runtime::matrix_view;

/// Base of every operation, for the concepts below.
struct operation_tag {};

template <typename T>
concept expression = std::derived_from<std::remove_cvref_t<T>, operation_tag>;

template <typename T>
struct is_device_matrix : std::false_type {};
template <typename T>
struct is_device_matrix<matrix<T>> : std::true_type {};
template <typename T>
concept device_matrix = is_device_matrix<std::remove_cvref_t<T>>::value;

/// A C++ number used in an expression (`2 * a`): a kernel parameter, broadcast to any shape.
template <typename T>
concept host_scalar = std::is_arithmetic_v<std::remove_cvref_t<T>>;

/// What the operations and functions accept besides host scalars.
template <typename T>
concept operand = expression<T> || device_matrix<T>;

/// The values generated code computes with.
template <typename T>
concept kernel_value = std::same_as<T, float> || std::same_as<T, double> || std::same_as<T, int> ||
                       std::same_as<T, bool>;

/// The value type of an expression or a matrix.
template <typename T>
using value_type_t = typename std::remove_cvref_t<T>::value_type;

/// The type of arithmetic on A and B, as OpenCL C's usual conversions give it (bool and int
/// compute as int).
template <typename A, typename B>
using promoted_t = std::conditional_t<
    std::same_as<A, double> || std::same_as<B, double>, double,
    std::conditional_t<std::same_as<A, float> || std::same_as<B, float>, float, int>>;

/// Math functions compute in floating point: int and bool arguments become float.
template <typename T>
using floating_t = std::conditional_t<std::is_floating_point_v<T>, T, float>;

/// How a kernel is laid out around the expression. Every operation so far is computed per
/// element of the result by one work-item (elementwise); an operation that needs another
/// layout (a matmul producer computing C in register tiles, with the rest of the expression
/// applied in the store step) declares its own, and elementwise operations above it inherit
/// it. assignment.hpp dispatches on the root's skeleton.
enum class kernel_skeleton { elementwise, gemm };

template <typename... Arguments>
constexpr kernel_skeleton skeleton_of_arguments() {
  kernel_skeleton result = kernel_skeleton::elementwise;
  ((result = std::remove_cvref_t<Arguments>::skeleton != kernel_skeleton::elementwise
                 ? std::remove_cvref_t<Arguments>::skeleton
                 : result),
   ...);
  return result;
}

template <typename Derived, typename ValueType, typename... Arguments>
class operation : public operation_tag {
  static_assert(kernel_value<ValueType>, "operations compute float, double, int or bool");

 public:
  using value_type = ValueType;
  /// Whether the kernel needs cl_khr_fp64.
  static constexpr bool uses_fp64 =
      std::same_as<ValueType, double> || (std::remove_cvref_t<Arguments>::uses_fp64 || ...);
  static constexpr kernel_skeleton skeleton = skeleton_of_arguments<Arguments...>();
  /// Whether a reduction is among the nodes (reductions.hpp sets it): assignments of
  /// expressions without one never instantiate the reduction skeleton.
  static constexpr bool has_reductions = (std::remove_cvref_t<Arguments>::has_reductions || ...);

  operation() = default;
  template <typename... A>
    requires(sizeof...(A) == sizeof...(Arguments) && sizeof...(A) > 0)
  explicit operation(A&&... arguments) : arguments_(std::forward<A>(arguments)...) {}

  const Derived& derived() const noexcept { return static_cast<const Derived&>(*this); }
  template <std::size_t N>
  const auto& argument() const noexcept {
    return std::get<N>(arguments_);
  }

  /// The name of a variable (or a parameter, or an index expression) holding this
  /// operation's value at element (i, j); the code computing it is emitted the first time.
  std::string generate(kernel_context& kc, const std::string& i, const std::string& j) const {
    const void* id = derived().identity();
    if (const std::string* known = kc.find(id, i, j)) return *known;
    std::string value = derived().emit(kc, i, j);
    kc.remember(id, i, j, value);
    return value;
  }
  /// What makes two nodes compute the same value (loads override it with the matrix).
  const void* identity() const noexcept { return this; }

  /// Own parameters first, then the arguments', depth first: the one parameter order.
  template <typename Visitor>
  void visit_parameters(Visitor& visitor) const {
    derived().own_parameters(visitor);
    std::apply([&visitor](const auto&... a) { (a.visit_parameters(visitor), ...); }, arguments_);
  }
  template <typename Visitor>
  void own_parameters(Visitor&) const {}

  /// Records the reads of every matrix under this node, with map taking the result's
  /// element to this node's.
  void collect_accesses(access_collector& collector, const access_map& map) const {
    const access_map below = derived().argument_map(map);
    std::apply([&](const auto&... a) { (a.collect_accesses(collector, below), ...); }, arguments_);
  }
  /// The map the arguments see; elementwise operations read their arguments in place.
  access_map argument_map(const access_map& map) const { return map; }

  /// Which part may be non-zero. Entire unless an operation knows better (a view is a
  /// promise that everything outside it is zero, so a wrong one is a wrong result).
  matrix_view view() const { return matrix_view::entire; }

  /// Copies what host_value needs to the host (matrix contents); call before host_value.
  void prepare_host() const {
    std::apply([](const auto&... a) { (a.prepare_host(), ...); }, arguments_);
  }

  /// Evaluates into a new matrix: `matrix<float> d = c * (a + b);`.
  template <device_scalar T>
  operator matrix<T>() const;  // defined in assignment.hpp
  /// Evaluates into target, resizing it: what `m = expression;` calls.
  template <device_scalar T>
  void evaluate_into(matrix<T>& target) const;  // defined in assignment.hpp

 protected:
  std::tuple<Arguments...> arguments_;
};

}  // namespace tessera::kernel_generator
