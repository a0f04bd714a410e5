// tessera-info: the OpenCL platforms and devices tessera sees, the selected one marked.
#include <tessera/runtime/context.hpp>
#include <tessera/runtime/device.hpp>
#include <tessera/runtime/error.hpp>
#include <tessera/runtime/program_cache.hpp>

#include <cstdlib>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace rt = tessera::runtime;

int main(int argc, char** argv) {
  CLI::App app{"List the OpenCL devices tessera can use; the one TESSERA_DEVICE selects is marked."};
  bool as_json = false;
  std::string device_spec;
  app.add_flag("--json", as_json, "print JSON instead of a table");
  app.add_option("--device", device_spec, "device to mark instead of TESSERA_DEVICE ('gpu', 'cpu', 'P:D', name part)");
  CLI11_PARSE(app, argc, argv);

  try {
    const auto devices = rt::list_devices();
    if (device_spec.empty())
      if (const char* env = std::getenv("TESSERA_DEVICE")) device_spec = env;
    const rt::device_info* selected = devices.empty() ? nullptr : &rt::select_device(device_spec, devices);
    const auto cache_dir = rt::disk_cache_directory_from_environment();

    if (as_json) {
      nlohmann::json out;
      out["cache_directory"] = cache_dir ? cache_dir->string() : nullptr;
      out["devices"] = nlohmann::json::array();
      for (const auto& d : devices) {
        out["devices"].push_back({{"platform_index", d.platform_index},
                                  {"device_index", d.device_index},
                                  {"platform", d.platform_name},
                                  {"name", d.name},
                                  {"vendor", d.vendor},
                                  {"type", rt::to_string(d.type)},
                                  {"opencl_version", d.opencl_version},
                                  {"driver_version", d.driver_version},
                                  {"compute_units", d.compute_units},
                                  {"global_memory_bytes", d.global_memory_bytes},
                                  {"max_allocation_bytes", d.max_allocation_bytes},
                                  {"local_memory_bytes", d.local_memory_bytes},
                                  {"max_work_group_size", d.max_work_group_size},
                                  {"fp64", d.has_fp64},
                                  {"selected", &d == selected}});
      }
      std::cout << out.dump(2) << '\n';
      return 0;
    }
    if (devices.empty()) {
      std::cout << "no OpenCL devices found (install an ICD, e.g. pocl-opencl-icd)\n";
      return 1;
    }
    std::size_t last_platform = static_cast<std::size_t>(-1);
    for (const auto& d : devices) {
      if (d.platform_index != last_platform) {
        std::cout << fmt::format("platform {}: {}\n", d.platform_index, d.platform_name);
        last_platform = d.platform_index;
      }
      std::cout << fmt::format(
          "{} {}:{} {} [{}]\n      vendor {}, {}, driver {}\n      compute units {}, global memory {:.2f} GiB "
          "(largest allocation {:.2f} GiB), local memory {} KiB, max work-group {}, fp64 {}\n",
          &d == selected ? "*" : " ", d.platform_index, d.device_index, d.name, rt::to_string(d.type), d.vendor,
          d.opencl_version, d.driver_version, d.compute_units, d.global_memory_bytes / 1073741824.0,
          d.max_allocation_bytes / 1073741824.0, d.local_memory_bytes / 1024, d.max_work_group_size,
          d.has_fp64 ? "yes" : "no");
    }
    std::cout << fmt::format("* selected (TESSERA_DEVICE='{}'); kernel cache: {}\n", device_spec,
                             cache_dir ? cache_dir->string() : std::string("off"));
    return 0;
  } catch (const tessera::error& e) {
    std::cerr << "tessera-info: " << e.what() << '\n';
    return 1;
  }
}
