#include <tessera/runtime/device.hpp>
#include <tessera/runtime/error.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdlib>

#include <fmt/format.h>

namespace tessera::runtime {

std::string_view to_string(device_type type) {
  switch (type) {
    case device_type::gpu: return "GPU";
    case device_type::cpu: return "CPU";
    case device_type::accelerator: return "accelerator";
    default: return "other";
  }
}

std::string device_info::label() const {
  return fmt::format("{}:{} {} ({}, {})", platform_index, device_index, name, to_string(type),
                     platform_name);
}

namespace {

template <typename T, cl_device_info Info>
T query(const cl::Device& device) {
  T value{};
  check_cl(device.getInfo(Info, &value), "clGetDeviceInfo");
  return value;
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\0' || std::isspace(static_cast<unsigned char>(s.back()))))
    s.pop_back();
  return s;
}

device_type classify(cl_device_type type) {
  if (type & CL_DEVICE_TYPE_GPU) return device_type::gpu;
  if (type & CL_DEVICE_TYPE_CPU) return device_type::cpu;
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return device_type::accelerator;
  return device_type::other;
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string device_list(const std::vector<device_info>& devices) {
  if (devices.empty()) return "no OpenCL devices were found (is an ICD such as pocl-opencl-icd installed?)";
  std::string out = "devices found:";
  for (const auto& d : devices) out += "\n  " + d.label();
  return out;
}

}  // namespace

std::vector<device_info> list_devices() {
  std::vector<cl::Platform> platforms;
  cl_int status = cl::Platform::get(&platforms);
  // The ICD loader reports "no platform" as an error; it means an empty list here.
  if (status == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || platforms.empty()) return {};
  check_cl(status, "clGetPlatformIDs");

  std::vector<device_info> result;
  for (std::size_t p = 0; p < platforms.size(); ++p) {
    std::vector<cl::Device> devices;
    status = platforms[p].getDevices(CL_DEVICE_TYPE_ALL, &devices);
    if (status == CL_DEVICE_NOT_FOUND) continue;
    check_cl(status, "clGetDeviceIDs");
    std::string platform_name;
    check_cl(platforms[p].getInfo(CL_PLATFORM_NAME, &platform_name), "clGetPlatformInfo");
    for (std::size_t d = 0; d < devices.size(); ++d) {
      const cl::Device& dev = devices[d];
      device_info info;
      info.platform_index = p;
      info.device_index = d;
      info.platform_name = trim(platform_name);
      info.name = trim(query<std::string, CL_DEVICE_NAME>(dev));
      info.vendor = trim(query<std::string, CL_DEVICE_VENDOR>(dev));
      info.driver_version = trim(query<std::string, CL_DRIVER_VERSION>(dev));
      info.opencl_version = trim(query<std::string, CL_DEVICE_VERSION>(dev));
      info.type = classify(query<cl_device_type, CL_DEVICE_TYPE>(dev));
      info.compute_units = query<cl_uint, CL_DEVICE_MAX_COMPUTE_UNITS>(dev);
      info.global_memory_bytes = query<cl_ulong, CL_DEVICE_GLOBAL_MEM_SIZE>(dev);
      info.max_allocation_bytes = query<cl_ulong, CL_DEVICE_MAX_MEM_ALLOC_SIZE>(dev);
      info.local_memory_bytes = query<cl_ulong, CL_DEVICE_LOCAL_MEM_SIZE>(dev);
      info.max_work_group_size = query<std::size_t, CL_DEVICE_MAX_WORK_GROUP_SIZE>(dev);
      info.extensions = trim(query<std::string, CL_DEVICE_EXTENSIONS>(dev));
      info.has_fp64 = query<cl_device_fp_config, CL_DEVICE_DOUBLE_FP_CONFIG>(dev) != 0 ||
                      info.extensions.find("cl_khr_fp64") != std::string::npos;
      if (info.extensions.find("cl_nv_device_attribute_query") != std::string::npos) {
        cl_uint major = 0, minor = 0;
        constexpr cl_device_info compute_capability_major = 0x4000, compute_capability_minor = 0x4001;
        if (::clGetDeviceInfo(dev(), compute_capability_major, sizeof(major), &major, nullptr) == CL_SUCCESS &&
            ::clGetDeviceInfo(dev(), compute_capability_minor, sizeof(minor), &minor, nullptr) == CL_SUCCESS)
          info.nvidia_compute_capability = static_cast<int>(10 * major + minor);
      }
      info.handle = dev;
      result.push_back(std::move(info));
    }
  }
  return result;
}

const device_info& select_device(std::string_view spec, const std::vector<device_info>& devices,
                                 std::string_view source, std::size_t nth) {
  auto fail = [&](const std::string& why) -> const device_info& {
    throw device_selection_error(fmt::format("{}='{}': {}; {}", source, spec, why, device_list(devices)));
  };
  // The nth (in turn) of the devices that pass `matches`; null when none does.
  auto nth_of = [&](const auto& matches) -> const device_info* {
    std::vector<const device_info*> found;
    for (const auto& d : devices)
      if (matches(d)) found.push_back(&d);
    return found.empty() ? nullptr : found[nth % found.size()];
  };
  auto of_type = [&](device_type type) { return nth_of([&](const device_info& d) { return d.type == type; }); };
  if (devices.empty()) return fail("no device to choose from");

  const std::string wanted = lower(spec);
  if (wanted.empty()) {
    if (auto gpu = of_type(device_type::gpu)) return *gpu;
    if (auto cpu = of_type(device_type::cpu)) return *cpu;
    return devices[nth % devices.size()];
  }
  if (wanted == "gpu" || wanted == "cpu") {
    auto found = of_type(wanted == "gpu" ? device_type::gpu : device_type::cpu);
    return found ? *found : fail(fmt::format("there is no {} device", spec));
  }
  if (auto colon = wanted.find(':'); colon != std::string::npos) {
    std::size_t p = 0, d = 0;
    auto [pe, pec] = std::from_chars(wanted.data(), wanted.data() + colon, p);
    auto [de, dec] = std::from_chars(wanted.data() + colon + 1, wanted.data() + wanted.size(), d);
    if (pec == std::errc{} && dec == std::errc{} && pe == wanted.data() + colon &&
        de == wanted.data() + wanted.size()) {
      auto it = std::find_if(devices.begin(), devices.end(), [&](const auto& dev) {
        return dev.platform_index == p && dev.device_index == d;
      });
      return it != devices.end() ? *it : fail(fmt::format("there is no device {}:{}", p, d));
    }
  }
  auto named = nth_of([&](const device_info& d) { return lower(d.name).find(wanted) != std::string::npos; });
  return named != nullptr
             ? *named
             : fail("expected 'gpu', 'cpu', 'P:D' or part of a device name, and no device name contains it");
}

device_request device_request_from(std::string_view option_name, std::string_view option_value) {
  if (!option_value.empty()) return {std::string(option_value), std::string(option_name)};
  const char* spec = std::getenv("TESSERA_DEVICE");
  return {spec ? spec : "", "TESSERA_DEVICE"};
}

device_info select_device_from_environment() {
  const char* spec = std::getenv("TESSERA_DEVICE");
  return select_device(spec ? spec : "", list_devices());
}

std::string device_identity(const device_info& device) {
  const cl_device_id id = device.handle();
  const auto has = [&](const char* extension) { return device.extensions.find(extension) != std::string::npos; };
  if (id != nullptr && has("cl_khr_device_uuid")) {
    std::array<unsigned char, CL_UUID_SIZE_KHR> uuid{};
    if (::clGetDeviceInfo(id, CL_DEVICE_UUID_KHR, uuid.size(), uuid.data(), nullptr) == CL_SUCCESS) {
      std::string text = "uuid ";
      for (const unsigned char byte : uuid) text += fmt::format("{:02x}", byte);
      return text;
    }
  }
  if (id != nullptr && has("cl_nv_device_attribute_query")) {
    constexpr cl_device_info pci_bus = 0x4008, pci_slot = 0x4009, pci_domain = 0x400A;  // cl_nv_device_attribute_query
    cl_uint bus = 0, slot = 0, domain = 0;
    if (::clGetDeviceInfo(id, pci_bus, sizeof bus, &bus, nullptr) == CL_SUCCESS &&
        ::clGetDeviceInfo(id, pci_slot, sizeof slot, &slot, nullptr) == CL_SUCCESS &&
        ::clGetDeviceInfo(id, pci_domain, sizeof domain, &domain, nullptr) == CL_SUCCESS)
      return fmt::format("pci {:04x}:{:02x}:{:02x}", domain, bus, slot);
  }
  std::string text = device.label();
  for (const char* variable : {"CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ZE_AFFINITY_MASK"})
    if (const char* value = std::getenv(variable)) text += fmt::format(" {}={}", variable, value);
  return text;
}

void require_fp64(const device_info& device) {
  if (!device.has_fp64)
    throw unsupported_error(fmt::format(
        "double precision needs cl_khr_fp64, which device '{}' does not support; use float", device.name));
}

}  // namespace tessera::runtime
