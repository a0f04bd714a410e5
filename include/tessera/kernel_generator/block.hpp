#pragma once
// block(a, row, col, rows, cols): the rows x cols part of a starting at (row, col). Read as
// a source, or assigned to (`block(m, 1, 1, 2, 2) = expr;` writes only those elements of m).
// The offsets are kernel arguments: one kernel serves every block position.
#include <string>
#include <utility>

#include <tessera/kernel_generator/as_operation.hpp>

namespace tessera::kernel_generator {

/// Stores the zeros outside m's view and makes it entire (assignment.hpp).
template <device_scalar T>
void make_dense(matrix<T>& m);

template <typename A>
class block_ : public operation<block_<A>, value_type_t<A>, A> {
  using base = operation<block_<A>, value_type_t<A>, A>;
  using argument_type = std::remove_cvref_t<A>;

 public:
  using typename base::value_type;
  /// A block of something assignable (a matrix, a block of one) is assignable.
  static constexpr bool assignable = requires { requires argument_type::assignable; };

  template <typename X>
  block_(X&& a, index_t row, index_t col, index_t rows, index_t cols)
      : base(std::forward<X>(a)), row_(row), col_(col), rows_(rows), cols_(cols) {
    const auto& arg = this->template argument<0>();
    const bool rows_fit = arg.rows() == any_size || row + rows <= arg.rows();
    const bool cols_fit = arg.cols() == any_size || col + cols <= arg.cols();
    if (row < 0 || col < 0 || rows < 0 || cols < 0 || !rows_fit || !cols_fit)
      throw argument_error("block: rows " + std::to_string(row) + ".." + std::to_string(row + rows - 1) +
                           " and columns " + std::to_string(col) + ".." + std::to_string(col + cols - 1) +
                           " (a " + shape_string(rows, cols) + " block at (" + std::to_string(row) + ", " +
                           std::to_string(col) + ")) are not inside a " + shape_string(arg.rows(), arg.cols()) +
                           " matrix");
  }

  index_t row() const noexcept { return row_; }
  index_t col() const noexcept { return col_; }
  index_t rows() const noexcept { return rows_; }
  index_t cols() const noexcept { return cols_; }
  /// A block on the diagonal keeps the view; elsewhere it is conservatively entire.
  matrix_view view() const { return row_ == col_ ? this->template argument<0>().view() : matrix_view::entire; }
  access_map argument_map(const access_map& map) const { return map.shift(row_, col_); }

  template <typename Visitor>
  void own_parameters(Visitor& visitor) const {
    visitor.integer(this, "row", row_);
    visitor.integer(this, "col", col_);
  }

  std::string emit(kernel_context& kc, const std::string& i, const std::string& j) const {
    const auto [r, c] = shifted(kc, i, j);
    return this->template argument<0>().generate(kc, r, c);
  }
  value_type host_value(index_t i, index_t j) const {
    return this->template argument<0>().host_value(i + row_, j + col_);
  }

  // As an assignment target (assignment.hpp): writes only the block, whose shape is fixed.
  template <typename Visitor>
  void visit_target_parameters(Visitor& visitor) const
    requires assignable
  {
    visitor.integer(this, "row", row_);
    visitor.integer(this, "col", col_);
    this->template argument<0>().visit_target_parameters(visitor);
  }
  void collect_writes(access_collector& collector, const access_map& map) const
    requires assignable
  {
    this->template argument<0>().collect_writes(collector, map.shift(row_, col_));
  }
  const runtime::context& target_context() const { return this->template argument<0>().target_context(); }
  index_t target_rows() const noexcept { return rows_; }
  index_t target_cols() const noexcept { return cols_; }
  void check_target_shape(index_t rows, index_t cols) const {
    if (rows != rows_ || cols != cols_)
      throw argument_error("block assignment: the " + shape_string(rows_, cols_) + " block cannot hold a " +
                           shape_string(rows, cols) + " result");
  }
  std::pair<index_t, index_t> target_offset() const noexcept {
    const auto [r, c] = this->template argument<0>().target_offset();
    return {r + row_, c + col_};
  }
  /// Before the kernel: a triangular matrix whose view does not cover the block becomes
  /// entire, its elements outside the old view set to the zeros they stood for.
  void prepare_target(index_t, index_t) const
    requires assignable
  {
    auto& m = target_matrix();
    const auto [r, c] = target_offset();
    if (rows_ == 0 || cols_ == 0) return;
    // Whether (row, col) is inside a view depends only on row - col: the block's extreme
    // corners decide.
    if (!runtime::view_contains(m.view(), r, c + cols_ - 1) || !runtime::view_contains(m.view(), r + rows_ - 1, c))
      make_dense(m);
  }
  /// The matrix keeps its view: prepare_target made it cover the block.
  void finish_target(matrix_view) const noexcept {}
  /// Copies an already evaluated result (the temporary of an order-dependent assignment).
  template <typename M>
  void assign_temporary(M&& result) const
    requires assignable;
  void generate_store(kernel_context& kc, const std::string& i, const std::string& j, const std::string& value) const {
    const auto [r, c] = shifted(kc, i, j);
    this->template argument<0>().generate_store(kc, r, c, value);
  }
  auto& target_matrix() const
    requires assignable
  {
    return this->template argument<0>().target_matrix();
  }

  // Assignment into the block (defined in assignment.hpp).
  template <typename E>
    requires operand<E> || host_scalar<E>
  const block_& operator=(E&& expression) const;
  const block_& operator=(const block_& other) const;
  template <typename E>
  const block_& operator+=(E&& expression) const;
  template <typename E>
  const block_& operator-=(E&& expression) const;
  template <typename E>
    requires host_scalar<E>
  const block_& operator*=(E scale) const;
  template <typename E>
    requires host_scalar<E>
  const block_& operator/=(E divisor) const;

  block_(const block_&) = default;
  block_(block_&&) = default;

 private:
  std::pair<std::string, std::string> shifted(kernel_context& kc, const std::string& i, const std::string& j) const {
    return {"(" + i + " + " + kc.integer_parameter_of(this, "row") + ")",
            "(" + j + " + " + kc.integer_parameter_of(this, "col") + ")"};
  }

  index_t row_, col_, rows_, cols_;
};

template <operand A>
auto block(A&& a, index_t row, index_t col, index_t rows, index_t cols) {
  return block_<as_operation_t<A>>(as_operation(std::forward<A>(a)), row, col, rows, cols);
}

}  // namespace tessera::kernel_generator
