#include <tessera/blas/gemm_defaults.hpp>
#include <tessera/runtime/atomic_file.hpp>
#include <tessera/runtime/error.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <mutex>
#include <sstream>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

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
  const int capability = device.nvidia_compute_capability;
  return capability > 0 ? fmt::format("sm_{}{}", capability / 10, capability % 10) : std::string();
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

std::optional<int> nvidia_compute_capability(std::string_view architecture) {
  if (!architecture.starts_with("sm_")) return std::nullopt;
  const std::string_view digits = architecture.substr(3);
  int capability = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), capability);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return capability;
}

gemm_limits device_limits(const runtime::device_info& device) {
  gemm_limits limits{static_cast<std::int64_t>(device.local_memory_bytes),
                     static_cast<std::int64_t>(device.max_work_group_size)};
  // Tensor cores that mma.sync reaches: NVIDIA from compute capability 8.0. NVIDIA's OpenCL
  // compiler gives a kernel's static local arrays the SM's shared memory less 1 KiB (the
  // CUDA limits per block), not the 48 KiB CL_DEVICE_LOCAL_MEM_SIZE reports: arrays of 200 KB
  // built and ran on an H200, 227 KB did not build (benchmark/mma_probe/NOTES.md).
  if (const int capability = device.nvidia_compute_capability; capability >= 80) {
    limits.tensor_cores = 1;
    limits.mma_max_local_memory_bytes = capability == 80 || capability == 87 ? 166912   // 163 KiB
                                        : capability >= 90                    ? 232448   // 227 KiB
                                                                              : 101376;  // 99 KiB (8.6, 8.9)
  }
  return limits;
}

double shape_distance(const gemm_problem_shape& call, const gemm_problem_shape& tuned) {
  const auto log_ratio = [](std::int64_t x, std::int64_t y) {
    return std::log(double(std::max<std::int64_t>(x, 1))) - std::log(double(std::max<std::int64_t>(y, 1)));
  };
  const double dm = log_ratio(call.m, tuned.m), dn = log_ratio(call.n, tuned.n);
  const double dk = 0.5 * log_ratio(call.k, tuned.k), db = log_ratio(call.batch, tuned.batch);
  const bool same_transposes = call.trans_a == tuned.trans_a && call.trans_b == tuned.trans_b;
  return std::sqrt(dm * dm + dn * dn + dk * dk + db * db) + (same_transposes ? 0.0 : 1.0);
}

double tuned_shape_fill_score(const gemm_params& params, int element_bytes, const gemm_problem_shape& call,
                              const gemm_problem_shape& tuned, std::int64_t compute_units) {
  const double there = device_fill(params, element_bytes, tuned, compute_units);
  return device_fill(params, element_bytes, call, compute_units) / there * std::exp(-0.2 * shape_distance(call, tuned));
}

namespace {

// The split a configuration taken from another shape runs with at a call: chosen for the call's
// shape (chosen_split_k), whatever split it was tuned or measured with there.
int split_chosen_at(gemm_params params, int element_bytes, const gemm_problem_shape& call, std::int64_t compute_units) {
  params.split_k = 0;
  return chosen_split_k(params, element_bytes, call.m, call.n, call.k, call.batch, compute_units);
}

// A configuration's fill at the call, as measured_shape_score counts it. It depends on the
// candidate and the call alone, so the measured rule works it out once per candidate, not once per
// measured shape.
struct fill_at_call {
  double with_measured_split;  // at the shape it was measured at: as it ran there
  double as_it_runs;           // at any other
};

fill_at_call fill_at(const gemm_params& params, int element_bytes, const gemm_problem_shape& call,
                     std::int64_t compute_units) {
  // A configuration measured with a split runs at another shape with the split chosen there
  // (split_for_the_call). Where that is fewer slices, the call fills the device as those do: the
  // measured slices would fill waves the call never launches. A split of 3 measured at 2048^3 TN
  // made a 128 x 64 block look a full device at 1800^3, where it runs whole at 0.59x cuBLAS; 8
  // slices measured at 100 x 1769 x 1366 made a 128 x 64 block that runs in 2 at 66 x 955 x 293
  // look four times fuller there than it is. Where the call splits more, the measured split's
  // fill stands: slices the call adds are the split model's guess, not a measurement.
  const double measured_split = device_fill(params, element_bytes, call, compute_units);
  if (params.family != gemm_family::local || params.split_k <= 1) return {measured_split, measured_split};
  gemm_params as_it_runs = params;
  as_it_runs.split_k = std::min(params.split_k, split_chosen_at(params, element_bytes, call, compute_units));
  return {measured_split, device_fill(as_it_runs, element_bytes, call, compute_units)};
}

// What the configuration's tiles gain (or lose) in fill at the call over at a measured shape.
double fill_gain_at(const fill_at_call& at_call, const gemm_params& params, int element_bytes,
                    const gemm_problem_shape& call, const gemm_problem_shape& measured, std::int64_t compute_units) {
  return (call == measured ? at_call.with_measured_split : at_call.as_it_runs) /
         device_fill(params, element_bytes, measured, compute_units);
}

}  // namespace

