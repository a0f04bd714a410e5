#pragma once
// GEMM kernel configurations, as values (gemm_params) and as types (gemm_kernel_config), and
// their validity. Two tables define them: gemm_params.def (the kernel families and the
// parameters: fields, defaults, allowed values, where each applies) and gemm_rules.def (the
// rules relating parameters to each other, the element type and the device). A typed
// configuration expands every check into its own static_assert, a run-time one is checked by
// check_gemm_rules() before a launch, and the tuner's generator (gen/) reads the same files.
// This header needs no OpenCL, so a configuration can be checked by the compiler alone.
#include <compare>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

// A choice's values, one macro call each (at most 8: gemm_params.def's grammar says so).
#define TESSERA_GEMM_EACH_1(m, n, t, v) m(n, t, v)
#define TESSERA_GEMM_EACH_2(m, n, t, v, ...) m(n, t, v) TESSERA_GEMM_EACH_1(m, n, t, __VA_ARGS__)
#define TESSERA_GEMM_EACH_3(m, n, t, v, ...) m(n, t, v) TESSERA_GEMM_EACH_2(m, n, t, __VA_ARGS__)
#define TESSERA_GEMM_EACH_4(m, n, t, v, ...) m(n, t, v) TESSERA_GEMM_EACH_3(m, n, t, __VA_ARGS__)
#define TESSERA_GEMM_EACH_5(m, n, t, v, ...) m(n, t, v) TESSERA_GEMM_EACH_4(m, n, t, __VA_ARGS__)
#define TESSERA_GEMM_EACH_6(m, n, t, v, ...) m(n, t, v) TESSERA_GEMM_EACH_5(m, n, t, __VA_ARGS__)
#define TESSERA_GEMM_EACH_7(m, n, t, v, ...) m(n, t, v) TESSERA_GEMM_EACH_6(m, n, t, __VA_ARGS__)
#define TESSERA_GEMM_EACH_8(m, n, t, v, ...) m(n, t, v) TESSERA_GEMM_EACH_7(m, n, t, __VA_ARGS__)
#define TESSERA_GEMM_EACH_PICK(_1, _2, _3, _4, _5, _6, _7, _8, each, ...) each
#define TESSERA_GEMM_FOR_EACH_VALUE(m, n, t, ...)                                                                 \
  TESSERA_GEMM_EACH_PICK(__VA_ARGS__, TESSERA_GEMM_EACH_8, TESSERA_GEMM_EACH_7, TESSERA_GEMM_EACH_6,                \
                         TESSERA_GEMM_EACH_5, TESSERA_GEMM_EACH_4, TESSERA_GEMM_EACH_3, TESSERA_GEMM_EACH_2,        \
                         TESSERA_GEMM_EACH_1)(m, n, t, __VA_ARGS__)

namespace tessera::blas {

/// The kernel families, in gemm_params.def's order (the first is gemm_params' default).
enum class gemm_family {
#define TESSERA_GEMM_FAMILY(name, source, meaning) name,
#include <tessera/blas/gemm_params.def>
};

/// A family as gemm_params.def describes it: its kernel is `source` (embedded, under src/)
/// after blas/gemm_common.cl.
struct gemm_family_info {
  gemm_family family;
  std::string_view name, source, meaning;
};
inline constexpr gemm_family_info gemm_families[] = {
#define TESSERA_GEMM_FAMILY(name, source, meaning) {gemm_family::name, #name, source, meaning},
#include <tessera/blas/gemm_params.def>
};

constexpr std::string_view to_string(gemm_family family) {
  const auto i = static_cast<std::size_t>(family);
  return i < std::size(gemm_families) ? gemm_families[i].name : std::string_view("unknown");
}

// The enum class of each choice parameter (gemm_batch_type, ...).
#define TESSERA_GEMM_CHOICE(name, type, default_value, unused, families, meaning, ...) enum class type { __VA_ARGS__ };
#include <tessera/blas/gemm_params.def>

/// A kernel configuration as plain values: a field per parameter of gemm_params.def, with its
/// default. It is a structural type, so it also serves as a template argument
/// (gemm_kernel_config).
struct gemm_params {
  gemm_family family{};
#define TESSERA_GEMM_INT(name, default_value, unused, families, allowed, meaning) int name = default_value;
#define TESSERA_GEMM_BOOL(name, default_value, unused, families, meaning) bool name = default_value;
#define TESSERA_GEMM_PAIR(name, first, second, default_first, default_second, unused_first, unused_second, families, \
                          allowed, meaning)                                                                          \
  int first = default_first;                                                                                         \
  int second = default_second;
#define TESSERA_GEMM_CHOICE(name, type, default_value, unused, families, meaning, ...) type name = type::default_value;
#include <tessera/blas/gemm_params.def>

