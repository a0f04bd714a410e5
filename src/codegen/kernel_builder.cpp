#include <tessera/codegen/kernel_builder.hpp>
#include <tessera/runtime/error.hpp>

#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace tessera::codegen {

kernel_builder::kernel_builder(std::string kernel_name) : kernel_name_(std::move(kernel_name)) {}

std::string kernel_builder::fresh_name(std::string_view prefix) {
  auto it = name_counters_.find(prefix);
  if (it == name_counters_.end()) it = name_counters_.emplace(std::string(prefix), 0).first;
  return fmt::format("{}{}", prefix, ++it->second);
}

void kernel_builder::enable_fp64() { fp64_ = true; }

void kernel_builder::define(std::string_view name, std::string_view value) {
  for (const auto& [n, v] : defines_)
    if (n == name) return;
  defines_.emplace_back(std::string(name), std::string(value));
}

void kernel_builder::add_helper(std::string_view key, std::string_view code) {
  if (helpers_.find(key) != helpers_.end()) return;
  helpers_.emplace(std::string(key), std::string(code));
  helper_keys_.emplace_back(key);
}

std::string kernel_builder::add_scalar_parameter(std::string_view type, std::string_view name) {
  if (type == "double") enable_fp64();
  parameters_.push_back(fmt::format("{} {}", type, name));
  return std::string(name);
}

std::string kernel_builder::add_pointer_parameter(std::string_view element_type, std::string_view name,
                                                  bool is_const, address_space space, bool no_alias) {
  if (element_type == "double") enable_fp64();
  const char* qualifier = space == address_space::global ? "global" : space == address_space::local ? "local" : "constant";
  parameters_.push_back(
      fmt::format("{} {}{}* {}{}", qualifier, is_const ? "const " : "", element_type, no_alias ? "restrict " : "", name));
  return std::string(name);
}

std::string kernel_builder::declare(std::string_view type, std::string_view name, std::string_view init) {
  if (type == "double") enable_fp64();
  if (init.empty()) statement(fmt::format("{} {}", type, name));
  else statement(fmt::format("{} {} = {}", type, name, init));
  return std::string(name);
}

std::string kernel_builder::declare_fresh(std::string_view type, std::string_view init, std::string_view prefix) {
  const std::string name = fresh_name(prefix);
  if (type == "double") enable_fp64();
  statement(fmt::format("const {} {} = {}", type, name, init));
  return name;
}

void kernel_builder::assign(std::string_view target, std::string_view value, std::string_view op) {
  statement(fmt::format("{} {} {}", target, op, value));
}

void kernel_builder::statement(std::string_view text) {
  body_.append(2 * depth_, ' ');
  body_ += text;
  if (text.empty() || (text.back() != ';' && text.back() != '}')) body_ += ';';
  body_ += '\n';
}

void kernel_builder::comment(std::string_view text) {
  body_.append(2 * depth_, ' ');
  body_ += fmt::format("// {}\n", text);
}

void kernel_builder::open_block(std::string_view header) {
  body_.append(2 * depth_, ' ');
  body_ += fmt::format("{} {{\n", header);
  ++depth_;
}

void kernel_builder::else_block() {
  if (depth_ <= 1) throw runtime::error("kernel_builder: else_block outside a block");
  body_.append(2 * (depth_ - 1), ' ');
  body_ += "} else {\n";
}

void kernel_builder::close_block() {
  if (depth_ <= 1) throw runtime::error("kernel_builder: close_block without an open block");
  --depth_;
  body_.append(2 * depth_, ' ');
  body_ += "}\n";
}

void kernel_builder::require_work_group_size(std::size_t x, std::size_t y, std::size_t z) {
  work_group_attribute_ = x == 0 ? "" : fmt::format("__attribute__((reqd_work_group_size({}, {}, {}))) ", x, y, z);
}

std::string kernel_builder::source() const {
  if (depth_ != 1)
    throw runtime::error(fmt::format("kernel_builder: kernel '{}' has {} unclosed block(s)", kernel_name_, depth_ - 1));
  std::string out;
  if (fp64_) out += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
  for (const auto& [name, value] : defines_) out += fmt::format("#define {} {}\n", name, value);
  for (const auto& key : helper_keys_) {
    out += helpers_.find(key)->second;
    if (out.back() != '\n') out += '\n';
  }
  if (!out.empty()) out += '\n';
  out += fmt::format("{}kernel void {}(", work_group_attribute_, kernel_name_);
  for (std::size_t i = 0; i < parameters_.size(); ++i)
    out += fmt::format("{}\n    {}", i == 0 ? "" : ",", parameters_[i]);
  out += ") {\n";
  out += body_;
  out += "}\n";
  return out;
}

std::string kernel_builder::function_source(std::string_view leading, std::string_view result) const {
  if (depth_ != 1)
    throw runtime::error(fmt::format("kernel_builder: function '{}' has {} unclosed block(s)", kernel_name_, depth_ - 1));
  std::string out;
  if (fp64_) out += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
  for (const auto& [name, value] : defines_) out += fmt::format("#define {} {}\n", name, value);
  for (const auto& key : helper_keys_) {
    out += helpers_.find(key)->second;
    if (out.back() != '\n') out += '\n';
  }
  out += fmt::format("inline {} {}({}", result, kernel_name_, leading);
  for (std::size_t i = 0; i < parameters_.size(); ++i)
    out += fmt::format("{}\n    {}", i == 0 && leading.empty() ? "" : ",", parameters_[i]);
  out += ") {\n";
  out += body_;
  out += "}\n";
  return out;
}

std::vector<std::string> kernel_builder::parameter_names() const {
  std::vector<std::string> names;
  for (const std::string& p : parameters_) names.push_back(p.substr(p.find_last_of(" *") + 1));
  return names;
}

std::string float_literal(double value, bool single_precision) {
  if (std::isnan(value)) return single_precision ? "NAN" : "(double)NAN";
  if (std::isinf(value)) return value > 0 ? (single_precision ? "INFINITY" : "(double)INFINITY")
                                          : (single_precision ? "(-INFINITY)" : "(-(double)INFINITY)");
  // max_digits10 round-trips the exact value; hexadecimal would too but reads worse in golden files.
  std::string text = single_precision ? fmt::format("{:.{}g}", static_cast<float>(value), std::numeric_limits<float>::max_digits10)
                                      : fmt::format("{:.{}g}", value, std::numeric_limits<double>::max_digits10);
  if (text.find_first_of(".eE") == std::string::npos) text += ".0";
  if (single_precision) text += 'f';
  if (text.front() == '-') text = "(" + text + ")";
  return text;
}

}  // namespace tessera::codegen
