#pragma once
// How an assignment's kernel is laid out around its expressions (operation.hpp:
// kernel_skeleton), and the one parameter order. The elementwise skeleton computes element
// (i, j) per work-item; the GEMM skeleton is a store step spliced into the tuned GEMM's kernels.
// Every skeleton ends in the store step (assignment_code::store), the one place that writes results, so a producer with
// its own layout (a matmul computing C by register tiles) applies the rest of the expression
// and the store per element it owns. A new layout (a reduction with work-group cooperation)
// is a new skeleton here, dispatched on in assignment.hpp.
#include <cstddef>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <tessera/codegen/kernel_builder.hpp>
#include <tessera/kernel_generator/argument_list.hpp>
#include <tessera/kernel_generator/kernel_context.hpp>
#include <tessera/kernel_generator/operation.hpp>
#include <tessera/runtime/device.hpp>
#include <tessera/runtime/kernel.hpp>

namespace tessera::kernel_generator {

/// The one parameter order: targets, expressions, then the result's shape. Used to declare
/// the parameters, to set the arguments and to record the matrices.
template <typename Visitor, typename Targets, typename Expressions>
void visit_kernel_parameters(Visitor& visitor, const Targets& targets, const Expressions& expressions, index_t rows,
                             index_t cols) {
  std::apply([&visitor](const auto&... t) { (t.visit_target_parameters(visitor), ...); }, targets);
  std::apply([&visitor](const auto&... e) { (e.visit_parameters(visitor), ...); }, expressions);
  visitor.integer(nullptr, "rows", rows);
  visitor.integer(nullptr, "cols", cols);
}

/// An assignment as its kernels' code sees it, its types erased: its parameters (in the one
/// order), each expression's value at (i, j) and the store step. The skeletons' source
/// generators and launches take this and are compiled once (skeletons.cpp, kernel_cache.cpp,
/// reduction_skeleton.cpp): instantiated for every (targets, expressions) type they were most
/// of the generated machine code of a program using the kernel generator, and most of its
/// compile time (40 KB of code per assignment type).
class assignment_code {
 public:
  virtual ~assignment_code() = default;
  /// How many targets (each with its expression).
  virtual std::size_t results() const = 0;
  /// visit_kernel_parameters with each of its visitors: declaring, recording, gathering values.
  virtual void declare_parameters(kernel_context& kc) const = 0;
  virtual void record_matrices(matrix_recorder& recorder) const = 0;
  virtual void gather_arguments(argument_list& arguments, index_t rows, index_t cols) const = 0;
  /// Each expression's value at (i, j), generated in order.
  virtual std::vector<std::string> values_at(kernel_context& kc, const std::string& i, const std::string& j) const = 0;
  /// The store step: writes values[k], the k-th expression's value at (i, j), to the k-th
  /// target. The one place results are written, whatever the skeleton.
  virtual void store(kernel_context& kc, const std::vector<std::string>& values, const std::string& i,
                     const std::string& j) const = 0;
};

/// The code of `targets = expressions`; it refers to both, which must outlive it. (Virtual
/// functions rather than std::function members: a vtable per type instead of the wrappers'
/// machinery, which cost as much to compile as what it erased.)
template <typename Targets, typename Expressions>
class typed_assignment_code final : public assignment_code {
 public:
  typed_assignment_code(const Targets& targets, const Expressions& expressions)
      : targets_(targets), expressions_(expressions) {}
  std::size_t results() const override { return std::tuple_size_v<Targets>; }
  void declare_parameters(kernel_context& kc) const override {
    visit_kernel_parameters(kc, targets_, expressions_, 0, 0);
  }
  void record_matrices(matrix_recorder& recorder) const override {
    visit_kernel_parameters(recorder, targets_, expressions_, 0, 0);
  }
  void gather_arguments(argument_list& arguments, index_t rows, index_t cols) const override {
    visit_kernel_parameters(arguments, targets_, expressions_, rows, cols);
  }
  std::vector<std::string> values_at(kernel_context& kc, const std::string& i, const std::string& j) const override {
    // A braced list: the expressions generate their code in order.
    return std::apply([&](const auto&... e) { return std::vector<std::string>{e.generate(kc, i, j)...}; },
                      expressions_);
  }
  void store(kernel_context& kc, const std::vector<std::string>& values, const std::string& i,
             const std::string& j) const override {
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      (std::get<K>(targets_).generate_store(kc, i, j, values[K]), ...);
    }(std::make_index_sequence<std::tuple_size_v<Targets>>{});
  }

 private:
  static_assert(std::tuple_size_v<Targets> == std::tuple_size_v<Expressions>, "one expression per target");
  const Targets& targets_;
  const Expressions& expressions_;
};

template <typename Targets, typename Expressions>
typed_assignment_code<Targets, Expressions> code_of(const Targets& targets, const Expressions& expressions) {
  return {targets, expressions};
}