double measured_shape_weight(double distance, double fill_gain) {
  return std::exp(-distance / measured_rule_scale - std::abs(std::log(fill_gain)) / measured_rule_fill_scale);
}

double measured_shape_score(const gemm_params& params, int element_bytes, double fraction_of_best,
                            const gemm_problem_shape& call, const gemm_problem_shape& measured,
                            std::int64_t compute_units) {
  return fraction_of_best *
         fill_gain_at(fill_at(params, element_bytes, call, compute_units), params, element_bytes, call, measured,
                      compute_units);
}

namespace {

[[noreturn]] void bad_defaults(const std::string& where, const std::string& what) {
  throw argument_error(fmt::format("tessera::blas defaults file {}: {}", where, what));
}

gemm_default_entry entry_from_json(const nlohmann::json& e, const std::string& where) {
  if (!e.is_object()) bad_defaults(where, "expected an object");
  const auto text = [&](const char* key, bool required, std::string fallback) {
    if (!e.contains(key)) {
      if (required) bad_defaults(where, fmt::format("missing key '{}'", key));
      return fallback;
    }
    if (!e[key].is_string()) bad_defaults(fmt::format("{}.{}", where, key), "expected a string");
    return e[key].get<std::string>();
  };
  const auto one_of_or = [&](const char* key, std::initializer_list<std::string_view> allowed, const char* fallback) {
    std::string value = text(key, fallback == nullptr, fallback == nullptr ? "" : fallback);
    if (std::find(allowed.begin(), allowed.end(), value) == allowed.end())
      bad_defaults(fmt::format("{}.{}", where, key), fmt::format("expected one of {}, got '{}'", fmt::join(allowed, ", "), value));
    return value;
  };
  const auto one_of = [&](const char* key, std::initializer_list<std::string_view> allowed) {
    return one_of_or(key, allowed, nullptr);
  };
  gemm_default_entry entry;
  entry.level = parse_level(one_of("level", {"name", "architecture", "vendor", "type", "any"}));
  entry.match = text("match", true, "");
  if (!e.contains("element_bytes") || !e["element_bytes"].is_number_integer() ||
      (e["element_bytes"] != 0 && e["element_bytes"] != 2 && e["element_bytes"] != 4 && e["element_bytes"] != 8))
    bad_defaults(where + ".element_bytes", "expected 0, 2 (16-bit operands), 4 or 8");
  entry.element_bytes = e["element_bytes"].get<int>();
  entry.transposes = one_of("transposes", {"nn", "nt", "tn", "tt", "any"});
  entry.problem = one_of("problem", {"small", "medium", "large", "batched", "any"});
  try {
    entry.params = parse_gemm_params(text("configuration", true, ""));
  } catch (const error& x) {
    bad_defaults(where + ".configuration", x.what());
  }
  entry.origin = text("origin", false, "");
  entry.architecture = text("architecture", false, "");
  entry.precision = text("precision", false, "default");
  entry.role = one_of_or("role", {"tuned", "measured"}, "tuned") == "measured" ? gemm_entry_role::measured
                                                                              : gemm_entry_role::tuned;
  if (e.contains("gflops")) {
    if (!e["gflops"].is_number() || !(e["gflops"].get<double>() >= 0.0) || !std::isfinite(e["gflops"].get<double>()))
      bad_defaults(where + ".gflops", "expected a finite number of at least 0");
    entry.gflops = e["gflops"].get<double>();
  }
  if (entry.role == gemm_entry_role::measured) {
    if (!e.contains("shape")) bad_defaults(where + ".shape", "a measured entry is a tuned shape's: expected its shape");
    if (!(entry.gflops > 0.0)) bad_defaults(where + ".gflops", "a measured entry's GFLOP/s: expected a number above 0");
  }
  if (e.contains("shape")) {
    const auto& s = e["shape"];
    gemm_problem_shape shape;
    std::int64_t* sizes[] = {&shape.m, &shape.n, &shape.k, &shape.batch};
    const char* names[] = {"m", "n", "k", "batch"};
    for (int i = 0; i < 4; ++i) {
      if (!s.is_object() || !s.contains(names[i]) || !s[names[i]].is_number_integer() || s[names[i]].get<std::int64_t>() < 1)
        bad_defaults(fmt::format("{}.shape.{}", where, names[i]), "expected a whole number of at least 1");
      *sizes[i] = s[names[i]].get<std::int64_t>();
    }
    shape.trans_a = entry.transposes[0] == 't', shape.trans_b = entry.transposes[1] == 't';
    entry.shape = shape;
  }
  return entry;
}

}  // namespace

