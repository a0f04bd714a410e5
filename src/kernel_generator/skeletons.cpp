#include <tessera/kernel_generator/skeletons.hpp>

#include <algorithm>
#include <bit>
#include <string>
#include <vector>

namespace tessera::kernel_generator {

namespace {
// At most 65535 work-groups in each of the second and third dimensions (NVIDIA's driver).
constexpr std::size_t max_groups = 65535;
// Results smaller than this take one element per work-item: they are launch-bound, and a
// split would leave compute units idle.
constexpr std::size_t least_split_elements = std::size_t{1} << 16;

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }
}  // namespace

void emit_elementwise_kernel(kernel_context& kc, const assignment_code& code, elementwise_split split) {
  auto& b = kc.builder();
  if (split == elementwise_split::column_vectors) {
    // vector_rows consecutive rows of column j, all inside (the rows are a multiple of them).
    b.declare("const int", "i", std::to_string(vector_rows) + " * get_global_id(0)");
    b.declare("const int", "j", "get_global_id(1) + get_global_size(1) * get_global_id(2)");
    kc.open_scope("if (i < rows && j < cols)");
    std::vector<std::string> rows{"i"};
    for (int u = 1; u < vector_rows; ++u) rows.push_back(b.declare_fresh("int", "i + " + std::to_string(u), "i"));
    kc.begin_row_vector("i", rows);
    std::vector<std::vector<std::string>> values;
    for (const std::string& row : rows) values.push_back(code.values_at(kc, row, "j"));
    for (std::size_t u = 0; u < rows.size(); ++u) code.store(kc, values[u], rows[u], "j");
    kc.end_row_vector();
    kc.close_scope();
    return;
  }
  if (split == elementwise_split::one_row_vectors) {
    // vector_rows consecutive columns of the one row; the last, partial vector (and any matrix
    // that is not one row, which the launch rules out) element by element.
    const int lanes = vector_rows;
    b.declare("const int", "i", "0");
    b.declare("const int", "j", std::to_string(lanes) + " * get_global_id(0)");
    kc.open_scope("if (j < cols)");
    std::vector<std::string> cols{"j"};
    for (int u = 1; u < lanes; ++u) cols.push_back(b.declare_fresh("int", "j + " + std::to_string(u), "j"));
    kc.emit_if_one_row(
        cols.back() + " < cols",
        [&] {
          kc.begin_column_vector("j", cols);
          std::vector<std::vector<std::string>> values;
          for (const std::string& col : cols) values.push_back(code.values_at(kc, "i", col));
          for (std::size_t u = 0; u < cols.size(); ++u) code.store(kc, values[u], "i", cols[u]);
          kc.end_row_vector();
        },
        [&] {
          for (const std::string& col : cols) {
            kc.open_scope("if (i < rows && " + col + " < cols)");
            code.store(kc, code.values_at(kc, "i", col), "i", col);
            kc.close_scope();
          }
        });
    kc.close_scope();
    return;
  }
  const bool row_vector = split == elementwise_split::row_vector;
  b.declare("const int", "i", row_vector ? "get_global_id(1)" : "get_global_id(0)");
  b.declare("const int", "j",
            row_vector ? "get_global_id(0)" : "get_global_id(1) + get_global_size(1) * get_global_id(2)");
  if (split == elementwise_split::none) {
    kc.open_scope("if (i < rows && j < cols)");
    code.store(kc, code.values_at(kc, "i", "j"), "i", "j");
    kc.close_scope();
    return;
  }
  const bool by_columns = split != elementwise_split::rows;
  const std::string step = b.add_scalar_parameter("int", "item_step");
  const std::string fixed = by_columns ? "i" : "j", moving = by_columns ? "j" : "i";
  const std::string limit = by_columns ? "cols" : "rows";
  const auto emit_items = [&] {
    std::vector<std::string> unclamped, clamped;
    for (int u = 0; u < elementwise_items; ++u) {
      const std::string index = moving + std::to_string(u);
      unclamped.push_back(index);
      clamped.push_back(index + "_in");
      b.declare("const int", index, moving + (u == 0 ? "" : " + " + std::to_string(u) + " * " + step));
      b.declare("const int", index + "_in", "min(" + index + ", " + limit + " - 1)");
    }
    std::vector<std::vector<std::string>> values;
    for (int u = 0; u < elementwise_items; ++u) {
      const std::string& m = clamped[static_cast<std::size_t>(u)];
      values.push_back(by_columns ? code.values_at(kc, "i", m) : code.values_at(kc, m, "j"));
    }
    for (int u = 0; u < elementwise_items; ++u) {
      const auto k = static_cast<std::size_t>(u);
      kc.open_scope("if (" + unclamped[k] + " < " + limit + ")");
      if (by_columns)
        code.store(kc, values[k], "i", clamped[k]);
      else
        code.store(kc, values[k], clamped[k], "j");
      kc.close_scope();
    }
  };
  kc.open_scope("if (" + fixed + " < " + (by_columns ? "rows" : "cols") + ")");
  if (row_vector) {
    // Where every matrix is one row (not a block of a taller one), its elements are written as
    // consecutive, so that the loads of the work-items PoCL runs together are vectors.
    kc.emit_for_one_row_and_any(emit_items);
  } else {
    emit_items();
  }
  kc.close_scope();
}

