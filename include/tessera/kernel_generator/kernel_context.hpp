#pragma once
// What the operations of one kernel share while they generate it: the kernel_builder,
// the kernel parameters declared so far and the values already computed in the current
// scope (so a matrix read twice at the same element is loaded once).
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <tessera/codegen/kernel_builder.hpp>
#include <tessera/codegen/type_names.hpp>
#include <tessera/runtime/matrix.hpp>

namespace tessera::kernel_generator {

using runtime::index_t;

/// The parameters that describe one matrix: buffer, row count (the column stride) and view.
/// masked: the matrix had a triangular view when the kernel was generated, so its loads test
/// the view; a matrix with the entire view is loaded plainly (the view pattern is part of
/// the kernel cache's key, so a kernel is only reused for the views it was generated for).
struct matrix_parameter {
  std::string buffer;
  std::string rows;
  std::string view;
  bool masked = false;
};

/// OpenCL C index of element (i, j) of a column-major matrix with `rows` rows; i and j are
/// names or parenthesized expressions. The product is taken in long: matrices may exceed
/// 2^31 elements.
std::string element_index(std::string_view i, std::string_view j, std::string_view rows);
/// Element (i, j) of a matrix parameter, as an lvalue: `m1[i + (long)j * m1_rows]`.
std::string element_of(const matrix_parameter& m, std::string_view i, std::string_view j);
/// `loaded`, the value of element (i, j), or zero outside the matrix's view (the test is
/// runtime/matrix_view.hpp's). The load itself is unconditional: it is always inside the
/// matrix, and a select vectorizes where a conditional load does not.
std::string masked_by_view(const matrix_parameter& m, std::string_view i, std::string_view j,
                           std::string_view loaded);
/// `(type)value`.
std::string cast_to(std::string_view type, std::string_view value);

class kernel_context {
 public:
  /// restrict_matrices: declare matrix parameters restrict. Off where the function's pointers
  /// live beside another kernel's that may name the same buffer (the fused GEMM's epilogue:
  /// its target is the GEMM's C, its operands may be A and B).
  explicit kernel_context(codegen::kernel_builder& builder, bool restrict_matrices = true)
      : builder_(builder), restrict_matrices_(restrict_matrices) {}
  kernel_context(const kernel_context&) = delete;
  kernel_context& operator=(const kernel_context&) = delete;

  codegen::kernel_builder& builder() noexcept { return builder_; }

  // Parameter declaration: the visitor interface every operation's visit_parameters calls
  // (argument_list implements the same interface to set the values, in the same order).
  // A matrix seen before (the same object) reuses its parameters; targets are visited
  // first, so a matrix both written and read gets a writable pointer.
  template <typename T>
  void matrix(const void* /*node*/, const runtime::matrix<T>& m, bool written) {
    declare_matrix(&m, codegen::opencl_type_name<T>(), written, m.view() != runtime::matrix_view::entire);
  }
  template <typename T>
  void scalar(const void* node, const T& /*value*/) {
    declare_scalar(node, codegen::opencl_type_name<T>());
  }
  /// An int parameter; role names it ("row", "length"); a null node names it role exactly.
  void integer(const void* node, std::string_view role, index_t /*value*/);

  const matrix_parameter& matrix_parameter_of(const void* matrix) const;

