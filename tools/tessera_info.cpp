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

#include "standard_output.hpp"

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
    const rt::device_request request = rt::device_request_from("--device", device_spec);
    const rt::device_info* selected =
        devices.empty() ? nullptr : &rt::select_device(request.spec, devices, request.source);
    const auto cache_dir = rt::disk_cache_directory_from_environment();
    const auto cache_problem = cache_dir ? rt::disk_cache_problem(*cache_dir) : std::nullopt;
    if (cache_problem)
      std::cerr << fmt::format("tessera-info: warning: the kernel cache {} {}: compiled kernels are rebuilt in "
                               "every process (set TESSERA_CACHE_DIR to a writable folder, or TESSERA_CACHE=off)\n",
                               cache_dir->string(), *cache_problem);

    if (as_json) {
      nlohmann::json out;
      // null when off or usable (a ternary of a string and nullptr would build a string from null)
      out["cache_directory"] = cache_dir ? nlohmann::json(cache_dir->string()) : nlohmann::json(nullptr);
      out["cache_problem"] = cache_problem ? nlohmann::json(*cache_problem) : nlohmann::json(nullptr);
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
      return tessera::tools::flush_standard_output("tessera-info", 0);
    }
    if (devices.empty()) {
      std::cout << "no OpenCL devices found (install an ICD, e.g. pocl-opencl-icd)\n";
      return tessera::tools::flush_standard_output("tessera-info", 1);
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
    std::cout << fmt::format("* selected ({}='{}'); kernel cache: {}\n", request.source, request.spec,
                             cache_dir ? cache_dir->string() : std::string("off"));
    return tessera::tools::flush_standard_output("tessera-info", 0);
  } catch (const tessera::error& e) {
    std::cerr << "tessera-info: " << e.what() << '\n';
    return 1;
  }
}