std::vector<gemm_default_entry> read_gemm_defaults_file(const std::string& path) {
  const auto text = runtime::read_whole_file(path);
  if (!text) bad_defaults(path, "cannot be read (no such file, or not readable)");
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(*text);
  } catch (const nlohmann::json::parse_error& e) {
    bad_defaults(path, fmt::format("malformed JSON: {}", e.what()));
  }
  if (!doc.is_object() || !doc.contains("entries") || !doc["entries"].is_array())
    bad_defaults(path + ": $.entries", "expected a list (is this a defaults file?)");
  std::vector<gemm_default_entry> out;
  for (std::size_t i = 0; i < doc["entries"].size(); ++i)
    out.push_back(entry_from_json(doc["entries"][i], fmt::format("{}: $.entries[{}]", path, i)));
  return out;
}

std::vector<gemm_default_entry> read_gemm_defaults_files(const std::vector<std::string>& paths) {
  std::vector<gemm_default_entry> out;
  for (std::size_t source = 0; source < paths.size(); ++source)
    for (auto& e : read_gemm_defaults_file(paths[source])) {
      e.source = int(source);
      out.push_back(std::move(e));
    }
  return out;
}

namespace {

// A built-in entry as constants. The table turns them into entries in one loop: about a thousand
// push_backs of their own, one per entry, took GCC 144 s to compile at -O3 in one function.
struct built_in_entry {
  gemm_match_level level;  // name for tuned shapes
  const char* match;
  const char* architecture;
  int element_bytes;
  const char* transposes;
  std::int64_t m, n, k, batch;  // a tuned shape's sizes; m = 0 for a class entry
  const char* problem;          // a class entry's class (a tuned shape's is its own)
  const char* precision;
  const char* config;
  gemm_entry_role role;
  double gflops;
  const char* origin;
};

// Tuned winners (configs/defaults/*.json, rendered by gen/defaults_table.py at build time) come
// first: they match by device name, the most specific level.
constexpr built_in_entry built_in_entries[] = {
#define TESSERA_GEMM_TUNED(match, architecture, element_bytes, transposes, m, n, k, batch, precision, config, origin) \
  {gemm_match_level::name, match, architecture, element_bytes, transposes, m, n, k, batch, "", precision, config,   \
   gemm_entry_role::tuned, 0.0, origin},
#define TESSERA_GEMM_MEASURED(match, architecture, element_bytes, transposes, m, n, k, batch, precision, config, gflops, \
                              origin)                                                                            \
  {gemm_match_level::name, match, architecture, element_bytes, transposes, m, n, k, batch, "", precision, config, \
   gemm_entry_role::measured, gflops, origin},
#define TESSERA_GEMM_DEFAULT(level, match, element_bytes, transposes, problem, config, origin)                  \
  {gemm_match_level::level, match, "", element_bytes, transposes, 0, 0, 0, 0, problem, "default", config,         \
   gemm_entry_role::tuned, 0.0, origin},
#define TESSERA_GEMM_MATH_DEFAULT(level, match, element_bytes, precision, transposes, problem, config, origin)  \
  {gemm_match_level::level, match, "", element_bytes, transposes, 0, 0, 0, 0, problem, precision, config,         \
   gemm_entry_role::tuned, 0.0, origin},
#include "gemm_tuned_defaults.def"
#include "gemm_defaults.def"
#undef TESSERA_GEMM_DEFAULT
#undef TESSERA_GEMM_MATH_DEFAULT
#undef TESSERA_GEMM_TUNED
#undef TESSERA_GEMM_MEASURED
};

