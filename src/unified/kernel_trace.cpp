#include <tessera/unified/kernel_trace.hpp>
#include <tessera/unified/trace_error.hpp>

#include <algorithm>

#include <fmt/format.h>

namespace tessera::unified {

trace_error::trace_error(std::string program_name, std::string problem)
    : runtime::error(fmt::format("tessera::unified: cannot trace kernel '{}': {}", program_name, problem)),
      program_name_(std::move(program_name)),
      problem_(std::move(problem)) {}

kernel_trace::kernel_trace(std::string kernel_name, std::string program_name)
    : builder_(std::move(kernel_name)), program_name_(std::move(program_name)) {}

std::string kernel_trace::scalar_parameter(std::string_view type, std::string_view prefix) {
  ensure_recording();
  return builder_.add_scalar_parameter(type, builder_.fresh_name(prefix));
}

std::string kernel_trace::pointer_parameter(std::string_view element_type, bool is_const,
                                            codegen::address_space space, std::string_view prefix) {
  ensure_recording();
  return builder_.add_pointer_parameter(element_type, builder_.fresh_name(prefix), is_const, space);
}

std::string kernel_trace::constant(std::string_view type, std::string_view expression, std::string_view prefix) {
  ensure_recording();
  return builder_.declare_fresh(type, expression, prefix);
}

std::string kernel_trace::variable(std::string_view type, std::string_view initial, std::string_view prefix) {
  ensure_recording();
  return builder_.declare(type, builder_.fresh_name(prefix), initial);
}

void kernel_trace::statement(std::string_view text) {
  ensure_recording();
  builder_.statement(text);
}

void kernel_trace::comment(std::string_view text) { builder_.comment(text); }

std::string kernel_trace::fresh_name(std::string_view prefix) { return builder_.fresh_name(prefix); }

void kernel_trace::open_block(std::string_view header) {
  ensure_recording();
  builder_.open_block(header);
  open_scopes_.push_back(next_scope_++);
}

void kernel_trace::close_block() {
  ensure_recording();
  if (open_scopes_.size() <= 1) fail("a block was closed that was never opened");
  builder_.close_block();
  open_scopes_.pop_back();
}

void kernel_trace::check_visible(std::size_t declared_in) const {
  ensure_recording();
  if (std::find(open_scopes_.begin(), open_scopes_.end(), declared_in) == open_scopes_.end())
    fail("a value was used outside the if_/for_ block that computed it; declare it before the "
         "block with var(...) and assign it inside");
}

void kernel_trace::fail(std::string problem) const { throw trace_error(program_name_, std::move(problem)); }

std::string kernel_trace::finish() {
  ensure_recording();
  if (open_scopes_.size() != 1) fail(fmt::format("{} block(s) left open", open_scopes_.size() - 1));
  finished_ = true;
  return builder_.source();
}

void kernel_trace::ensure_recording() const {
  if (finished_)
    fail("a symbolic value was kept after its trace ended (stored outside the kernel lambda) and used "
         "again; kernels take data only through their arguments");
}

}  // namespace tessera::unified
