#include <tessera/runtime/error.hpp>

#include <fmt/format.h>

namespace tessera::runtime {

std::string_view cl_error_name(cl_int code) {
  switch (code) {
#define TESSERA_CL_ERROR(name) \
  case name:                   \
    return #name;
    TESSERA_CL_ERROR(CL_SUCCESS)
    TESSERA_CL_ERROR(CL_DEVICE_NOT_FOUND)
    TESSERA_CL_ERROR(CL_DEVICE_NOT_AVAILABLE)
    TESSERA_CL_ERROR(CL_COMPILER_NOT_AVAILABLE)
    TESSERA_CL_ERROR(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    TESSERA_CL_ERROR(CL_OUT_OF_RESOURCES)
    TESSERA_CL_ERROR(CL_OUT_OF_HOST_MEMORY)
    TESSERA_CL_ERROR(CL_PROFILING_INFO_NOT_AVAILABLE)
    TESSERA_CL_ERROR(CL_MEM_COPY_OVERLAP)
    TESSERA_CL_ERROR(CL_IMAGE_FORMAT_MISMATCH)
    TESSERA_CL_ERROR(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    TESSERA_CL_ERROR(CL_BUILD_PROGRAM_FAILURE)
    TESSERA_CL_ERROR(CL_MAP_FAILURE)
    TESSERA_CL_ERROR(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    TESSERA_CL_ERROR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    TESSERA_CL_ERROR(CL_COMPILE_PROGRAM_FAILURE)
    TESSERA_CL_ERROR(CL_LINKER_NOT_AVAILABLE)
    TESSERA_CL_ERROR(CL_LINK_PROGRAM_FAILURE)
    TESSERA_CL_ERROR(CL_DEVICE_PARTITION_FAILED)
    TESSERA_CL_ERROR(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    TESSERA_CL_ERROR(CL_INVALID_VALUE)
    TESSERA_CL_ERROR(CL_INVALID_DEVICE_TYPE)
    TESSERA_CL_ERROR(CL_INVALID_PLATFORM)
    TESSERA_CL_ERROR(CL_INVALID_DEVICE)
    TESSERA_CL_ERROR(CL_INVALID_CONTEXT)
    TESSERA_CL_ERROR(CL_INVALID_QUEUE_PROPERTIES)
    TESSERA_CL_ERROR(CL_INVALID_COMMAND_QUEUE)
    TESSERA_CL_ERROR(CL_INVALID_HOST_PTR)
    TESSERA_CL_ERROR(CL_INVALID_MEM_OBJECT)
    TESSERA_CL_ERROR(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    TESSERA_CL_ERROR(CL_INVALID_IMAGE_SIZE)
    TESSERA_CL_ERROR(CL_INVALID_SAMPLER)
    TESSERA_CL_ERROR(CL_INVALID_BINARY)
    TESSERA_CL_ERROR(CL_INVALID_BUILD_OPTIONS)
    TESSERA_CL_ERROR(CL_INVALID_PROGRAM)
    TESSERA_CL_ERROR(CL_INVALID_PROGRAM_EXECUTABLE)
    TESSERA_CL_ERROR(CL_INVALID_KERNEL_NAME)
    TESSERA_CL_ERROR(CL_INVALID_KERNEL_DEFINITION)
    TESSERA_CL_ERROR(CL_INVALID_KERNEL)
    TESSERA_CL_ERROR(CL_INVALID_ARG_INDEX)
    TESSERA_CL_ERROR(CL_INVALID_ARG_VALUE)
    TESSERA_CL_ERROR(CL_INVALID_ARG_SIZE)
    TESSERA_CL_ERROR(CL_INVALID_KERNEL_ARGS)
    TESSERA_CL_ERROR(CL_INVALID_WORK_DIMENSION)
    TESSERA_CL_ERROR(CL_INVALID_WORK_GROUP_SIZE)
    TESSERA_CL_ERROR(CL_INVALID_WORK_ITEM_SIZE)
    TESSERA_CL_ERROR(CL_INVALID_GLOBAL_OFFSET)
    TESSERA_CL_ERROR(CL_INVALID_EVENT_WAIT_LIST)
    TESSERA_CL_ERROR(CL_INVALID_EVENT)
    TESSERA_CL_ERROR(CL_INVALID_OPERATION)
    TESSERA_CL_ERROR(CL_INVALID_GL_OBJECT)
    TESSERA_CL_ERROR(CL_INVALID_BUFFER_SIZE)
    TESSERA_CL_ERROR(CL_INVALID_MIP_LEVEL)
    TESSERA_CL_ERROR(CL_INVALID_GLOBAL_WORK_SIZE)
    TESSERA_CL_ERROR(CL_INVALID_PROPERTY)
    TESSERA_CL_ERROR(CL_INVALID_IMAGE_DESCRIPTOR)
    TESSERA_CL_ERROR(CL_INVALID_COMPILER_OPTIONS)
    TESSERA_CL_ERROR(CL_INVALID_LINKER_OPTIONS)
    TESSERA_CL_ERROR(CL_INVALID_DEVICE_PARTITION_COUNT)
    TESSERA_CL_ERROR(CL_INVALID_PIPE_SIZE)
    TESSERA_CL_ERROR(CL_INVALID_DEVICE_QUEUE)
    TESSERA_CL_ERROR(CL_INVALID_SPEC_ID)
    TESSERA_CL_ERROR(CL_MAX_SIZE_RESTRICTION_EXCEEDED)
#undef TESSERA_CL_ERROR
    case -1001:
      return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
      return "unknown OpenCL status";
  }
}

namespace {
std::string describe(const std::string& call, cl_int code, std::string_view detail) {
  std::string message = fmt::format("{} failed: {} ({})", call, cl_error_name(code), code);
  if (!detail.empty()) message += fmt::format(": {}", detail);
  return message;
}
}  // namespace

opencl_error::opencl_error(std::string call, cl_int code, std::string_view detail)
    : error(describe(call, code, detail)), call_(std::move(call)), code_(code) {}

out_of_memory_error::out_of_memory_error(std::string call, cl_int code, std::size_t requested_bytes,
                                         std::string_view detail)
    : opencl_error(std::move(call), code,
                   fmt::format("out of device memory: {} bytes requested; {}", requested_bytes, detail)),
      requested_bytes_(requested_bytes) {}

build_error::build_error(std::string program_name, std::string device_name, std::string options,
                         std::string build_log)
    : error(fmt::format("failed to build OpenCL program '{}' for device '{}' with options '{}':\n{}",
                        program_name, device_name, options, build_log)),
      program_name_(std::move(program_name)),
      options_(std::move(options)),
      build_log_(std::move(build_log)) {}

void check_cl(cl_int code, const char* call) {
  if (code == CL_SUCCESS) return;
  if (code == CL_MEM_OBJECT_ALLOCATION_FAILURE || code == CL_OUT_OF_HOST_MEMORY)
    throw out_of_memory_error(call, code, 0, "the device could not provide the memory");
  throw opencl_error(call, code);
}

}  // namespace tessera::runtime