  friend constexpr bool operator==(const gemm_params&, const gemm_params&) = default;
  // An order, for caches keyed by configurations (blas::gemm's kernels).
  friend constexpr auto operator<=>(const gemm_params&, const gemm_params&) = default;
};

// ---- the parameter table, for code that treats every parameter alike ---------------------

enum class gemm_param_kind { integer, boolean, pair, choice };

/// One parameter of gemm_params.def. Values are read and written as integers: a boolean as
/// 0 or 1, a choice as the index of its value, a pair as two components.
struct gemm_param_info {
  std::string_view name;
  gemm_param_kind kind;
  std::string_view fields[2];  // the C++ fields: a pair's two, else {name, ""}
  std::int64_t default_value[2];
  std::int64_t unused[2];      // the value in families the parameter does not apply to
  std::string_view families;   // "all", or family names separated by spaces
  std::string_view allowed;    // "v v v" or ">= n"; "" for booleans and choices
  std::string_view values;     // a choice's value names, comma-separated; else ""
  std::string_view meaning;
  std::int64_t (*get)(const gemm_params& p, int component);
  void (*set)(gemm_params& p, int component, std::int64_t value);

  constexpr int components() const { return kind == gemm_param_kind::pair ? 2 : 1; }
};

namespace detail {
template <auto First, auto Second = First>
constexpr std::int64_t get_field(const gemm_params& p, int component) {
  return static_cast<std::int64_t>(component == 0 ? p.*First : p.*Second);
}
template <auto First, auto Second = First>
constexpr void set_field(gemm_params& p, int component, std::int64_t value) {
  auto& field = component == 0 ? p.*First : p.*Second;
  field = static_cast<std::remove_reference_t<decltype(field)>>(value);
}
}  // namespace detail

/// Every parameter of gemm_params.def, in the table's order.
inline constexpr gemm_param_info gemm_param_table[] = {
#define TESSERA_GEMM_INT(name, default_value, unused, families, allowed, meaning)                              \
  {#name, gemm_param_kind::integer, {#name, ""}, {default_value, 0}, {unused, 0}, families, allowed, "", meaning, \
   &detail::get_field<&gemm_params::name>, &detail::set_field<&gemm_params::name>},
#define TESSERA_GEMM_BOOL(name, default_value, unused, families, meaning)                                      \
  {#name, gemm_param_kind::boolean, {#name, ""}, {default_value, 0}, {unused, 0}, families, "", "", meaning,      \
   &detail::get_field<&gemm_params::name>, &detail::set_field<&gemm_params::name>},
#define TESSERA_GEMM_PAIR(name, first, second, default_first, default_second, unused_first, unused_second, families, \
                          allowed, meaning)                                                                          \
  {#name, gemm_param_kind::pair, {#first, #second}, {default_first, default_second}, {unused_first, unused_second},   \
   families, allowed, "", meaning, &detail::get_field<&gemm_params::first, &gemm_params::second>,                     \
   &detail::set_field<&gemm_params::first, &gemm_params::second>},