  /// Emits emit() twice: under `if (m1_rows == 1 && ...)` (every matrix declared so far is one
  /// row) with each matrix's rows written as 1, so that a CPU's compiler sees a row's elements
  /// at consecutive constant offsets and loads them as vectors (a run-time leading dimension of
  /// 1 it cannot see), and under `else` as it is (a one-row block of a taller matrix).
  void emit_for_one_row_and_any(const std::function<void()>& emit);
  /// Emits one_row() under `if (m1_rows == 1 && ... && condition)` (every matrix declared so far
  /// is one row; condition may be empty) with each matrix's rows written as 1, and otherwise()
  /// under `else`.
  void emit_if_one_row(std::string_view condition, const std::function<void()>& one_row,
                       const std::function<void()>& otherwise);
  /// The elementwise skeleton's column_vectors split: rows[u] names row `base + u` of a work-item
  /// whose rows.size() consecutive rows start at base, a multiple of rows.size() (the launch
  /// guarantees it, and that every matrix's rows are a multiple too). Until end_row_vector,
  /// load_element and store_element turn the accesses of a matrix at exactly these rows (not a
  /// shifted block, not a masked view) into one aligned vector load per column and one vector
  /// store once all its rows are given.
  void begin_row_vector(std::string base, std::vector<std::string> rows);
  /// The same along the columns, for the one_row_vectors split: cols[u] names column `base + u`
  /// (base a multiple of cols.size()) of a result whose matrices are all one row (the caller
  /// emits it under emit_if_one_row). Accesses of a matrix at exactly these columns, at any row
  /// (a one-row matrix has only row 0), become one aligned vector load per matrix and one
  /// vector store. Closed by end_row_vector.
  void begin_column_vector(std::string base, std::vector<std::string> cols);
  void end_row_vector();
  /// The expression that reads element (i, j) of matrix p of the given OpenCL type (element_of,
  /// or a lane of a row vector's load).
  std::string load_element(const matrix_parameter& p, std::string_view type, std::string_view i, std::string_view j);
  /// Writes value (of any type; converted to type) to element (i, j) of matrix p.
  void store_element(const matrix_parameter& p, std::string_view type, std::string_view i, std::string_view j,
                     std::string_view value);
  const std::string& scalar_parameter_of(const void* node) const;
  const std::string& integer_parameter_of(const void* node, std::string_view role) const;

  /// The variable (or expression) holding the value of `identity` at (i, j), if it was
  /// computed in the current scope or an enclosing one.
  const std::string* find(const void* identity, std::string_view i, std::string_view j) const;
  void remember(const void* identity, std::string_view i, std::string_view j, std::string value);

  /// Opens a block (`for (...)`, `if (...)`); values computed inside are forgotten at
  /// close_scope, since the variables holding them go out of scope.
  void open_scope(std::string_view header);
  void close_scope();

 private:
  void declare_matrix(const void* matrix, std::string_view type, bool written, bool masked);
  void declare_scalar(const void* node, std::string_view type);

  struct known_value {
    const void* identity;
    std::string i, j, value;
  };
  codegen::kernel_builder& builder_;
  bool restrict_matrices_ = true;
  std::map<const void*, matrix_parameter> matrices_;
  std::map<const void*, matrix_parameter> one_row_matrices_;  // the same, rows "1"
  bool one_row_ = false;
  std::map<const void*, std::string> scalars_;
  std::map<std::pair<const void*, std::string>, std::string, std::less<>> integers_;
  std::vector<known_value> values_;
  /// The row vector (begin_row_vector) or column vector (begin_column_vector: along_columns),
  /// and its stores not yet written: per matrix buffer and fixed index (the column of a row
  /// vector, the row of a column vector), the value of each lane (empty until given).
  std::string vector_base_;
  std::vector<std::string> vector_lanes_;
  bool along_columns_ = false;
  struct pending_store {
    std::string target;                 // the vector lvalue
    std::vector<std::string> lanes;     // each row's value, converted
    std::vector<std::string> elements;  // each row's element, for scalar stores
  };
  std::map<std::pair<std::string, std::string>, pending_store> pending_stores_;
  /// The lane that element (i, j) of p is in, or -1 where it is read and written alone.
  int vector_lane(const matrix_parameter& p, std::string_view type, std::string_view i, std::string_view j) const;
  std::string vector_type(std::string_view type) const;  // type with the vector's lanes: float4
  /// The vector holding element (i, j)'s lane, as an lvalue: at the base row and column j, or
  /// at row i and the base column.
  std::string vector_lvalue(const matrix_parameter& p, std::string_view type, std::string_view i,
                            std::string_view j, bool written) const;
  /// The index the vector's elements share (the column of a row vector), and the element of
  /// each lane.
  std::string_view vector_fixed(std::string_view i, std::string_view j) const { return along_columns_ ? i : j; }
  std::string vector_element(const matrix_parameter& p, std::string_view fixed, std::string_view lane) const;
  std::vector<std::size_t> scope_starts_;
};

}  // namespace tessera::kernel_generator