gemm_default_entry entry_of(const built_in_entry& b) {
  gemm_default_entry e{b.level, b.match, b.element_bytes, b.transposes, b.problem,
                       parse_gemm_params(b.config), b.origin, std::nullopt, b.architecture, b.precision, b.role,
                       b.gflops};
  if (b.m > 0) {
    e.problem = std::string(to_string(classify_problem(b.m, b.n, b.k, b.batch)));
    e.shape = gemm_problem_shape{b.m, b.n, b.k, b.batch, b.transposes[0] == 't', b.transposes[1] == 't'};
  }
  return e;
}

}  // namespace

const std::vector<gemm_default_entry>& gemm_defaults_table() {
  static const std::vector<gemm_default_entry> table = [] {
    // A database of the user's first: it is the most recent tuning of this very device.
    std::vector<std::string> paths;
    if (const char* files = std::getenv("TESSERA_GEMM_DEFAULTS"); files != nullptr) {
      std::istringstream list(files);
      for (std::string path; std::getline(list, path, ':');)
        if (!path.empty()) paths.push_back(path);
    }
    std::vector<gemm_default_entry> t = read_gemm_defaults_files(paths);
    for (const auto& b : built_in_entries) {
      t.push_back(entry_of(b));
      t.back().source = int(paths.size());
    }
    return t;
  }();
  return table;
}

struct gemm_defaults_index::groups {
  // A tuned shape's measured rows of one element size and precision, for the measured rule.
  struct shape_rows {
    const gemm_default_entry* first;  // its first row: the device that measured it
    double fastest = 0.0;
    std::vector<const gemm_default_entry*> rows;
  };

  const std::vector<gemm_default_entry>* table;
  std::vector<const gemm_default_entry*> tuned_shapes;   // tuned entries with a shape, in table order
  std::vector<const gemm_default_entry*> class_entries;  // entries without a shape, in table order

  // The measured shapes of an element size and precision, of every device, in the order of their
  // first rows: grouped at the first pick that asks for them.
  const std::vector<shape_rows>& measured_of(int element_bytes, std::string_view precision) const;

 private:
  mutable std::mutex mutex;
  mutable std::map<std::pair<int, std::string>, std::vector<shape_rows>> measured;
};

gemm_defaults_index::gemm_defaults_index(const std::vector<gemm_default_entry>& table)
    : groups_(std::make_unique<groups>()) {
  groups_->table = &table;
  for (const auto& e : table) {
    if (!e.shape) groups_->class_entries.push_back(&e);
    else if (e.role == gemm_entry_role::tuned) groups_->tuned_shapes.push_back(&e);
  }
}

gemm_defaults_index::~gemm_defaults_index() = default;

const std::vector<gemm_defaults_index::groups::shape_rows>& gemm_defaults_index::groups::measured_of(
    int element_bytes, std::string_view precision) const {
  std::lock_guard lock(mutex);
  std::pair<int, std::string> key{element_bytes, std::string(precision)};
  if (const auto it = measured.find(key); it != measured.end()) return it->second;
  std::vector<shape_rows> shapes;
  const auto same_group = [](const gemm_default_entry& a, const gemm_default_entry& b) {
    return *a.shape == *b.shape && a.match == b.match;
  };
  for (const auto& e : *table) {
    if (e.role != gemm_entry_role::measured || !e.shape) continue;
    if ((e.element_bytes != 0 && e.element_bytes != element_bytes) || e.precision != precision) continue;
    // A shape's rows lie together in a file (select_defaults.py writes them so): the last group first.
    auto it = !shapes.empty() && same_group(*shapes.back().first, e)
                  ? shapes.end() - 1
                  : std::find_if(shapes.begin(), shapes.end(), [&](const shape_rows& m) { return same_group(*m.first, e); });
    if (it == shapes.end()) it = shapes.insert(shapes.end(), shape_rows{&e, 0.0, {}});
    it->fastest = std::max(it->fastest, e.gflops);
    it->rows.push_back(&e);
  }
  return measured.emplace(std::move(key), std::move(shapes)).first->second;
}

