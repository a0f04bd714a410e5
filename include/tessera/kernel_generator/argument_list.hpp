#pragma once
// The values of a generated kernel's parameters, gathered by the same traversal that
// declared them (kernel_context), so the order always matches.
#include <cstddef>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <tessera/kernel_generator/shape.hpp>
#include <tessera/runtime/kernel.hpp>
#include <tessera/runtime/matrix.hpp>
#include <tessera/runtime/opencl.hpp>

namespace tessera::kernel_generator {

class argument_list {
 public:
  template <typename T>
  void matrix(const void* /*node*/, const runtime::matrix<T>& m, bool /*written*/) {
    if (!seen_.insert(&m).second) return;  // parameters are shared, as kernel_context declares them
    arguments_.emplace_back(m.buffer());  // null for an empty matrix: OpenCL accepts a null buffer
    arguments_.emplace_back(to_kernel_int(m.rows(), "matrix rows"));
    arguments_.emplace_back(static_cast<int>(m.view()));
  }
  template <typename T>
  void scalar(const void* node, const T& value) {
    if (!seen_.insert(node).second) return;  // a node reached twice (a named expression) has one parameter
    arguments_.emplace_back(value);
  }
  void integer(const void* node, std::string_view role, index_t value) {
    if (node != nullptr && !seen_integers_.emplace(node, std::string(role)).second) return;
    arguments_.emplace_back(to_kernel_int(value, role));
  }

  /// The arguments in parameter order, for runtime::kernel::launch.
  std::span<const runtime::kernel_argument> arguments() const noexcept { return arguments_; }
  std::size_t size() const noexcept { return arguments_.size(); }

 private:
  std::vector<runtime::kernel_argument> arguments_;
  std::set<const void*> seen_;
  std::set<std::pair<const void*, std::string>> seen_integers_;
};

/// Records the matrices an assignment touches, in parameter order: their identities give the
/// aliasing pattern that keys the kernel cache, and their contexts are checked against the
/// target's.
class matrix_recorder {
 public:
  template <typename T>
  void matrix(const void* /*node*/, const runtime::matrix<T>& m, bool /*written*/) {
    matrices_.push_back(&m);
    masked_.push_back(m.view() != runtime::matrix_view::entire);
    contexts_.push_back(&m.ctx());
    rows_.push_back(m.rows());
  }
  template <typename T>
  void scalar(const void*, const T&) {}
  void integer(const void*, std::string_view, index_t) {}

  /// What the generated code depends on besides the types: for each matrix, the position of
  /// the first one that is the same object, and whether its view is not entire.
  std::vector<int> aliasing_pattern() const;
  const std::vector<const runtime::context*>& contexts() const noexcept { return contexts_; }
  bool empty() const noexcept { return matrices_.empty(); }
  /// Whether every matrix's rows are a multiple of rows_per_vector, or one (a row vector is
  /// never read at a vector's rows): the elementwise skeleton's column_vectors split.
  bool rows_in_vectors(index_t rows_per_vector) const;
  /// Whether every matrix has one row (none is a block of a taller one), or none (a target not
  /// yet given the result's shape): the elementwise skeleton's one_row_vectors split (whose
  /// kernel tests each matrix's rows again).
  bool one_row_each() const;

 private:
  std::vector<const void*> matrices_;
  std::vector<bool> masked_;
  std::vector<const runtime::context*> contexts_;
  std::vector<index_t> rows_;
};

/// The values an expression's parameters take, in parameter order: matrices by identity (and
/// view), numbers by value. Two nodes of one type whose values are equal compute the same
/// elements (the online maximum-and-sum rule of reductions.hpp relies on it).
class parameter_values {
 public:
  template <typename T>
  void matrix(const void* /*node*/, const runtime::matrix<T>& m, bool /*written*/) {
    values_.push_back({&m, static_cast<double>(m.view())});
  }
  template <typename T>
  void scalar(const void*, const T& value) {
    values_.push_back({nullptr, static_cast<double>(value)});  // NaN differs from itself: never equal
  }
  void integer(const void*, std::string_view, index_t value) {
    values_.push_back({nullptr, static_cast<double>(value)});
  }
  friend bool operator==(const parameter_values&, const parameter_values&) = default;

 private:
  struct value {
    const void* matrix;
    double number;
    friend bool operator==(const value&, const value&) = default;
  };
  std::vector<value> values_;
};

}  // namespace tessera::kernel_generator
