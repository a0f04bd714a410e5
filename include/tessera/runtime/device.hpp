#pragma once
// Device discovery across all OpenCL platforms and selection by TESSERA_DEVICE.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <tessera/runtime/opencl.hpp>

namespace tessera::runtime {

enum class device_type { gpu, cpu, accelerator, other };

std::string_view to_string(device_type type);

/// What tessera needs to know of a device, read once at discovery.
struct device_info {
  std::size_t platform_index = 0;
  std::size_t device_index = 0;
  std::string platform_name;
  std::string name;
  std::string vendor;
  std::string driver_version;
  std::string opencl_version;  // CL_DEVICE_VERSION
  device_type type = device_type::other;
  std::uint32_t compute_units = 0;
  std::uint64_t global_memory_bytes = 0;
  std::uint64_t max_allocation_bytes = 0;
  std::uint64_t local_memory_bytes = 0;
  std::size_t max_work_group_size = 0;
  bool has_fp64 = false;
  /// NVIDIA's compute capability as 10 * major + minor (90 for sm_90), read at discovery where
  /// the device has cl_nv_device_attribute_query; 0 elsewhere.
  int nvidia_compute_capability = 0;
  std::string extensions;
  cl::Device handle;  // null for descriptions built by hand (tests)

  /// "P:D name" as tessera-info and error messages print it.
  std::string label() const;
};

/// Every device of every platform, in platform then device order.
std::vector<device_info> list_devices();

/// Picks a device by specification: "" (default: the first GPU, else the first CPU,
/// else the first device), "gpu", "cpu", "P:D", or a case-insensitive substring of the
/// device name. Throws device_selection_error listing the devices when nothing matches,
/// naming source, where the specification came from ("TESSERA_DEVICE", "--device").
/// nth: the nth of the devices the specification matches, counted in turn (nth modulo their
/// number; "" matches every GPU, else every CPU): the ranks of an MPI job on one host each
/// take one of its GPUs with their local rank.
const device_info& select_device(std::string_view spec, const std::vector<device_info>& devices,
                                 std::string_view source = "TESSERA_DEVICE", std::size_t nth = 0);

/// A device specification and where it came from, so that errors blame the right one.
struct device_request {
  std::string spec;
  std::string source;  // "--device", "TESSERA_DEVICE"
};

/// A tool's device option (option_value of option_name, e.g. "--device") when given, else
/// TESSERA_DEVICE.
device_request device_request_from(std::string_view option_name, std::string_view option_value);

/// select_device with the value of TESSERA_DEVICE over list_devices().
device_info select_device_from_environment();

/// What tells a device apart from the other devices of its host, whatever each process is
/// allowed to see of them: its UUID (cl_khr_device_uuid), else NVIDIA's PCI address, else its
/// index and name with the variables that choose which GPUs a process sees (processes that each
/// see "their" GPU as 0:0 under srun --gpus-per-task hold different GPUs).
std::string device_identity(const device_info& device);

/// Throws unsupported_error unless the device computes in double precision.
void require_fp64(const device_info& device);

}  // namespace tessera::runtime