const gemm_defaults_index& gemm_defaults_table_index() {
  static const gemm_defaults_index index(gemm_defaults_table());
  return index;
}

namespace {

// Whether a tuned shape serves the device at this level: at its own level by its match, and a
// name-level entry also at the architecture level, through the architecture it was tuned on.
bool shape_entry_matches(const gemm_default_entry& e, gemm_match_level level, const gemm_device_key& key) {
  if (e.level == level && level_matches(e, key)) return true;
  return level == gemm_match_level::architecture && e.level == gemm_match_level::name && !e.architecture.empty() &&
         !key.architecture.empty() && lower(e.architecture) == lower(key.architecture);
}

const gemm_default_entry* best_class_entry(const std::vector<const gemm_default_entry*>& class_entries,
                                           gemm_match_level level,
                                           const gemm_device_key& key, const gemm_limits& limits, int element_bytes,
                                           const std::string& transposes, const std::string& problem_name,
                                           std::string_view precision) {
  // Among entries of the call's precision, the one naming most of (element size, transposes,
  // problem) wins; earlier entries win ties; entries that do not fit the device are passed over.
  const gemm_default_entry* best = nullptr;
  int best_score = -1;
  for (const gemm_default_entry* entry : class_entries) {
    const gemm_default_entry& e = *entry;
    if (e.level != level || !level_matches(e, key)) continue;
    if (e.precision != precision) continue;
    if (e.element_bytes != 0 && e.element_bytes != element_bytes) continue;
    if (e.transposes != "any" && e.transposes != transposes) continue;
    if (e.problem != "any" && e.problem != problem_name) continue;
    if (!check_gemm_rules(e.params, element_bytes, limits).empty()) continue;
    const int score = (e.element_bytes != 0) * 4 + (e.transposes != "any") * 2 + (e.problem != "any");
    if (score > best_score) best = &e, best_score = score;
  }
  return best;
}

constexpr gemm_match_level levels[] = {gemm_match_level::name, gemm_match_level::architecture,
                                       gemm_match_level::vendor, gemm_match_level::type, gemm_match_level::any};

// Fits every device: one work-item per work-group, no local memory.
gemm_default_choice last_resort() { return {parse_gemm_params("naive wg=1x1"), nullptr}; }

using shape_rows = gemm_defaults_index::groups::shape_rows;

// A measured shape near the call.
struct measured_shape {
  const shape_rows* measured;
  double distance;  // from the call
};

// The measured shapes of the call's element size and precision within measured_rule_reach, of
// every device, nearest first (the first grouped among equals): matched level by level.
std::vector<measured_shape> measured_shapes(const gemm_defaults_index::groups& index, int element_bytes,
                                            const gemm_problem_shape& call, std::string_view precision) {
  std::vector<measured_shape> shapes;
  for (const shape_rows& m : index.measured_of(element_bytes, precision))
    if (const double distance = shape_distance(call, *m.first->shape); distance <= measured_rule_reach)
      shapes.push_back({&m, distance});
  std::stable_sort(shapes.begin(), shapes.end(),
                   [](const measured_shape& a, const measured_shape& b) { return a.distance < b.distance; });
  return shapes;
}

// The measured rule (gemm_defaults.hpp) at one level: nothing where no measured shape of the level is in reach.
std::optional<gemm_default_choice> measured_choice(const std::vector<measured_shape>& all, gemm_match_level level,
                                                   const gemm_device_key& key, const gemm_limits& limits,
                                                   int element_bytes, const gemm_problem_shape& call,
                                                   std::int64_t compute_units) {
  std::vector<const measured_shape*> shapes;  // the nearest of the level, nearest first
  for (const auto& m : all)
    if (shape_entry_matches(*m.measured->first, level, key) && shapes.size() < std::size_t(measured_rule_shapes))
      shapes.push_back(&m);
  if (shapes.empty()) return std::nullopt;
  // Each kept shape's weight by distance alone, and their sum: for measured_rule_coverage.
  std::vector<double> distance_weight;
  double all_near = 0.0;
  for (const measured_shape* m : shapes) all_near += distance_weight.emplace_back(measured_shape_weight(m->distance, 1.0));
  // The best timed at enough of the kept shapes, else (none is: the nearest's configurations are
  // all new to the others) the best of those timed at fewer.
  struct best {
    const gemm_default_entry* entry = nullptr;
    double score = -std::numeric_limits<double>::infinity();
  } covered, thin;
  // The candidates: what was measured at the nearest shape that fits the device; at the call's own
  // shape, only those timed there near the fastest that fits (measured_rule_own_shape_floor).
  std::vector<const gemm_default_entry*> candidates;
  double fastest_fitting = 0.0;
  for (const gemm_default_entry* row : shapes.front()->measured->rows) {
    if (!check_gemm_rules(row->params, element_bytes, limits).empty()) continue;
    candidates.push_back(row);
    fastest_fitting = std::max(fastest_fitting, row->gflops);
  }
  if (shapes.front()->distance == 0.0)
    std::erase_if(candidates, [&](const gemm_default_entry* row) {
      return row->gflops < measured_rule_own_shape_floor * fastest_fitting;
    });
  // The evidence: every kept shape that measured them.
  for (const gemm_default_entry* candidate : candidates) {
    const fill_at_call at_call = fill_at(candidate->params, element_bytes, call, compute_units);
    double weighted_log = 0.0, weights = 0.0, timed_near = 0.0;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      const measured_shape* m = shapes[i];
      const auto& rows = m->measured->rows;
      const auto row = std::find_if(rows.begin(), rows.end(),
                                    [&](const gemm_default_entry* r) { return r->params == candidate->params; });
      if (row == rows.end()) continue;
      timed_near += distance_weight[i];
      const double fill_gain =
          fill_gain_at(at_call, candidate->params, element_bytes, call, *m->measured->first->shape, compute_units);
      const double weight = measured_shape_weight(m->distance, fill_gain);
      weighted_log += weight * std::log((*row)->gflops / m->measured->fastest * fill_gain);
      weights += weight;
    }
    const double score = weighted_log / weights;
    best& kind = timed_near >= measured_rule_coverage * all_near ? covered : thin;
    if (score > kind.score) kind = {candidate, score};
  }
  const gemm_default_entry* chosen = covered.entry != nullptr ? covered.entry : thin.entry;
  if (chosen == nullptr) return std::nullopt;
  return gemm_default_choice{chosen->params, chosen};
}

