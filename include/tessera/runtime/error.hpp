#pragma once
// Errors: each type carries what the user needs to fix the problem.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

#include <CL/cl.h>

namespace tessera::runtime {

/// Base of every error tessera throws.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The symbolic name of an OpenCL status code ("CL_OUT_OF_RESOURCES" for -5).
std::string_view cl_error_name(cl_int code);

/// An OpenCL call returned a failure status; what() names the call and the status.
class opencl_error : public error {
 public:
  opencl_error(std::string call, cl_int code, std::string_view detail = {});
  const std::string& call() const noexcept { return call_; }
  cl_int code() const noexcept { return code_; }
  std::string_view code_name() const noexcept { return cl_error_name(code_); }

 private:
  std::string call_;
  cl_int code_;
};

/// The device cannot hold an allocation (checked before the call where possible).
class out_of_memory_error : public opencl_error {
 public:
  out_of_memory_error(std::string call, cl_int code, std::size_t requested_bytes,
                      std::string_view detail);
  std::size_t requested_bytes() const noexcept { return requested_bytes_; }

 private:
  std::size_t requested_bytes_;
};

/// An OpenCL program failed to build; carries the program's name and the build log.
class build_error : public error {
 public:
  build_error(std::string program_name, std::string device_name, std::string options,
              std::string build_log);
  const std::string& program_name() const noexcept { return program_name_; }
  const std::string& build_log() const noexcept { return build_log_; }
  const std::string& options() const noexcept { return options_; }

 private:
  std::string program_name_;
  std::string options_;
  std::string build_log_;
};

/// TESSERA_DEVICE (or an explicit device specification) matches no device.
class device_selection_error : public error {
 public:
  using error::error;
};

/// The device lacks a capability the operation needs (e.g. fp64 for double).
class unsupported_error : public error {
 public:
  using error::error;
};

/// An argument is invalid (negative size, wrong host buffer length, shapes that disagree).
class argument_error : public error {
 public:
  using error::error;
};

/// Throws opencl_error (or out_of_memory_error for allocation failures) unless code is CL_SUCCESS.
void check_cl(cl_int code, const char* call);

}  // namespace tessera::runtime

namespace tessera {
using runtime::argument_error;
using runtime::build_error;
using runtime::device_selection_error;
using runtime::error;
using runtime::opencl_error;
using runtime::out_of_memory_error;
using runtime::unsupported_error;
}  // namespace tessera
