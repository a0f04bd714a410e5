#pragma once
// load_: reading a matrix, the leaf of every expression, and the plain assignment target.
// Elements outside the matrix's triangular view read as zero (the view is a kernel argument;
// the test comes from runtime/matrix_view.hpp through masked_by_view, and is only generated
// for matrices whose view is not entire).
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <tessera/kernel_generator/operation.hpp>

namespace tessera::kernel_generator {

/// MatrixRef: matrix<T>& (may also be assigned to), const matrix<T>&, or matrix<T> (an
/// rvalue the expression keeps alive).
template <typename MatrixRef>
class load_ : public operation<load_<MatrixRef>, value_type_t<MatrixRef>> {
  using matrix_type = std::remove_cvref_t<MatrixRef>;
  using T = typename matrix_type::value_type;

 public:
  /// Only a non-const lvalue matrix can be assigned to.
  static constexpr bool assignable =
      std::is_lvalue_reference_v<MatrixRef> && !std::is_const_v<std::remove_reference_t<MatrixRef>>;

  template <typename M>
  explicit load_(M&& m) : matrix_(std::forward<M>(m)) {}

  const matrix_type& matrix() const noexcept { return matrix_; }
  index_t rows() const noexcept { return matrix_.rows(); }
  index_t cols() const noexcept { return matrix_.cols(); }
  matrix_view view() const noexcept { return matrix_.view(); }
  const void* identity() const noexcept { return &matrix_; }

  template <typename Visitor>
  void own_parameters(Visitor& visitor) const {
    visitor.matrix(this, matrix_, false);
  }

  std::string emit(kernel_context& kc, const std::string& i, const std::string& j) const {
    const matrix_parameter& p = kc.matrix_parameter_of(&matrix_);
    const std::string loaded =
        kc.builder().declare_fresh(codegen::opencl_type_name<T>(), kc.load_element(p, codegen::opencl_type_name<T>(), i, j));
    if (!p.masked) return loaded;
    return kc.builder().declare_fresh(codegen::opencl_type_name<T>(), masked_by_view(p, i, j, loaded));
  }

  void collect_accesses(access_collector& collector, const access_map& map) const {
    collector.read(&matrix_, map);
  }

  void prepare_host() const { host_ = matrix_.to_host(); }  // zeros outside the view
  T host_value(index_t i, index_t j) const { return host_[static_cast<std::size_t>(i + j * matrix_.rows())]; }

  // As an assignment target (assignment.hpp): the whole matrix, resized to the result.
  template <typename Visitor>
  void visit_target_parameters(Visitor& visitor) const
    requires assignable
  {
    visitor.matrix(this, matrix_, true);
  }
  void collect_writes(access_collector& collector, const access_map& map) const
    requires assignable
  {
    collector.write(&matrix_, map);
  }
  const runtime::context& target_context() const noexcept { return matrix_.ctx(); }
  index_t target_rows() const noexcept { return matrix_.rows(); }
  index_t target_cols() const noexcept { return matrix_.cols(); }
  void check_target_shape(index_t, index_t) const noexcept {}  // any shape: it is resized
  /// Before the kernel: the matrix takes the result's shape.
  void prepare_target(index_t rows, index_t cols) const
    requires assignable
  {
    matrix_.resize(rows, cols);
  }
  /// Where the target's element (0, 0) lies in its matrix.
  std::pair<index_t, index_t> target_offset() const noexcept { return {0, 0}; }
  /// After the kernel wrote the result of an expression with this view.
  void finish_target(matrix_view result_view) const
    requires assignable
  {
    matrix_.set_view(result_view);
  }
  /// Takes an already evaluated result (the temporary of an order-dependent assignment).
  void assign_temporary(matrix_type&& result) const
    requires assignable
  {
    matrix_ = std::move(result);
  }
  /// The store step's write of value to element (i, j).
  void generate_store(kernel_context& kc, const std::string& i, const std::string& j,
                      const std::string& value) const {
    kc.store_element(kc.matrix_parameter_of(&matrix_), codegen::opencl_type_name<T>(), i, j, value);
  }
  matrix_type& target_matrix() const
    requires assignable
  {
    return matrix_;
  }

 private:
  MatrixRef matrix_;
  mutable std::vector<T> host_;
};

}  // namespace tessera::kernel_generator