// Whether the database timed its configurations at the call's own shape, on a device of the
// level, in the tuned entry's source or one read before it.
bool measured_at_call(const std::vector<measured_shape>& all, gemm_match_level level, const gemm_device_key& key,
                      const gemm_default_entry& tuned) {
  for (const auto& m : all) {
    if (m.distance > 0.0) return false;  // nearest first
    if (shape_entry_matches(*m.measured->first, level, key) && m.measured->first->source <= tuned.source) return true;
  }
  return false;
}

// A tuned entry's shape as a call sees it: an entry of any transposes was tuned at the call's.
gemm_problem_shape tuned_shape_for(const gemm_default_entry& e, const gemm_problem_shape& call) {
  gemm_problem_shape tuned = *e.shape;
  if (e.transposes == "any") tuned.trans_a = call.trans_a, tuned.trans_b = call.trans_b;
  return tuned;
}

// A tuned shape's configuration at another shape runs with the split the call's own tiles and K
// need (chosen_split_k), written as a number: its split_k was measured at its shape only, and
// the H200's entries are mostly whole (split_k = 1, tuned at shapes of many tiles), which left
// their few-wave neighbours at 0.6-0.75x cuBLAS where a split reached 0.9x (benchmark/RESULTS.md).
gemm_default_choice split_for_the_call(gemm_default_choice choice, int element_bytes, const gemm_problem_shape& shape,
                                       std::int64_t compute_units) {
  if (compute_units <= 0 || choice.entry == nullptr || !choice.entry->shape ||
      choice.params.family != gemm_family::local)
    return choice;
  if (tuned_shape_for(*choice.entry, shape) == shape) return choice;
  choice.params.split_k = split_chosen_at(choice.params, element_bytes, shape, compute_units);
  return choice;
}

