// gemm_pick: which configuration blas::gemm's defaults table gives each shape of a suite on a
// device described on the command line (no device needed). The table is the given defaults
// files' entries, then the built-in class entries (gemm_defaults.def), without the committed
// tuned shapes: a replay of the selection rule on a database of one's own
// (gen/selection_replay.py hides one tuned shape at a time and asks for it).
//
//   gemm_pick --defaults db.json --shapes suite.json --device-name "NVIDIA H200"
//             --architecture sm_90 --vendor nvidia --compute-units 132
// prints a JSON list: per shape its sizes, the configuration chosen (as the call runs it: a tuned
// shape's configuration picked elsewhere has the call's split, blas::choose_default), and the
// entry's configuration, tuned shape and origin (null for the last resort), and the tail split
// blas::gemm runs it as (blas::tail_split_for_call; null where none, and with --compute-units 0).
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <tessera/baselines/shape_suite.hpp>
#include <tessera/blas/gemm_defaults.hpp>
#include <tessera/runtime/error.hpp>

namespace {

namespace blas = tessera::blas;
using json = nlohmann::json;

json describe(const std::optional<blas::tail_split>& plan) {
  if (!plan) return nullptr;
  return {{"along", plan->along_rows ? "rows" : "columns"}, {"whole_blocks", plan->whole_blocks}, {"split", plan->split}};
}

json describe(const blas::gemm_default_choice& choice) {
  if (choice.entry == nullptr) return nullptr;
  json entry = {{"origin", choice.entry->origin}, {"transposes", choice.entry->transposes},
                {"problem", choice.entry->problem}, {"configuration", blas::to_string(choice.entry->params)}};
  if (const auto& s = choice.entry->shape)
    entry["shape"] = {{"m", s->m}, {"n", s->n}, {"k", s->k}, {"batch", s->batch}};
  return entry;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gemm_pick: the defaults table's configuration for each shape of a suite, on a described device"};
  std::vector<std::string> defaults_files;
  std::string shapes_file;
  blas::gemm_device_key key{"", "", "", "gpu"};
  std::int64_t compute_units = 0, local_memory_bytes = 49152, max_work_group_size = 1024;
  int element_bytes = 4;
  app.add_option("--defaults", defaults_files, "defaults JSON (select_defaults.py's form), before the class entries")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--shapes", shapes_file, "shape suite JSON (configs/shapes/*.json's form)")->required();
  app.add_option("--device-name", key.name, "CL_DEVICE_NAME, as the entries match it")->required();
  app.add_option("--architecture", key.architecture, "\"sm_90\", \"skylake-avx512\", or empty");
  app.add_option("--vendor", key.vendor, "nvidia, amd, intel, pocl, ...");
  app.add_option("--type", key.type, "gpu, cpu, accelerator, other")->capture_default_str();
  app.add_option("--compute-units", compute_units, "CL_DEVICE_MAX_COMPUTE_UNITS (0: the nearest shape, no fill)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--local-memory-bytes", local_memory_bytes, "CL_DEVICE_LOCAL_MEM_SIZE")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--max-work-group-size", max_work_group_size, "CL_DEVICE_MAX_WORK_GROUP_SIZE")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--element-bytes", element_bytes, "4 (float) or 8 (double)")
      ->capture_default_str()
      ->check(CLI::IsMember({4, 8}));
  CLI11_PARSE(app, argc, argv);

  try {
    // As the library reads TESSERA_GEMM_DEFAULTS: the files in order, then the built-in class entries.
    std::vector<blas::gemm_default_entry> table = blas::read_gemm_defaults_files(defaults_files);
    for (const auto& e : blas::gemm_defaults_table())
      if (!e.shape) {
        table.push_back(e);
        table.back().source = int(defaults_files.size());
      }
    // The limits as the library derives them on the device (blas::device_limits): an NVIDIA
    // architecture sm_XY of compute capability 8.0 and up also runs cp.async and mma.sync, so that
    // the picks of configurations that need them (the local family's stages, mma) are the device's.
    tessera::runtime::device_info device;
    device.local_memory_bytes = static_cast<std::uint64_t>(local_memory_bytes);
    device.max_work_group_size = static_cast<std::size_t>(max_work_group_size);
    if (key.vendor == "nvidia" && key.architecture.starts_with("sm_")) {
      const auto capability = blas::nvidia_compute_capability(key.architecture);
      if (!capability)
        throw tessera::argument_error(fmt::format("--architecture '{}': expected sm_ and a compute capability "
                                                  "(sm_90)", key.architecture));
      device.nvidia_compute_capability = *capability;
    }
    const blas::gemm_limits limits = blas::device_limits(device);
    const blas::gemm_defaults_index index(table);
    json picks = json::array();
    for (const auto& s : tessera::baselines::read_shape_suite(shapes_file)) {
      const auto choice = blas::choose_default(index, key, limits, element_bytes, s.problem(), "default", compute_units);
      picks.push_back({{"m", s.m}, {"n", s.n}, {"k", s.k}, {"batch", s.batch}, {"transposes", s.transposes()},
                       {"configuration", blas::to_string(choice.params)}, {"entry", describe(choice)},
                       {"tail_split", compute_units > 0 ? describe(blas::tail_split_for_call(choice.params, element_bytes,
                                                                                             s.problem(), compute_units, 0))
                                                        : json(nullptr)}});
    }
    std::cout << picks.dump(1) << '\n';
  } catch (const tessera::error& e) {
    std::cerr << "gemm_pick: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