#define TESSERA_GEMM_CHOICE(name, type, default_value, unused, families, meaning, ...)                         \
  {#name, gemm_param_kind::choice, {#name, ""}, {static_cast<std::int64_t>(type::default_value), 0},            \
   {static_cast<std::int64_t>(type::unused), 0}, families, "", #__VA_ARGS__, meaning,                          \
   &detail::get_field<&gemm_params::name>, &detail::set_field<&gemm_params::name>},
#include <tessera/blas/gemm_params.def>
};

/// Whether a word list ("a b c") holds word.
constexpr bool gemm_word_listed(std::string_view list, std::string_view word) {
  while (!list.empty()) {
    const std::size_t space = list.find(' ');
    if (list.substr(0, space) == word) return true;
    if (space == std::string_view::npos) break;
    list.remove_prefix(space + 1);
  }
  return false;
}

/// Whether a parameter whose table entry names these families means something in family.
constexpr bool gemm_param_applies(std::string_view families, gemm_family family) {
  return families == "all" || gemm_word_listed(families, to_string(family));
}

/// Whether value is allowed by a table entry's "allowed" column: "v v v" or ">= n".
constexpr bool gemm_value_allowed(std::string_view allowed, std::int64_t value) {
  const auto number = [](std::string_view text) {
    std::int64_t n = 0;
    bool negative = false;
    for (const char c : text) {
      if (c == '-') negative = true;
      else if (c >= '0' && c <= '9') n = n * 10 + (c - '0');
    }
    return negative ? -n : n;
  };
  if (allowed.empty()) return true;
  if (allowed.substr(0, 2) == ">=") return value >= number(allowed.substr(2));
  while (!allowed.empty()) {
    const std::size_t space = allowed.find(' ');
    if (number(allowed.substr(0, space)) == value) return true;
    if (space == std::string_view::npos) break;
    allowed.remove_prefix(space + 1);
  }
  return false;
}

// ---- validity --------------------------------------------------------------------------

/// The device limits a configuration must fit.
struct gemm_limits {
  std::int64_t max_local_memory_bytes;
  std::int64_t max_work_group_size;
  std::int64_t tensor_cores = 0;                // 1: mma.sync runs (gemm_rules.def)
  std::int64_t mma_max_local_memory_bytes = 0;  // what a tensor-core kernel's local arrays may take
};

/// Limits used at compile time: the largest of the tuning targets (64 KiB of local memory,
/// 1024 work-items, tensor cores with sm_90's 227 KiB). The device's own limits are checked
/// again before each launch.
inline constexpr gemm_limits compile_time_limits{65536, 1024, 1, 232448};

/// The values the checks read: those bound from the configuration (detail/gemm_bound_inputs.inc)
/// and the TESSERA_GEMM_INPUT lines of gemm_rules.def.
struct gemm_rule_inputs {
#define TESSERA_GEMM_BOUND(input, value) std::int64_t input = 0;
#include <tessera/blas/detail/gemm_bound_inputs.inc>
#undef TESSERA_GEMM_BOUND
#define TESSERA_GEMM_INPUT(name, meaning) std::int64_t name = 0;
#define TESSERA_GEMM_DERIVED(name, expression)
#define TESSERA_GEMM_RULE(name, expression, message)
#include <tessera/blas/gemm_rules.def>
#undef TESSERA_GEMM_INPUT
#undef TESSERA_GEMM_DERIVED
#undef TESSERA_GEMM_RULE

