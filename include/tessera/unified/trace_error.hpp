#pragma once
// The error of a kernel lambda that cannot be traced into OpenCL C.
#include <string>

#include <tessera/runtime/error.hpp>

namespace tessera::unified {

/// Thrown while a kernel lambda is traced, when it does something the tracer cannot record
/// faithfully (a value used outside the block that declared it, values of two traces mixed,
/// a value of a finished trace). The kernel is never built: no wrong kernel runs.
class trace_error : public runtime::error {
 public:
  trace_error(std::string program_name, std::string problem);
  /// The traced kernel: its kind and the lambda's type.
  const std::string& program_name() const noexcept { return program_name_; }
  /// What went wrong, without the kernel's name.
  const std::string& problem() const noexcept { return problem_; }

 private:
  std::string program_name_;
  std::string problem_;
};

}  // namespace tessera::unified