gemm_default_choice choose_entry(const gemm_defaults_index::groups& index, const gemm_device_key& key,
                                 const gemm_limits& limits, int element_bytes, const gemm_problem_shape& shape,
                                 std::string_view precision, std::int64_t compute_units) {
  const std::string transposes = fmt::format("{}{}", shape.trans_a ? 't' : 'n', shape.trans_b ? 't' : 'n');
  const std::string problem_name(to_string(classify_problem(shape.m, shape.n, shape.k, shape.batch)));
  struct candidate {
    const gemm_default_entry* entry;
    gemm_problem_shape tuned;
    double distance;
  };
  std::vector<candidate> candidates;
  std::optional<std::vector<measured_shape>> measured;  // grouped at the first level that weighs them
  for (gemm_match_level level : levels) {
    candidates.clear();
    for (const gemm_default_entry* entry : index.tuned_shapes) {
      const gemm_default_entry& e = *entry;
      if (e.precision != precision || !shape_entry_matches(e, level, key)) continue;
      if (e.element_bytes != 0 && e.element_bytes != element_bytes) continue;
      const gemm_problem_shape tuned = tuned_shape_for(e, shape);
      const double distance = shape_distance(shape, tuned);
      if (distance <= max_shape_distance) candidates.push_back({&e, tuned, distance});
    }
    // Nearest first, the first written among equals (stable: table order). The rules are checked
    // only for the candidates weighed: this runs at every gemm() call.
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const candidate& a, const candidate& b) { return a.distance < b.distance; });
    const candidate* nearest = nullptr;  // the nearest that fits the device
    const candidate* chosen = nullptr;
    double best_score = -1.0;
    // At a tuned shape the database also timed its configurations at, the measured rule decides
    // there too: those timings compare every configuration of the database in one run, where the
    // tuned entry won a budgeted search (or is the default that held there, or a configuration
    // shared with other shapes). On the H200, at the 94 tuned shapes where this changes the pick:
    // 1.051x the speed, below 0.75x cuBLAS 13 -> 6 (benchmark/RESULTS.md, issue 12).
    const bool own_shape = !candidates.empty() && candidates.front().distance == 0.0;
    if (compute_units > 0) {
      if (!measured) measured = measured_shapes(index, element_bytes, shape, precision);
      if (!own_shape || measured_at_call(*measured, level, key, *candidates.front().entry))
        if (const auto choice = measured_choice(*measured, level, key, limits, element_bytes, shape, compute_units))
          return *choice;
    }
    for (const auto& c : candidates) {
      if (nearest != nullptr && c.distance > nearest->distance + fill_choice_reach) break;
      if (!check_gemm_rules(c.entry->params, element_bytes, limits).empty()) continue;
      if (nearest == nullptr) {
        nearest = chosen = &c;
        // At its own tuned shape an entry was measured; elsewhere weigh the near ones by their fill.
        if (compute_units <= 0 || c.distance == 0.0) break;
      }
      const double score = tuned_shape_fill_score(c.entry->params, element_bytes, shape, c.tuned, compute_units);
      if (score > best_score) best_score = score, chosen = &c;
    }
    if (chosen != nullptr) return {chosen->entry->params, chosen->entry};
    if (const auto* e =
            best_class_entry(index.class_entries, level, key, limits, element_bytes, transposes, problem_name, precision))
      return {e->params, e};
  }
  // No entry of another precision fits: the caller falls back to the element type's own.
  return precision == "default" ? last_resort() : gemm_default_choice{{}, nullptr};
}

}  // namespace

gemm_default_choice choose_default(const gemm_defaults_index& index, const gemm_device_key& key,
                                   const gemm_limits& limits, int element_bytes, const gemm_problem_shape& shape,
                                   std::string_view precision, std::int64_t compute_units) {
  return split_for_the_call(
      choose_entry(index.grouped(), key, limits, element_bytes, shape, precision, compute_units), element_bytes,
      shape, compute_units);
}

gemm_default_choice choose_default(const std::vector<gemm_default_entry>& table, const gemm_device_key& key,
                                   const gemm_limits& limits, int element_bytes, const gemm_problem_shape& shape,
                                   std::string_view precision, std::int64_t compute_units) {
  return choose_default(gemm_defaults_index(table), key, limits, element_bytes, shape, precision, compute_units);
}

