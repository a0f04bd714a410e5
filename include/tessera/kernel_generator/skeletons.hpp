#pragma once
// How an assignment's kernel is laid out around its expressions (operation.hpp:
// kernel_skeleton), and the one parameter order. The elementwise skeleton computes element
// (i, j) per work-item; the GEMM skeleton is a store step spliced into the tuned GEMM's kernels.
// Every skeleton ends in emit_store_step, the one place that writes results, so a producer with
// its own layout (a matmul computing C by register tiles) applies the rest of the expression
// and the store per element it owns. A new layout (a reduction with work-group cooperation)
// is a new skeleton here, dispatched on in assignment.hpp.
#include <array>
#include <cstddef>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <tessera/codegen/kernel_builder.hpp>
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

/// The store step: writes values[k], the k-th expression's value at (i, j), to the k-th
/// target. The one place results are written, whatever the skeleton.
template <typename Targets, std::size_t N>
void emit_store_step(kernel_context& kc, const Targets& targets, const std::array<std::string, N>& values,
                     const std::string& i, const std::string& j) {
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    (std::get<K>(targets).generate_store(kc, i, j, values[K]), ...);
  }(std::make_index_sequence<N>{});
}

/// How the elementwise skeleton hands out elements: one per work-item (split::none), or
/// elementwise_items per work-item, a launch's width apart along the columns (split::columns)
/// or the rows (split::rows). Several per item, loaded before any is stored, keep enough loads
/// in flight on a GPU (one float per item reads at about half the copy's bandwidth) and divide
/// PoCL's cost per work-group; the split follows the longer dimension, so consecutive
/// work-items still read consecutive elements.
enum class elementwise_split { none, columns, rows };
inline constexpr int elementwise_items = 4;

/// The elementwise skeleton: work-item (i, j) computes element (i, j) of every result (or the
/// elementwise_items elements of its split). The column index spans the launch's second and
/// third dimensions: GPUs cap the work-groups of one dimension (NVIDIA's at 65535), and a loop
/// instead would keep PoCL from vectorizing.
///
/// Split: the item's elements are computed at indices clamped into the matrix (an element
/// past the edge reads the last row or column, which is always there) and stored only where
/// the index was inside; so every load is unconditional, and the split index is the same for
/// the work-items PoCL vectorizes along the first dimension (for split::columns).
template <typename Targets, typename Expressions>
void emit_elementwise_kernel(kernel_context& kc, const Targets& targets, const Expressions& expressions,
                             elementwise_split split = elementwise_split::none) {
  auto& b = kc.builder();
  const auto values_at = [&](const std::string& i, const std::string& j) {
    return std::apply(
        [&](const auto&... e) { return std::array<std::string, sizeof...(e)>{e.generate(kc, i, j)...}; }, expressions);
  };
  b.declare("const int", "i", "get_global_id(0)");
  b.declare("const int", "j", "get_global_id(1) + get_global_size(1) * get_global_id(2)");
  if (split == elementwise_split::none) {
    kc.open_scope("if (i < rows && j < cols)");
    emit_store_step(kc, targets, values_at("i", "j"), "i", "j");
    kc.close_scope();
    return;
  }
  const bool by_columns = split == elementwise_split::columns;
  const std::string step = b.add_scalar_parameter("int", "item_step");
  const std::string fixed = by_columns ? "i" : "j", moving = by_columns ? "j" : "i";
  const std::string limit = by_columns ? "cols" : "rows";
  kc.open_scope("if (" + fixed + " < " + (by_columns ? "rows" : "cols") + ")");
  std::vector<std::string> unclamped, clamped;
  for (int u = 0; u < elementwise_items; ++u) {
    const std::string index = moving + std::to_string(u);
    unclamped.push_back(index);
    clamped.push_back(index + "_in");
    b.declare("const int", index, moving + (u == 0 ? "" : " + " + std::to_string(u) + " * " + step));
    b.declare("const int", index + "_in", "min(" + index + ", " + limit + " - 1)");
  }
  using value_array = decltype(values_at("i", "j"));
  std::vector<value_array> values;
  for (int u = 0; u < elementwise_items; ++u) {
    const std::string& m = clamped[static_cast<std::size_t>(u)];
    values.push_back(by_columns ? values_at("i", m) : values_at(m, "j"));
  }
  for (int u = 0; u < elementwise_items; ++u) {
    const auto k = static_cast<std::size_t>(u);
    kc.open_scope("if (" + unclamped[k] + " < " + limit + ")");
    if (by_columns)
      emit_store_step(kc, targets, values[k], "i", clamped[k]);
    else
      emit_store_step(kc, targets, values[k], clamped[k], "j");
    kc.close_scope();
  }
  kc.close_scope();
}