  /// The family whose is_<family> is set.
  constexpr gemm_family family() const {
#define TESSERA_GEMM_FAMILY(name, source, meaning) \
  if (is_##name != 0) return gemm_family::name;
#include <tessera/blas/gemm_params.def>
    return gemm_family{};
  }
};

/// Binds a configuration, the element size and the device limits to the rule inputs.
constexpr gemm_rule_inputs make_rule_inputs(const gemm_params& p, int element_bytes, const gemm_limits& limits) {
  gemm_rule_inputs in;
#define TESSERA_GEMM_BOUND(input, value) in.input = (value);
#include <tessera/blas/detail/gemm_bound_inputs.inc>
#undef TESSERA_GEMM_BOUND
  // gemm_rules.def's own inputs: what a configuration does not say.
  in.element_bytes = element_bytes;
  in.max_local_memory_bytes = limits.max_local_memory_bytes;
  in.max_work_group_size = limits.max_work_group_size;
  in.tensor_cores = limits.tensor_cores;
  in.mma_max_local_memory_bytes = limits.mma_max_local_memory_bytes;
  return in;
}

/// The rule inputs with the derived values of gemm_rules.def (k_tile, block_rows,
/// local_memory_bytes, ...) and each of its rules as a test.
struct gemm_rule_values : gemm_rule_inputs {
#define TESSERA_GEMM_INPUT(name, meaning)
#define TESSERA_GEMM_DERIVED(name, expression) std::int64_t name = (expression);
#define TESSERA_GEMM_RULE(name, expression, message)
#include <tessera/blas/gemm_rules.def>
#undef TESSERA_GEMM_DERIVED
#undef TESSERA_GEMM_RULE
#define TESSERA_GEMM_DERIVED(name, expression)
#define TESSERA_GEMM_RULE(name, expression, message) \
  constexpr bool rule_##name() const { return expression; }
#include <tessera/blas/gemm_rules.def>
#undef TESSERA_GEMM_INPUT
#undef TESSERA_GEMM_DERIVED
#undef TESSERA_GEMM_RULE