/// How the elementwise skeleton hands out elements: one per work-item (split::none), or
/// elementwise_items per work-item, a launch's width apart along the columns (split::columns)
/// or the rows (split::rows). Several per item, loaded before any is stored, keep enough loads
/// in flight on a GPU (one float per item reads at about half the copy's bandwidth) and divide
/// PoCL's cost per work-group; the split follows the longer dimension, so consecutive
/// work-items still read consecutive elements. row_vector: a CPU's 1 x N result, split by
/// columns with its work-items along the first dimension (the one PoCL vectorizes) and its
/// loads written as consecutive where every matrix is one row (PoCL, 2 cores, one-term column
/// sums of 1 x 2^24 floats: 0.49-0.62x the copy along the second dimension).
/// column_vectors: a work-item takes vector_rows consecutive rows of one column, each matrix
/// read or written at exactly those rows as one vector access (kernel_context's row vector);
/// chosen only where every matrix's rows are a multiple of vector_rows, so that the accesses
/// are aligned (H200, exp(a - m) / s on 8192 x 8192 floats, hand-written: four scalars a
/// launch's width apart 0.95x the copy, one float4 1.00x; four scalar loads of consecutive rows
/// 0.40x, benchmark/kernel_generator/vector_probe. PoCL, 2 cores, 2^24 floats: c * (a + b)
/// 0.72-0.77x -> 1.08-1.20x the copy, a 2^24 x 1 one-term map 0.64-0.83x -> 1.03-1.12x).
/// one_row_vectors: the same along a one-row result whose matrices all have one row (a 1 x N
/// row is as contiguous as an N x 1 column): a work-item takes vector_rows consecutive
/// columns, each matrix read or written there as one vector (kernel_context's column vector);
/// the last, partial vector element by element.
enum class elementwise_split { none, columns, rows, row_vector, column_vectors, one_row_vectors };
inline constexpr int elementwise_items = 4;
inline constexpr int vector_rows = 4;

/// The elementwise skeleton: work-item (i, j) computes element (i, j) of every result (or the
/// elementwise_items elements of its split). The column index spans the launch's second and
/// third dimensions: GPUs cap the work-groups of one dimension (NVIDIA's at 65535), and a loop
/// instead would keep PoCL from vectorizing.
///
/// Split: the item's elements are computed at indices clamped into the matrix (an element
/// past the edge reads the last row or column, which is always there) and stored only where
/// the index was inside; so every load is unconditional, and the split index is the same for
/// the work-items PoCL vectorizes along the first dimension (for split::columns).
void emit_elementwise_kernel(kernel_context& kc, const assignment_code& code,
                             elementwise_split split = elementwise_split::none);

/// The GEMM skeleton's part: a function the GEMM's store calls for each element (i, j) of C
/// it owns, with gemm_value, the product's value there (alpha * acc). It is remembered as the
/// producer's value at (i, j), so the rest of every expression reads it through generate like
/// any other value. The function's parameters are the assignment's, appended to the GEMM
/// kernel's through GEMM_EPILOGUE_PARAMETERS. C is the first target, so:
///  - one target: the function returns the result's value at (i, j) (GEMM_EPILOGUE) and the
///    GEMM's own store writes it to C, in vectors where its family does (the same write as
///    the target's generate_store: element (i, j), converted to the element type);
///  - several: the function is the store step (GEMM_STORE_STEP, assignment_code::store writes
///    every result) and the GEMM writes nothing itself.
std::string generate_store_step_source(const assignment_code& code, const std::vector<const void*>& producers);

template <typename... Targets, typename... Expressions>
std::string generate_store_step_source(const std::tuple<Targets...>& targets,
                                       const std::tuple<Expressions...>& expressions,
                                       const std::vector<const void*>& producers) {
  return generate_store_step_source(code_of(targets, expressions), producers);
}

template <typename... Expressions>
constexpr kernel_skeleton skeleton_of_results() {
  return skeleton_of_arguments<Expressions...>();
}

/// The OpenCL C of the elementwise kernel assigning expressions to targets (for the GEMM
/// skeleton: with its producers materialized; generate_store_step_source when fused).
std::string generate_kernel_source(const assignment_code& code, elementwise_split split = elementwise_split::none);

template <typename... Targets, typename... Expressions>
std::string generate_kernel_source(const std::tuple<Targets...>& targets,
                                   const std::tuple<Expressions...>& expressions,
                                   elementwise_split split = elementwise_split::none) {
  return generate_kernel_source(code_of(targets, expressions), split);
}

/// The elementwise skeleton's launch for a rows x cols result: the split, the range (work-groups
/// of up to 256 work-items along the columns' contiguous rows first, a short matrix's along the
/// columns instead, the columns' work-groups spread over the second and third dimensions) and
/// the distance between an item's elements (item_step; for the splits that have one:
/// takes_item_step).
struct elementwise_launch {
  elementwise_split split = elementwise_split::none;
  runtime::launch_range range;
  int item_step = 0;
};

/// The split for a rows x cols result on device: column_vectors where rows_in_vectors (every
/// matrix of the assignment has a multiple of vector_rows rows, or one:
/// matrix_recorder::rows_in_vectors); one_row_vectors for a one-row result where every matrix
/// is one row (matrix_recorder::one_row_each); else a CPU's row vectors as row_vector, by columns when there
/// are a few, by rows for a GPU's column vectors; none for tiny results and a CPU's column
/// vectors (clamped row indices would keep PoCL from vectorizing its loads).
elementwise_split choose_elementwise_split(const runtime::device_info& device, index_t rows, index_t cols,
                                           bool rows_in_vectors = false, bool one_row_each = false);

/// Whether the kernel generated for split takes item_step as its last argument.
constexpr bool takes_item_step(elementwise_split split) {
  return split == elementwise_split::columns || split == elementwise_split::rows || split == elementwise_split::row_vector;
}

/// The launch of the kernel generated for split (work_group: kernel::power_of_two_work_group).
elementwise_launch plan_elementwise_launch(elementwise_split split, std::size_t work_group, index_t rows,
                                           index_t cols);

}  // namespace tessera::kernel_generator
