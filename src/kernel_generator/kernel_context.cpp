#include <tessera/kernel_generator/kernel_context.hpp>
#include <tessera/runtime/error.hpp>
#include <tessera/runtime/matrix_view.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace tessera::kernel_generator {

std::string element_index(std::string_view i, std::string_view j, std::string_view rows) {
  return fmt::format("{} + (long){} * {}", i, j, rows);
}

std::string element_of(const matrix_parameter& m, std::string_view i, std::string_view j) {
  return fmt::format("{}[{}]", m.buffer, element_index(i, j, m.rows));
}

std::string masked_by_view(const matrix_parameter& m, std::string_view i, std::string_view j,
                           std::string_view loaded) {
  return fmt::format("{} ? {} : 0", runtime::opencl_view_test(m.view, i, j), loaded);
}

std::string cast_to(std::string_view type, std::string_view value) { return fmt::format("({}){}", type, value); }

void kernel_context::declare_matrix(const void* matrix, std::string_view type, bool written, bool masked) {
  if (matrices_.count(matrix) != 0) return;
  const std::string name = builder_.fresh_name("m");
  // restrict holds within a generated kernel: distinct matrices own distinct buffers, and one
  // matrix is one parameter.
  builder_.add_pointer_parameter(type, name, !written, codegen::address_space::global, restrict_matrices_);
  matrix_parameter p{name, builder_.add_scalar_parameter("int", name + "_rows"),
                     builder_.add_scalar_parameter("int", name + "_view"), masked};
  matrix_parameter one_row = p;
  one_row.rows = "1";
  one_row_matrices_.emplace(matrix, std::move(one_row));
  matrices_.emplace(matrix, std::move(p));
}

void kernel_context::declare_scalar(const void* node, std::string_view type) {
  if (scalars_.count(node) != 0) return;
  scalars_.emplace(node, builder_.add_scalar_parameter(type, builder_.fresh_name("s")));
}

void kernel_context::integer(const void* node, std::string_view role, index_t) {
  auto key = std::make_pair(node, std::string(role));
  if (node != nullptr && integers_.count(key) != 0) return;
  integers_.emplace(std::move(key), builder_.add_scalar_parameter(
                                        "int", node == nullptr ? std::string(role) : builder_.fresh_name(role)));
}

const matrix_parameter& kernel_context::matrix_parameter_of(const void* matrix) const {
  const auto& matrices = one_row_ ? one_row_matrices_ : matrices_;
  auto found = matrices.find(matrix);
  if (found == matrices.end()) throw runtime::error("kernel generator: a matrix was not declared as a parameter");
  return found->second;
}

void kernel_context::emit_for_one_row_and_any(const std::function<void()>& emit) { emit_if_one_row("", emit, emit); }

void kernel_context::emit_if_one_row(std::string_view condition, const std::function<void()>& one_row,
                                     const std::function<void()>& otherwise) {
  std::string test;
  for (const auto& [matrix, p] : matrices_) test += (test.empty() ? "" : " && ") + p.rows + " == 1";
  if (!condition.empty()) test += (test.empty() ? "" : " && ") + std::string(condition);
  open_scope("if (" + (test.empty() ? std::string("1") : test) + ")");
  one_row_ = true;
  one_row();
  one_row_ = false;
  close_scope();
  open_scope("else");
  otherwise();
  close_scope();
}

namespace {
// The element types that have OpenCL vector types (codegen::opencl_type_name's, but bool).
bool has_vectors(std::string_view type) {
  for (const std::string_view t : {"float", "double", "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong"})
    if (type == t) return true;
  return false;
}
}  // namespace

void kernel_context::begin_row_vector(std::string base, std::vector<std::string> rows) {
  vector_base_ = std::move(base);
  vector_lanes_ = std::move(rows);
  along_columns_ = false;
}

void kernel_context::begin_column_vector(std::string base, std::vector<std::string> cols) {
  vector_base_ = std::move(base);
  vector_lanes_ = std::move(cols);
  along_columns_ = true;
}

void kernel_context::end_row_vector() {
  // Rows never given (no expression stores a matrix at some of the rows: not generated today)
  // leave their elements as they were; the given ones are stored one by one.
  for (const auto& [key, store] : pending_stores_)
    for (std::size_t u = 0; u < store.lanes.size(); ++u)
      if (!store.lanes[u].empty()) builder_.assign(store.elements[u], store.lanes[u]);
  pending_stores_.clear();
  vector_base_.clear();
  vector_lanes_.clear();
  along_columns_ = false;
}