  constexpr explicit gemm_rule_values(const gemm_rule_inputs& inputs) : gemm_rule_inputs(inputs) {}
};

/// The rule values of one configuration for elements of element_bytes (the derived values are
/// what the launch and the kernel use).
constexpr gemm_rule_values derive(const gemm_params& params, int element_bytes) {
  return gemm_rule_values(make_rule_inputs(params, element_bytes > 0 ? element_bytes : 1, compile_time_limits));
}

/// The largest split that split_k = 0 chooses (and that the rules allow: split_k_at_most_256).
inline constexpr int max_chosen_split_k = 256;

/// The cost model behind split_k = 0 (chosen_split_k), fitted to split-K measured on an H200
/// (132 units; blocks from 32 x 32 to 128 x 128 with K tiles of 8 to 32 floats: the probes of
/// benchmark/gemm/split_probe/, scored by benchmark/gemm/split_model_fit.py, and the shape-suite
/// runs of benchmark/RESULTS.md). The work-groups are spread evenly over the compute units; the
/// busiest unit runs its share in batches of H at once (split_k_groups_held), where G of them
/// (split_k_groups_per_unit) keep a unit busy, and a batch of fewer than
/// split_k_unit_busy_from x G takes as long as that many. Each work-group takes its slice's K
/// tiles plus the slice's overhead (its start, its partial tile's store and its share of the
/// second kernel's sum), as long as split_k_slice_overhead_k elements of K; the model's time is
/// the busiest unit's, in K tiles of one work-group run alone at full speed.
///
/// G is split_k_unit_outputs over a work-group's outputs (one 128 x 128 block, two of 64 x 128,
/// four of 64 x 64, eight of 64 x 32; a block's outputs once per k-group, as each k-group sums its
/// share of K in registers of its own), with at most split_k_busy_work_items work-items. One constant
/// count for every block did not fit the probes: two a unit sent 128 x 128 blocks into a second
/// batch (8 tiles at 167 x 393 x 2521: split 18, 144 work-groups, ran at 0.65x of split 16); one a
/// unit left the narrow blocks' units idle (3000 x 100 x 2000 in 64 x 32 blocks: whole at 0.69x of
/// split 11). A unit holding two 128 x 128 blocks at once runs them faster than one after the
/// other: 377 tiles at 3586 x 1556 x 14929 ran 1.25x faster split 2 than whole.
///
/// H is what fits a unit at once: twice G's outputs (split_k_unit_held_outputs), at most
/// split_k_unit_work_items work-items, and the work-groups' local memory, each with
/// split_k_local_memory_reserve_bytes more (what NVIDIA's driver keeps a work-group), within
/// split_k_unit_local_memory_bytes. Without the local memory the model put four 128 x 64 blocks
/// with K tiles of 16 floats (24 KiB each) in one batch, where the H200 runs three: 3 slices of
/// 175 tiles (525 work-groups) at 4388 x 279 x 8931 TT ran 0.82x of 6 slices, as 3 slices ran
/// below 2 and 4 at 4500 x 300 x 8000, 5000 x 200 x 5000 and 1200 x 1200 x 4000 (the long-K
/// probe). split_k_unit_local_memory_bytes is fitted, not the device's (which CUDA shares with the
/// L1 cache as the driver chooses): from 76 to 92 KiB the picks score alike. Over the probes' 258
/// cases the model's picks reach 0.957 of the fastest count timed, the model before 0.938; with
/// each probe file left out of the fit in turn, 0.954 (benchmark/gemm/split_model_fit.py,
/// 2026-11-30).
inline constexpr std::int64_t split_k_unit_outputs = 16384;
inline constexpr std::int64_t split_k_busy_work_items = 1024;
inline constexpr std::int64_t split_k_unit_held_outputs = 32768;
inline constexpr std::int64_t split_k_unit_work_items = 2048;
inline constexpr std::int64_t split_k_unit_local_memory_bytes = 84 * 1024;
inline constexpr std::int64_t split_k_local_memory_reserve_bytes = 1024;
inline constexpr double split_k_unit_busy_from = 1.5;

/// A slice's overhead in elements of K, whatever its K tile: a block's partial tile costs as much
/// to store with K tiles of 8 as of 16. Counted in K tiles (6 for every block, in a form fitted
/// before this one), it let blocks of short K tiles split short calls: at 4302 x 640 x 472 NT a
/// 128 x 128 block with K tiles of 8 in 3 slices ran at 0.67x of a 128 x 64 block whole
/// (2026-11-30).
inline constexpr std::int64_t split_k_slice_overhead_k = 96;

/// The work-groups of a configuration with these derived values that keep a compute unit busy
/// in the split model (G): split_k_unit_outputs over a work-group's outputs (the block's, once per
/// k-group), at most split_k_busy_work_items over its work-items, at least 1.
std::int64_t split_k_groups_per_unit(const gemm_rule_values& derived);

/// The work-groups of a configuration with these derived values that a compute unit runs at once
/// in the split model (H): split_k_unit_held_outputs over a work-group's outputs, at most
/// split_k_unit_work_items over its work-items and split_k_unit_local_memory_bytes over its local
/// memory and split_k_local_memory_reserve_bytes; never fewer than G.
std::int64_t split_k_groups_held(const gemm_rule_values& derived);

/// A split call also launches a second kernel (the sum of the slices) after the first: a cost of
/// its own, whatever the slices hold, that the per-slice overhead above does not see. In the model
/// it is as long as split_k_unit_outputs outputs take over this many elements of K at full speed
/// on one unit (about 12 us on an H200). Without it the model split short-K calls of a few
/// microseconds, where the second launch costs more than the split gains: on an H200, at
/// 31 x 2745 x 157 TN a 32 x 32 block ran 9.4 us whole and the same block (another cache line,
/// single-buffered) 21.0 us in 2 slices (benchmark/RESULTS.md, issue 12).
inline constexpr std::int64_t split_k_second_launch_k = 128;

/// The second launch's cost (split_k_second_launch_k) in the units of split_k_model_time for a
/// configuration with these derived values: its K tiles of groups_per_unit work-groups.
double split_k_second_launch_time(const gemm_rule_values& derived);

/// A slice's overhead (split_k_slice_overhead_k) in the K tiles of a configuration with these
/// derived values.
double split_k_slice_overhead_time(const gemm_rule_values& derived);

/// A split is taken only where the model expects it this much faster than the whole call: a
/// margin for what the model does not see.
inline constexpr double chosen_split_gain = 1.05;

/// Every slice of a chosen split holds at least this many K tiles: fewer leave the slices'
/// start and their partial tiles' traffic large beside their products.
inline constexpr std::int64_t min_split_k_slice_k_tiles = 8;

/// The model's time of one call of `tiles` output tiles (over every batch entry) and `k_tiles` K
/// tiles, split in `split`, on a device of compute_units where groups_per_unit of a configuration's
/// work-groups keep a unit busy (G) and groups_held run at once (H), in K tiles of one work-group
/// alone: with j = ceil(tiles x split / compute_units) work-groups on the busiest unit,
/// (floor(j / H) x H + max(j mod H, min(split_k_unit_busy_from x G, H)) where j mod H > 0) / G x
/// (ceil(k_tiles / split) + slice_overhead), the overhead in K tiles (split_k_slice_overhead_time).
double split_k_model_time(std::int64_t tiles, std::int64_t k_tiles, std::int64_t split, std::int64_t groups_per_unit,
                          std::int64_t groups_held, double slice_overhead, std::int64_t compute_units);

/// The split of split_k = 0 for one call of m x n x k (batch entries) on a device of
/// compute_units: the count from 1 to max_chosen_split_k, with at least min_split_k_slice_k_tiles
/// K tiles in every slice, that split_k_model_time expects fastest (the smallest among equals),
/// where it expects it, with the second launch's time added (split_k_second_launch_time), at
/// least chosen_split_gain times faster than 1; else 1. Few output tiles
/// with a long K leave most units idle without a split (an H200, 132 units: 64 x 64 x 65536 in
/// one 64 x 64 block); a few batches of tiles leave the last batch's units idle (1536^3 in 288
/// blocks of 128 x 64: 0.86x cuBLAS whole, 1.01x split in 4). From
/// (chosen_split_gain - 1) x tiles >= (1 + split_k_unit_busy_from x G) x compute_units no split
/// gains that much in the model, so large calls skip the search. It depends only on the shape, the
/// configuration and the device, so a call sums its slices in the same order, and gives the same
/// bits, on every run. Other families than local (no split-K) and set splits: their own value.
int chosen_split_k(const gemm_params& params, int element_bytes, std::int64_t m, std::int64_t n, std::int64_t k,
                   std::int64_t batch, std::int64_t compute_units);

/// A chosen split spreads every output tile over `split` work-groups, also where the tiles fill
/// whole batches of the device (compute_units x split_k_groups_held) and only the last, partial
/// batch leaves units idle. A tail split runs those whole batches' tiles unsplit and splits K only
/// for the tiles past them (the tail), in a call of its own with the split chosen for the tail's
/// shape: the partial tiles' traffic and the slices' overhead then fall on the tail alone. The
/// tiles run whole are C's first whole_blocks rows of blocks (along_rows) or columns of blocks,
/// whichever covers more of the whole batches. On an H200, at 49 shapes of a probe draw where it
/// is taken it ran 1.053x faster than the split, and at 33 fresh held-out shapes 1.064x (below
/// 0.75x cuBLAS 7 -> 1; 1969 x 2330 x 859 TN 0.63 -> 0.81x), none more than 5% slower
/// (benchmark/RESULTS.md, issue 12).
struct tail_split {
  bool along_rows = true;
  std::int64_t whole_blocks = 0;
  int split = 1;  // the tail's
};

/// The tail split of a call of m x n x k (batch entries) that runs params (local family) split in
/// `split` > 1 on a device of compute_units, where split_k_model_time expects it faster than the
/// split, counting the tail's own launch (split_k_second_launch_time) beside the sum's; nothing
/// elsewhere. No margin (chosen_split_gain): at the probe draw a margin of 5% left out shapes that
/// gained 1.7% on average. It depends only on the shape, the configuration and the device, like
/// the split, so the bits are the same on every run.
std::optional<tail_split> chosen_tail_split(const gemm_params& params, int split, int element_bytes, std::int64_t m,
                                            std::int64_t n, std::int64_t k, std::int64_t batch,
                                            std::int64_t compute_units);

struct gemm_problem_shape;

/// How blas::gemm runs a call of params picked for it (split_k = 0 or the defaults' split): the
/// tail split of its chosen split (chosen_split_k), where it copies no operand (pretransposed,
/// within max_allocation_bytes: each part would copy the operand it shares) and is not NN; the one
/// home of that decision for gemm and for the tools that report it. A call with an epilogue never
/// runs as one (the epilogue's inputs are indexed as C's whole). NN calls keep their split: at the
/// probe draw's 9 NN shapes the tail split ran 0.996x of the split, with the draw's two losses
/// (3622 x 1204 x 7126 NN 0.88 -> 0.71x cuBLAS), and at 12 held-out ones 0.973x, against 1.03-1.11x
/// for each other pair of transposes; why NN differs was not found.
std::optional<tail_split> tail_split_for_call(const gemm_params& params, int element_bytes,
                                              const gemm_problem_shape& call, std::int64_t compute_units,
                                              std::uint64_t max_allocation_bytes);

/// A copy of one operand that pretranspose makes, per batch entry, is at most this large (and at
/// most the device's largest allocation): past it the call reads its operands as they are. At
/// 4096^2 floats (64 MiB) the copy costs about 1% of the product on an H200; a larger operand
/// belongs to a product that runs well without it (benchmark/RESULTS.md, issue 12).
inline constexpr std::int64_t max_pretranspose_bytes = std::int64_t(512) << 20;

/// A copy's leading dimension is its rows rounded up to a multiple of this, so that each column
/// starts aligned for the product's vector loads (128 bytes of float).
inline constexpr std::int64_t pretranspose_row_alignment = 32;

/// The leading dimension of a copy of `rows` rows.
constexpr std::int64_t pretransposed_leading_dimension(std::int64_t rows) {
  return (rows + pretranspose_row_alignment - 1) / pretranspose_row_alignment * pretranspose_row_alignment;
}

/// The most bytes the copies of one operand may take on a device whose largest allocation is
/// max_allocation_bytes (0: not known): max_pretranspose_bytes, or less.
constexpr std::int64_t pretranspose_limit_bytes(std::uint64_t max_allocation_bytes) {
  return max_allocation_bytes > 0 && max_allocation_bytes < std::uint64_t(max_pretranspose_bytes)
             ? static_cast<std::int64_t>(max_allocation_bytes)
             : max_pretranspose_bytes;
}

/// The operands a call copies transposed before its product (pretranspose = 1): A where trans_a
/// (stored along K), B where not trans_b (stored along K). None where the configuration does not
/// ask, K is 0 (nothing is read), or one copy would exceed max_pretranspose_bytes or
/// max_allocation_bytes (0: not known).
struct pretransposed_operands {
  bool a = false, b = false;
  bool any() const { return a || b; }
};
pretransposed_operands pretransposed(const gemm_params& params, int element_bytes, std::int64_t m, std::int64_t n,
                                     std::int64_t k, bool trans_a, bool trans_b, std::uint64_t max_allocation_bytes);

/// A GEMM problem as the defaults table, the selection rule and the tuner's seeds see it.
struct gemm_problem_shape {
  std::int64_t m = 1, n = 1, k = 1, batch = 1;
  bool trans_a = false, trans_b = false;
  bool operator==(const gemm_problem_shape&) const = default;
};

/// The share of the device a configuration keeps busy on a shape, in (0, 1]: the useful part of
/// its edge tiles (m x n over the tiles' rows x columns) times the last wave's quantization (the
/// work-groups, split-K's included as chosen_split_k makes them, over whole waves of one work-group per
/// compute unit). A model, not a measurement: it sees neither occupancy above one work-group per
/// unit nor the cost of split-K's second kernel.
double device_fill(const gemm_params& params, int element_bytes, const gemm_problem_shape& shape,
                   std::int64_t compute_units);

/// One broken check: its name (a rule of gemm_rules.def, or <parameter>_allowed /
/// <parameter>_applies from gemm_params.def) and why it exists.
struct gemm_rule_violation {
  std::string_view rule;
  std::string_view message;
};

/// Every check the configuration breaks, in order (empty when it is valid for elements of
/// element_bytes on a device with these limits).
std::vector<gemm_rule_violation> check_gemm_rules(const gemm_params& params, int element_bytes,
                                                  const gemm_limits& limits = compile_time_limits);

/// Expands every check into its own static_assert, whose message names the check; it is
/// instantiated by gemm_kernel_config (and by the tuner's generated sources).
template <gemm_params P, int ElementBytes, gemm_limits Limits = compile_time_limits>
struct gemm_rules_check {
 private:
  static constexpr gemm_rule_values v{make_rule_inputs(P, ElementBytes, Limits)};
#define TESSERA_GEMM_CHECK(name, condition, message) \
  static_assert(condition, "tessera gemm rule '" #name "': " message);
#include <tessera/blas/detail/gemm_checks.inc>
#undef TESSERA_GEMM_CHECK

 public:
  static constexpr bool value = true;
};

/// A complete kernel configuration for element type T and the transposes of A and B, e.g.
/// gemm_kernel_config<gemm_params{.family = gemm_family::local, .item_rows = 8, ...}, false, true, float>.
/// Instantiating it checks every rule at compile time.
template <gemm_params P, bool TransA, bool TransB, typename T, gemm_limits Limits = compile_time_limits>
struct gemm_kernel_config {
  using value_type = T;
  static constexpr bool trans_a = TransA, trans_b = TransB;
  static constexpr gemm_params params = P;
  static_assert(gemm_rules_check<P, static_cast<int>(sizeof(T)), Limits>::value);
};

// ---- text form and kernel options --------------------------------------------------------

/// A configuration as one line: the family, then name=value for each parameter that applies
/// to it (a pair as ROWSxCOLS, a boolean as 0 or 1, a choice by its value's name), e.g.
/// "local cache_line_bytes=64 item=8x8 batch_tile=1x1 wg=16x16 sg=1x1 tl=1x1 double_buffer=1
/// no_bank_conflict_a=0 no_bank_conflict_b=0 vector_width=4 batch=strided". A parameter that
/// does not apply is written only when it differs from its unused value (an invalid
/// configuration), so the text always parses back to the same gemm_params.
std::string to_string(const gemm_params& params);
/// The inverse of to_string. The family word comes first; omitted parameters keep their
/// defaults (their unused values where they do not apply to the family); the keys of earlier
/// text forms (gemm_params.def's TESSERA_GEMM_FORMER_KEY: vw, cls, db, ...) are read too.
/// Throws tessera::argument_error naming the word it cannot read.
gemm_params parse_gemm_params(std::string_view text);

/// The -D options of the configuration's kernel for elements of element_bytes: every input the
/// configuration binds (detail/gemm_bound_inputs.inc) and every derived value of gemm_rules.def,
/// each under its name in upper case ("-DIS_LOCAL=1 ... -DITEM_ROWS=8 ... -DK_TILE=16 ...").
std::string kernel_defines(const gemm_params& params, int element_bytes);

}  // namespace tessera::blas
