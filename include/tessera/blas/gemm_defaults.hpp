#pragma once
// The defaults table: which configuration gemm() uses on a device for a problem.
//
// Entries come from two places: the tuner's committed winners (configs/defaults/*.json, written
// by gen/select_defaults.py and rendered into the table by gen/defaults_table.py at build time)
// first, then the hand-picked ones of src/blas/gemm_defaults.def. They match a device by name,
// architecture, vendor or type, or match any device; the lookup falls back in that order, as
// CLBlast's database does, and within a level prefers the entry that names the precision,
// transposes and problem class over one that takes any (at one level and specificity, the
// first entry: a tuned one before a hand-picked one).
// An entry whose configuration does not fit the device is skipped, so the chain always
// ends in a configuration that runs (the last one is naive with a 1x1 work-group).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tessera/blas/gemm_config.hpp>
#include <tessera/runtime/device.hpp>

namespace tessera::blas {

/// Problem classes of the table.
enum class gemm_problem_class { small, medium, large, batched };

std::string_view to_string(gemm_problem_class c);

/// small: m * n * k <= 128^3 or min(m, n) < 32; large: m, n >= 1024 and k >= 256;
/// batched: batch_count > 1 (whatever the size); medium: the rest.
gemm_problem_class classify_problem(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch_count);

/// The keys a table entry may match, read off a device.
struct gemm_device_key {
  std::string name;          // CL_DEVICE_NAME
  std::string architecture;  // "sm_90" (NVIDIA), "skylake-avx512" (PoCL's CPU), "gfx90a" (AMD), or ""
  std::string vendor;        // "nvidia", "amd", "intel", "arm", "apple", "pocl", or the vendor string in lower case
  std::string type;          // "gpu", "cpu", "accelerator", "other"
};

gemm_device_key describe_device(const runtime::device_info& device);

/// What a table entry matches on.
enum class gemm_match_level { name, architecture, vendor, type, any };

/// One entry of the defaults table.
struct gemm_default_entry {
  gemm_match_level level;
  std::string match;        // compared case-insensitively (the name: as a substring)
  int element_bytes;        // 4, 8, or 0 for any
  std::string transposes;   // "nn", "nt", "tn", "tt" or "any"
  std::string problem;      // "small", "medium", "large", "batched" or "any"
  gemm_params params;
  std::string origin;       // where the entry came from (hand-picked, a tuning run)
};

/// The table, parsed once from gemm_defaults.def.
const std::vector<gemm_default_entry>& gemm_defaults_table();

/// The chosen entry's configuration and where it came from.
struct gemm_default_choice {
  gemm_params params;
  const gemm_default_entry* entry;  // null for the built-in last resort
};

/// Walks the table for this device and problem; the result fits the device's limits.
gemm_default_choice choose_default(const runtime::device_info& device, int element_bytes, bool trans_a,
                                   bool trans_b, gemm_problem_class problem);

/// The device's limits as the rules name them.
gemm_limits device_limits(const runtime::device_info& device);

}  // namespace tessera::blas