/// The GEMM skeleton's part: a function the GEMM's store calls for each element (i, j) of C
/// it owns, with gemm_value, the product's value there (alpha * acc). It is remembered as the
/// producer's value at (i, j), so the rest of every expression reads it through generate like
/// any other value. The function's parameters are the assignment's, appended to the GEMM
/// kernel's through GEMM_EPILOGUE_PARAMETERS. C is the first target, so:
///  - one target: the function returns the result's value at (i, j) (GEMM_EPILOGUE) and the
///    GEMM's own store writes it to C, in vectors where its family does (the same write as
///    the target's generate_store: element (i, j), converted to the element type);
///  - several: the function is the store step (GEMM_STORE_STEP, emit_store_step writes every
///    result) and the GEMM writes nothing itself.
template <typename Targets, typename Expressions>
std::string generate_store_step_source(const Targets& targets, const Expressions& expressions,
                                       const std::vector<const void*>& producers) {
  constexpr bool one_target = std::tuple_size_v<Targets> == 1;
  codegen::kernel_builder builder(one_target ? "tessera_epilogue" : "tessera_store_step");
  kernel_context kc(builder, /*restrict_matrices=*/false);  // C is also the GEMM kernel's C
  visit_kernel_parameters(kc, targets, expressions, 0, 0);
  const std::string i = "i", j = "j";
  for (const void* producer : producers) kc.remember(producer, i, j, "gemm_value");
  const auto values = std::apply(
      [&](const auto&... e) { return std::array<std::string, sizeof...(e)>{e.generate(kc, i, j)...}; }, expressions);
  if constexpr (one_target)
    builder.statement("return " + cast_to("REAL", values[0]));
  else
    emit_store_step(kc, targets, values, i, j);
  std::string parameters, names;
  for (const std::string& p : builder.parameter_declarations()) parameters += ", " + p;
  for (const std::string& n : builder.parameter_names()) names += ", " + n;
  builder.define("GEMM_EPILOGUE_PARAMETERS", parameters);
  builder.define("GEMM_EPILOGUE_ARGUMENTS", names);
  if constexpr (one_target)
    builder.define("GEMM_EPILOGUE(value, row, col)", "tessera_epilogue((value), (row), (col) GEMM_EPILOGUE_ARGUMENTS)");
  else
    builder.define("GEMM_STORE_STEP(value, row, col)",
                   "tessera_store_step((value), (row), (col) GEMM_EPILOGUE_ARGUMENTS)");
  return builder.function_source("const REAL gemm_value, const int i, const int j", one_target ? "REAL" : "void");
}

template <typename... Expressions>
constexpr kernel_skeleton skeleton_of_results() {
  return skeleton_of_arguments<Expressions...>();
}

/// The OpenCL C of the elementwise kernel assigning expressions to targets (for the GEMM
/// skeleton: with its producers materialized; generate_store_step_source when fused).
template <typename... Targets, typename... Expressions>
std::string generate_kernel_source(const std::tuple<Targets...>& targets,
                                   const std::tuple<Expressions...>& expressions,
                                   elementwise_split split = elementwise_split::none) {
  codegen::kernel_builder builder("evaluate");
  kernel_context kc(builder);
  visit_kernel_parameters(kc, targets, expressions, 0, 0);
  emit_elementwise_kernel(kc, targets, expressions, split);
  return builder.source();
}

/// The elementwise skeleton's launch for a rows x cols result: the split, the range (work-groups
/// of up to 256 work-items along the columns' contiguous rows first, a short matrix's along the
/// columns instead, the columns' work-groups spread over the second and third dimensions) and
/// the distance between an item's elements (item_step).
struct elementwise_launch {
  elementwise_split split = elementwise_split::none;
  runtime::launch_range range;
  int item_step = 0;
};

/// The split for a rows x cols result on device: by columns when there are a few, by rows for
/// a GPU's column vectors; none for tiny results and a CPU's column vectors (clamped row
/// indices would keep PoCL from vectorizing its loads).
elementwise_split choose_elementwise_split(const runtime::device_info& device, index_t rows, index_t cols);

/// The launch of the kernel generated for split (work_group: kernel::power_of_two_work_group).
elementwise_launch plan_elementwise_launch(elementwise_split split, std::size_t work_group, index_t rows,
                                           index_t cols);

}  // namespace tessera::kernel_generator
