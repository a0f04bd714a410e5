#include <tessera/blas/gemm_defaults.hpp>
#include <tessera/runtime/error.hpp>

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace tessera::blas {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool contains(std::string_view haystack, std::string_view needle) {
  return lower(haystack).find(lower(needle)) != std::string::npos;
}

// "pthread-skylake-avx512-Intel(R) Xeon(R) ..." -> "skylake-avx512": PoCL names a CPU
// device "<driver>-<LLVM CPU name>-<model>"; the model starts at the word before the first space.
std::string pocl_cpu_architecture(const std::string& name) {
  for (std::string_view prefix : {"pthread-", "cpu-", "cpu-minimal-", "basic-"}) {
    if (name.rfind(prefix, 0) != 0) continue;
    std::string rest = name.substr(prefix.size());
    const auto space = rest.find(' ');
    const auto dash = rest.rfind('-', space == std::string::npos ? rest.size() : space);
    return dash == std::string::npos ? rest : rest.substr(0, dash);
  }
  return {};
}

std::string nvidia_architecture(const runtime::device_info& device) {
  if (device.handle() == nullptr || device.extensions.find("cl_nv_device_attribute_query") == std::string::npos) return {};
  cl_uint major = 0, minor = 0;
  constexpr cl_device_info compute_capability_major = 0x4000, compute_capability_minor = 0x4001;
  if (::clGetDeviceInfo(device.handle(), compute_capability_major, sizeof(major), &major, nullptr) != CL_SUCCESS ||
      ::clGetDeviceInfo(device.handle(), compute_capability_minor, sizeof(minor), &minor, nullptr) != CL_SUCCESS)
    return {};
  return fmt::format("sm_{}{}", major, minor);
}

gemm_match_level parse_level(std::string_view s) {
  if (s == "name") return gemm_match_level::name;
  if (s == "architecture") return gemm_match_level::architecture;
  if (s == "vendor") return gemm_match_level::vendor;
  if (s == "type") return gemm_match_level::type;
  return gemm_match_level::any;
}

bool level_matches(const gemm_default_entry& e, const gemm_device_key& key) {
  switch (e.level) {
    case gemm_match_level::name: return !e.match.empty() && contains(key.name, e.match);
    case gemm_match_level::architecture: return !key.architecture.empty() && lower(key.architecture) == lower(e.match);
    case gemm_match_level::vendor: return lower(key.vendor) == lower(e.match);
    case gemm_match_level::type: return lower(key.type) == lower(e.match);
    case gemm_match_level::any: return true;
  }
  return false;
}

}  // namespace

std::string_view to_string(gemm_problem_class c) {
  switch (c) {
    case gemm_problem_class::small: return "small";
    case gemm_problem_class::medium: return "medium";
    case gemm_problem_class::large: return "large";
    case gemm_problem_class::batched: return "batched";
  }
  return "any";
}

gemm_problem_class classify_problem(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch_count) {
  if (batch_count > 1) return gemm_problem_class::batched;
  if (std::min(m, n) < 32 || m * n * k <= 128ll * 128 * 128) return gemm_problem_class::small;
  if (m >= 1024 && n >= 1024 && k >= 256) return gemm_problem_class::large;
  return gemm_problem_class::medium;
}

gemm_device_key describe_device(const runtime::device_info& device) {
  gemm_device_key key;
  key.name = device.name;
  key.type = lower(runtime::to_string(device.type));
  const std::string vendor = lower(device.vendor);
  if (contains(device.platform_name, "Portable Computing Language")) key.vendor = "pocl";
  else if (vendor.find("nvidia") != std::string::npos) key.vendor = "nvidia";
  else if (vendor.find("advanced micro devices") != std::string::npos || vendor.find("amd") != std::string::npos)
    key.vendor = "amd";
  else if (vendor.find("intel") != std::string::npos) key.vendor = "intel";
  else if (vendor.find("arm") != std::string::npos) key.vendor = "arm";
  else if (vendor.find("apple") != std::string::npos) key.vendor = "apple";
  else key.vendor = vendor;
  if (key.vendor == "nvidia") key.architecture = nvidia_architecture(device);
  else if (key.vendor == "pocl") key.architecture = pocl_cpu_architecture(device.name);
  else if (key.vendor == "amd" && device.name.rfind("gfx", 0) == 0) key.architecture = device.name;
  return key;
}

gemm_limits device_limits(const runtime::device_info& device) {
  return {static_cast<std::int64_t>(device.local_memory_bytes), static_cast<std::int64_t>(device.max_work_group_size)};
}

const std::vector<gemm_default_entry>& gemm_defaults_table() {
  static const std::vector<gemm_default_entry> table = [] {
    std::vector<gemm_default_entry> t;
#define TESSERA_GEMM_DEFAULT(level, match, element_bytes, transposes, problem, config, origin) \
  t.push_back({parse_level(#level), match, element_bytes, transposes, problem, parse_gemm_params(config), origin});
// Tuned winners (configs/defaults/*.json, rendered by gen/defaults_table.py at build time)
// come first: they match by device name, the most specific level.
#include "gemm_tuned_defaults.def"
#include "gemm_defaults.def"
#undef TESSERA_GEMM_DEFAULT
    return t;
  }();
  return table;
}

gemm_default_choice choose_default(const runtime::device_info& device, int element_bytes, bool trans_a, bool trans_b,
                                   gemm_problem_class problem) {
  const gemm_device_key key = describe_device(device);
  const gemm_limits limits = device_limits(device);
  const std::string transposes = fmt::format("{}{}", trans_a ? 't' : 'n', trans_b ? 't' : 'n');
  const std::string problem_name(to_string(problem));
  const auto& table = gemm_defaults_table();
  for (gemm_match_level level : {gemm_match_level::name, gemm_match_level::architecture, gemm_match_level::vendor,
                                 gemm_match_level::type, gemm_match_level::any}) {
    // Within a level: the entry naming most of (precision, transposes, problem) wins;
    // earlier entries win ties; entries that do not fit the device are passed over.
    const gemm_default_entry* best = nullptr;
    int best_score = -1;
    for (const auto& e : table) {
      if (e.level != level || !level_matches(e, key)) continue;
      if (e.element_bytes != 0 && e.element_bytes != element_bytes) continue;
      if (e.transposes != "any" && e.transposes != transposes) continue;
      if (e.problem != "any" && e.problem != problem_name) continue;
      if (!check_gemm_rules(e.params, element_bytes, limits).empty()) continue;
      const int score = (e.element_bytes != 0) * 4 + (e.transposes != "any") * 2 + (e.problem != "any");
      if (score > best_score) best = &e, best_score = score;
    }
    if (best != nullptr) return {best->params, best};
  }
  // Fits every device: one work-item per work-group, no local memory.
  return {parse_gemm_params("naive wg=1x1"), nullptr};
}

}  // namespace tessera::blas