gemm_default_choice choose_tensor_core_default(const std::vector<gemm_default_entry>& table,
                                               const gemm_device_key& key, const gemm_limits& limits,
                                               int element_bytes, const gemm_problem_shape& shape,
                                               std::string_view precision, std::int64_t compute_units) {
  return choose_tensor_core_default(gemm_defaults_index(table), key, limits, element_bytes, shape, precision,
                                    compute_units);
}

gemm_default_choice choose_tensor_core_default(const gemm_defaults_index& index, const gemm_device_key& key,
                                               const gemm_limits& limits, int element_bytes,
                                               const gemm_problem_shape& shape, std::string_view precision,
                                               std::int64_t compute_units) {
  const auto blocks = [&](const gemm_params& p) {
    const gemm_rule_values d = derive(p, element_bytes);
    return ((shape.m + d.block_rows - 1) / d.block_rows) * ((shape.n + d.block_cols - 1) / d.block_cols) *
           std::max<std::int64_t>(shape.batch, 1);
  };
  const std::int64_t units = std::max<std::int64_t>(compute_units, 1);
  const auto own = choose_default(index, key, limits, element_bytes, shape, precision);
  if (own.entry != nullptr && 2 * blocks(own.params) >= units) return own;
  const auto smallest =
      choose_default(index, key, limits, element_bytes, {1, 1, 1, 1, shape.trans_a, shape.trans_b}, precision);
  if (smallest.entry != nullptr && blocks(smallest.params) >= units) return smallest;
  // Only TF32 has another path (the exact one); 16-bit operands take their own entry, however few
  // its blocks.
  return precision == "tf32" ? gemm_default_choice{{}, nullptr} : own;
}

gemm_default_choice choose_default(const runtime::device_info& device, int element_bytes,
                                   const gemm_problem_shape& shape, std::string_view precision) {
  // Every blas::gemm call asks this. The walk over the table (case-insensitive matches, distances,
  // the rules) took more host time than PoCL's enqueue and half of a small call's host time on an
  // H200's host, so a pick is remembered per device and problem. The table is built once per
  // process, so a remembered pick never goes stale. The key holds every field of the device that
  // describe_device, device_limits and the fill rule read.
  using memo_key = std::tuple<std::string, std::string, std::string, runtime::device_type, std::uint32_t, std::uint64_t,
                              std::size_t, int, int, std::int64_t, std::int64_t, std::int64_t, std::int64_t, bool, bool,
                              std::string>;
  static std::mutex memo_mutex;
  static std::map<memo_key, gemm_default_choice> memo;
  // A bound on the memory a program of ever-new shapes holds: past it the memo starts over.
  constexpr std::size_t memo_capacity = 4096;
  memo_key k{device.platform_name, device.name, device.vendor, device.type, device.compute_units,
             device.local_memory_bytes, device.max_work_group_size, device.nvidia_compute_capability, element_bytes,
             shape.m, shape.n, shape.k, shape.batch, shape.trans_a, shape.trans_b, std::string(precision)};
  {
    std::lock_guard lock(memo_mutex);
    if (const auto it = memo.find(k); it != memo.end()) return it->second;
  }
  const gemm_default_choice choice = choose_default(gemm_defaults_table_index(), describe_device(device),
                                                    device_limits(device), element_bytes, shape, precision,
                                                    device.compute_units);
  std::lock_guard lock(memo_mutex);
  if (memo.size() >= memo_capacity) memo.clear();
  memo.emplace(std::move(k), choice);
  return choice;
}

gemm_default_choice choose_default(const runtime::device_info& device, int element_bytes, bool trans_a, bool trans_b,
                                   gemm_problem_class problem) {
  const gemm_device_key key = describe_device(device);
  const gemm_limits limits = device_limits(device);
  const std::string transposes = fmt::format("{}{}", trans_a ? 't' : 'n', trans_b ? 't' : 'n');
  const std::string problem_name(to_string(problem));
  for (gemm_match_level level : levels)
    if (const auto* e = best_class_entry(gemm_defaults_table_index().grouped().class_entries, level, key, limits,
                                         element_bytes, transposes, problem_name, "default"))
      return {e->params, e};
  return last_resort();
}

}  // namespace tessera::blas