int kernel_context::vector_lane(const matrix_parameter& p, std::string_view type, std::string_view i,
                                std::string_view j) const {
  if (vector_lanes_.empty() || p.masked || !has_vectors(type)) return -1;
  const auto at = std::find(vector_lanes_.begin(), vector_lanes_.end(), along_columns_ ? j : i);
  return at == vector_lanes_.end() ? -1 : static_cast<int>(at - vector_lanes_.begin());
}

std::string kernel_context::vector_type(std::string_view type) const {
  return fmt::format("{}{}", type, vector_lanes_.size());
}

std::string kernel_context::vector_lvalue(const matrix_parameter& p, std::string_view type, std::string_view i,
                                          std::string_view j, bool written) const {
  // Aligned: the base row and the matrix's rows are multiples of the lanes (a column vector's:
  // the base column, in one-row matrices), and a buffer starts at CL_DEVICE_MEM_BASE_ADDR_ALIGN,
  // at least the largest vector type's size.
  return fmt::format("*(global {}{}*)({} + ({}))", written ? "" : "const ", vector_type(type), p.buffer,
                     along_columns_ ? element_index(i, vector_base_, p.rows) : element_index(vector_base_, j, p.rows));
}

std::string kernel_context::vector_element(const matrix_parameter& p, std::string_view fixed,
                                           std::string_view lane) const {
  return along_columns_ ? element_of(p, fixed, lane) : element_of(p, lane, fixed);
}

std::string kernel_context::load_element(const matrix_parameter& p, std::string_view type, std::string_view i,
                                         std::string_view j) {
  const int lane = vector_lane(p, type, i, j);
  if (lane < 0) return element_of(p, i, j);
  // One load per matrix and column (row), remembered in the scope like any value (the
  // parameter's address identifies the matrix; the key cannot name a row or a column).
  const std::string key = (along_columns_ ? "column vector of " : "vector of ") + vector_base_;
  const std::string_view fixed = vector_fixed(i, j);
  const std::string* loaded = find(&p, key, fixed);
  if (loaded == nullptr) {
    remember(&p, key, fixed,
             builder_.declare_fresh(vector_type(type), vector_lvalue(p, type, i, j, false), "v"));
    loaded = find(&p, key, fixed);
  }
  return fmt::format("{}.s{:x}", *loaded, lane);
}

void kernel_context::store_element(const matrix_parameter& p, std::string_view type, std::string_view i,
                                   std::string_view j, std::string_view value) {
  const int lane = vector_lane(p, type, i, j);
  if (lane < 0) {
    builder_.assign(element_of(p, i, j), cast_to(type, value));
    return;
  }
  const std::string fixed(vector_fixed(i, j));
  pending_store& store = pending_stores_[{p.buffer, fixed}];
  if (store.lanes.empty()) {
    store.target = vector_lvalue(p, type, i, j, true);
    store.lanes.resize(vector_lanes_.size());
    for (const std::string& name : vector_lanes_) store.elements.push_back(vector_element(p, fixed, name));
  }
  store.lanes[static_cast<std::size_t>(lane)] = cast_to(type, value);
  if (std::any_of(store.lanes.begin(), store.lanes.end(), [](const std::string& v) { return v.empty(); })) return;
  std::string lanes;
  for (const std::string& v : store.lanes) lanes += (lanes.empty() ? "" : ", ") + v;
  builder_.assign(store.target, fmt::format("({})({})", vector_type(type), lanes));
  pending_stores_.erase({p.buffer, fixed});
}

const std::string& kernel_context::scalar_parameter_of(const void* node) const {
  auto found = scalars_.find(node);
  if (found == scalars_.end()) throw runtime::error("kernel generator: a scalar was not declared as a parameter");
  return found->second;
}

const std::string& kernel_context::integer_parameter_of(const void* node, std::string_view role) const {
  auto found = integers_.find(std::make_pair(node, std::string(role)));
  if (found == integers_.end())
    throw runtime::error(fmt::format("kernel generator: parameter '{}' was not declared", role));
  return found->second;
}

const std::string* kernel_context::find(const void* identity, std::string_view i, std::string_view j) const {
  for (auto v = values_.rbegin(); v != values_.rend(); ++v)
    if (v->identity == identity && v->i == i && v->j == j) return &v->value;
  return nullptr;
}

void kernel_context::remember(const void* identity, std::string_view i, std::string_view j, std::string value) {
  values_.push_back({identity, std::string(i), std::string(j), std::move(value)});
}

void kernel_context::open_scope(std::string_view header) {
  builder_.open_block(header);
  scope_starts_.push_back(values_.size());
}

void kernel_context::close_scope() {
  if (scope_starts_.empty()) throw runtime::error("kernel generator: close_scope without open_scope");
  values_.resize(scope_starts_.back());
  scope_starts_.pop_back();
  builder_.close_block();
}

}  // namespace tessera::kernel_generator