std::string generate_store_step_source(const assignment_code& code, const std::vector<const void*>& producers) {
  const bool one_target = code.results() == 1;
  codegen::kernel_builder builder(one_target ? "tessera_epilogue" : "tessera_store_step");
  kernel_context kc(builder, /*restrict_matrices=*/false);  // C is also the GEMM kernel's C
  code.declare_parameters(kc);
  const std::string i = "i", j = "j";
  for (const void* producer : producers) kc.remember(producer, i, j, "gemm_value");
  const std::vector<std::string> values = code.values_at(kc, i, j);
  if (one_target)
    builder.statement("return " + cast_to("REAL", values[0]));
  else
    code.store(kc, values, i, j);
  std::string parameters, names;
  for (const std::string& p : builder.parameter_declarations()) parameters += ", " + p;
  for (const std::string& n : builder.parameter_names()) names += ", " + n;
  builder.define("GEMM_EPILOGUE_PARAMETERS", parameters);
  builder.define("GEMM_EPILOGUE_ARGUMENTS", names);
  if (one_target)
    builder.define("GEMM_EPILOGUE(value, row, col)", "tessera_epilogue((value), (row), (col) GEMM_EPILOGUE_ARGUMENTS)");
  else
    builder.define("GEMM_STORE_STEP(value, row, col)",
                   "tessera_store_step((value), (row), (col) GEMM_EPILOGUE_ARGUMENTS)");
  return builder.function_source("const REAL gemm_value, const int i, const int j", one_target ? "REAL" : "void");
}

std::string generate_kernel_source(const assignment_code& code, elementwise_split split) {
  codegen::kernel_builder builder("evaluate");
  kernel_context kc(builder);
  code.declare_parameters(kc);
  emit_elementwise_kernel(kc, code, split);
  return builder.source();
}

elementwise_split choose_elementwise_split(const runtime::device_info& device, index_t rows, index_t cols,
                                           bool rows_in_vectors, bool one_row_each) {
  const auto r = static_cast<std::size_t>(std::max<index_t>(rows, 0));
  const auto c = static_cast<std::size_t>(std::max<index_t>(cols, 0));
  if (r * c < least_split_elements) return elementwise_split::none;
  if (rows_in_vectors && r % vector_rows == 0)
    return elementwise_split::column_vectors;
  if (one_row_each && r == 1) return elementwise_split::one_row_vectors;
  if (device.type == runtime::device_type::cpu && r == 1) return elementwise_split::row_vector;
  if (c >= static_cast<std::size_t>(elementwise_items)) return elementwise_split::columns;
  return device.type == runtime::device_type::cpu ? elementwise_split::none : elementwise_split::rows;
}

elementwise_launch plan_elementwise_launch(elementwise_split split, std::size_t work_group, index_t rows,
                                           index_t cols) {
  const auto items = static_cast<std::size_t>(elementwise_items);
  std::size_t r = static_cast<std::size_t>(rows), c = static_cast<std::size_t>(cols);
  if (split == elementwise_split::row_vector || split == elementwise_split::one_row_vectors) {
    // One row: the columns' items (a launch's width apart) or vectors of consecutive columns
    // along the first dimension.
    const bool vectors = split == elementwise_split::one_row_vectors;
    c = ceil_div(c, vectors ? static_cast<std::size_t>(vector_rows) : items);
    const std::size_t local0 = std::min(work_group, std::bit_ceil(std::max<std::size_t>(c, 1)));
    elementwise_launch launch;
    launch.split = split;
    launch.range = {{runtime::round_up(c, local0), 1, 1}, {local0, 1, 1}, 3};
    if (!vectors) launch.item_step = static_cast<int>(runtime::round_up(c, local0));
    return launch;
  }
  if (split == elementwise_split::column_vectors) r = ceil_div(r, static_cast<std::size_t>(vector_rows));
  if (split == elementwise_split::columns) c = ceil_div(c, items);
  if (split == elementwise_split::rows) r = ceil_div(r, items);
  // A short matrix (a row vector) gets its work-items along the columns instead of the rows,
  // so none idle.
  const std::size_t local0 = std::min(work_group, std::bit_ceil(r));
  const std::size_t local1 = std::min(work_group / local0, std::bit_ceil(c));
  // The columns' groups, balanced over the second and third dimensions so that few fall past
  // the last column (65536 columns as 65535 x 2 groups would launch twice the work).
  const std::size_t groups = ceil_div(c, local1);
  const std::size_t groups2 = ceil_div(groups, max_groups);
  const std::size_t groups1 = ceil_div(groups, groups2);
  elementwise_launch launch;
  launch.split = split;
  launch.range = {{runtime::round_up(r, local0), groups1 * local1, groups2}, {local0, local1, 1}, 3};
  // The launch's width along the split: the distance between one item's elements.
  if (split == elementwise_split::columns) launch.item_step = static_cast<int>(groups1 * local1 * groups2);
  if (split == elementwise_split::rows) launch.item_step = static_cast<int>(runtime::round_up(r, local0));
  return launch;
}

}  // namespace tessera::kernel_generator
