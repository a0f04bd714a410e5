#pragma once
// The one place that writes OpenCL C. Front doors (kernel generator, unified kernels,
// Tile) describe a kernel through kernel_builder: unique names, parameters, statements
// and blocks, helper functions emitted once. None of them concatenates a whole kernel.
#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <tessera/codegen/type_names.hpp>

namespace tessera::codegen {

/// Address space of a pointer parameter.
enum class address_space { global, local, constant };

class kernel_builder {
 public:
  explicit kernel_builder(std::string kernel_name);

  const std::string& kernel_name() const noexcept { return kernel_name_; }

  /// A name not used before in this kernel: prefix followed by a counter ("v1", "v2").
  std::string fresh_name(std::string_view prefix = "v");

  /// Adds `#pragma OPENCL EXTENSION cl_khr_fp64 : enable` (once).
  void enable_fp64();
  /// Emits a #define before everything else (once per name).
  void define(std::string_view name, std::string_view value);
  /// Emits a helper (function, macro) before the kernel, once per key.
  void add_helper(std::string_view key, std::string_view code);

  /// A by-value parameter; returns its name.
  std::string add_scalar_parameter(std::string_view type, std::string_view name);
  /// A pointer parameter `global [const] type* name`; returns its name. no_alias adds
  /// `restrict`: only where no other parameter can point into the same buffer.
  std::string add_pointer_parameter(std::string_view element_type, std::string_view name, bool is_const,
                                    address_space space = address_space::global, bool no_alias = false);
  template <typename T>
  std::string add_scalar_parameter(std::string_view name) {
    if constexpr (needs_fp64<T>()) enable_fp64();
    return add_scalar_parameter(opencl_type_name<T>(), name);
  }
  template <typename T>
  std::string add_pointer_parameter(std::string_view name, bool is_const) {
    if constexpr (needs_fp64<T>()) enable_fp64();
    return add_pointer_parameter(opencl_type_name<T>(), name, is_const);
  }

  /// `type name = init;` (or `type name;` with an empty init); returns name.
  std::string declare(std::string_view type, std::string_view name, std::string_view init = {});
  /// `const type name = init;` under a fresh name with the prefix; returns the name.
  std::string declare_fresh(std::string_view type, std::string_view init, std::string_view prefix = "v");
  /// `target op value;` with op one of = += -= *= /= ...
  void assign(std::string_view target, std::string_view value, std::string_view op = "=");
  /// Any complete statement; a trailing ';' is added when missing.
  void statement(std::string_view text);
  /// A comment line in the kernel body.
  void comment(std::string_view text);

  /// `header {` ... `}`: e.g. open_block("if (i < n)"), open_block("for (int k = 0; k < n; ++k)").
  void open_block(std::string_view header);
  /// `} else {` inside the innermost block.
  void else_block();
  void close_block();
  std::size_t depth() const noexcept { return depth_; }

  /// Sets the __attribute__((reqd_work_group_size(...))) of the kernel (empty: none).
  void require_work_group_size(std::size_t x, std::size_t y = 1, std::size_t z = 1);

  /// The whole program: pragmas, defines, helpers in order of first use, the kernel.
  /// Throws tessera::error if a block is still open.
  std::string source() const;
  /// The same code as a function to be spliced into another program (a GEMM's store step):
  /// pragmas, defines and helpers, then `inline <result> <kernel name>(leading, parameters...)`.
  /// leading: the function's own first parameters ("const float value, const int i").
  std::string function_source(std::string_view leading, std::string_view result = "void") const;
  /// The parameters' declarations and names, in order (to pass them along).
  const std::vector<std::string>& parameter_declarations() const noexcept { return parameters_; }
  std::vector<std::string> parameter_names() const;

 private:
  std::string kernel_name_;
  bool fp64_ = false;
  std::vector<std::pair<std::string, std::string>> defines_;
  std::vector<std::string> helper_keys_;
  std::map<std::string, std::string, std::less<>> helpers_;
  std::vector<std::string> parameters_;
  std::string body_;
  std::size_t depth_ = 1;
  std::map<std::string, std::size_t, std::less<>> name_counters_;
  std::string work_group_attribute_;
};

/// A floating literal of T as OpenCL C reads it exactly ("0.5f", "0.1").
std::string float_literal(double value, bool single_precision);

}  // namespace tessera::codegen
