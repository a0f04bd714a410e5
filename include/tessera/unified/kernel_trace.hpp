#pragma once
// The recorder of one traced kernel. A trace is created for each (lambda, argument types) the
// first time it runs on an OpenCL device, and every symbolic value it hands out holds a
// shared_ptr to it: there is no global recorder, so traces on different threads never meet.
// All OpenCL C goes through codegen::kernel_builder; the trace adds scopes (which block
// declared a value) so that a value escaping its block is a trace_error, not a build error.
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <tessera/codegen/kernel_builder.hpp>
#include <tessera/codegen/type_names.hpp>
#include <tessera/unified/trace_error.hpp>

namespace tessera::unified {

class kernel_trace {
 public:
  /// program_name names the kernel in errors and in TESSERA_SHOW_KERNELS output.
  kernel_trace(std::string kernel_name, std::string program_name);
  kernel_trace(const kernel_trace&) = delete;
  kernel_trace& operator=(const kernel_trace&) = delete;

  const std::string& kernel_name() const noexcept { return builder_.kernel_name(); }
  const std::string& program_name() const noexcept { return program_name_; }

  /// OpenCL C name of T; remembers that the kernel needs fp64 when T is double.
  template <typename T>
  std::string_view type_name() {
    if constexpr (codegen::needs_fp64<T>()) uses_fp64_ = true;
    return codegen::opencl_type_name<T>();
  }
  /// Notes that the kernel needs fp64 (a double literal, say).
  void require_fp64() noexcept { uses_fp64_ = true; }
  bool uses_fp64() const noexcept { return uses_fp64_; }

  /// A by-value parameter named prefixN.
  std::string scalar_parameter(std::string_view type, std::string_view prefix);
  /// A pointer parameter `space [const] type* prefixN`.
  std::string pointer_parameter(std::string_view element_type, bool is_const, codegen::address_space space,
                                std::string_view prefix);

  /// `const type vN = expression;` in the current block; returns vN.
  std::string constant(std::string_view type, std::string_view expression, std::string_view prefix = "v");
  /// `type vN = initial;` (a mutable variable) in the current block; returns vN.
  std::string variable(std::string_view type, std::string_view initial, std::string_view prefix = "v");
  /// Any complete statement.
  void statement(std::string_view text);
  void comment(std::string_view text);
  /// A name not used before in this kernel.
  std::string fresh_name(std::string_view prefix);

  /// `header {`: opens a block, which is a new scope.
  void open_block(std::string_view header);
  void close_block();
  /// The innermost open block (0: the kernel's body).
  std::size_t scope() const noexcept { return open_scopes_.back(); }
  /// Throws trace_error unless a value declared in `declared_in` is visible in the current block.
  void check_visible(std::size_t declared_in) const;

  /// Throws trace_error naming the problem, with this kernel's name.
  [[noreturn]] void fail(std::string problem) const;

  /// Ends recording and returns the whole program; throws trace_error if a block is still
  /// open. Symbolic values that outlive the trace then fail instead of recording into nothing.
  std::string finish();
  bool finished() const noexcept { return finished_; }

 private:
  codegen::kernel_builder builder_;
  std::string program_name_;
  std::vector<std::size_t> open_scopes_{0};
  std::size_t next_scope_ = 1;
  bool uses_fp64_ = false;
  bool finished_ = false;

  void ensure_recording() const;
};

}  // namespace tessera::unified
