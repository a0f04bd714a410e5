#pragma once
// The defaults table: which configuration gemm() uses on a device for a problem.
//
// Entries come from three places, in this order: the files named by TESSERA_GEMM_DEFAULTS (a
// defaults JSON of your own, e.g. just written by gen/select_defaults.py; several separated by
// ':'), the tuner's committed winners (configs/defaults/*.json, rendered into the table by
// gen/defaults_table.py at build time), then the hand-picked ones of src/blas/gemm_defaults.def.
//
// Two kinds of entry:
//   * tuned shapes: the configuration that won at one (m, n, k, batch, transposes) on one device
//     (select_defaults.py writes them, several per shape when runner-ups came within a few
//     percent). They match the device by name and also, one level down, every device of the
//     same architecture (an H100 gets the H200's entries before the vendor's hand-picked ones).
//   * problem classes (small, medium, large, batched, or any): hand-picked, and tuned before the
//     shape database existed.
// A tuned shape may also carry measurements: every configuration of the database timed at that
// shape (entries of role measured, written by select_defaults.py --measured from a run of the
// tuner built with the database's configurations alone, scripts/gpu-run.sh selection-matrix).
// So may shapes measured for evidence alone, never tuned (configs/shapes/coverage.json,
// select_defaults.py --evidence, scripts/gpu-run.sh coverage-matrix): the measured rule weighs
// them as it weighs the tuned shapes' measurements.
// The lookup walks the levels name, architecture, vendor, type, any, as CLBlast's database
// does. At each level:
//   1. among the tuned shapes that match, fit the device, are of the call's element type and
//      precision and lie within max_shape_distance of the call: at the call's own shape, its
//      entry, unless the device's compute units are known and the database also timed its
//      configurations there (a measured shape of the level at the call's shape, from the
//      entry's source or one read before it: then the measured rule, whose timings compare
//      every configuration of the database in one run);
//      else, where the device's compute units are known and measured shapes match, the
//      measured rule (measured_shape_score below): of the configurations measured at the
//      nearest measured shape (within measured_rule_reach) that fit the device, the one that
//      the measurements at the measured_rule_shapes nearest say is fastest at the call (among
//      those timed at enough of them: measured_rule_coverage; at a measured shape, among those
//      timed near the fastest there: measured_rule_own_shape_floor); else
//      the nearest in log space
//      (shape_distance below) when the compute units are not known; else, among those within
//      fill_choice_reach of the nearest, the one whose configuration keeps the device fullest
//      at the call compared with at its own tuned shape (tuned_shape_fill_score below). At equal
//      score (or distance) the nearer, then the first written (a shape's shared configuration
//      before its runner-up);
//   2. else among the class entries that match and are of the call's precision: the one that
//      names most of (element type, transposes, class), the first among equals.
// A tuned shape's local-family configuration picked for another shape runs with the split of
// K that the call's shape needs where the compute units are known (chosen_split_k, written into
// the choice's split_k): its own split was tuned for its shape's tiles only.
// An entry whose configuration does not fit the device is skipped, so the chain always ends in
// a configuration that runs (the last one is naive with a 1x1 work-group). A lookup of another
// precision than "default" (TF32) ends with no entry where none fits the device (one without
// tensor cores): gemm() then takes the element type's own arithmetic.
#include <cstdint>
#include <memory>
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

/// The selection rule's distance between a call and a tuned shape: the Euclidean distance of
/// (log m, log n, log k / 2, log batch), plus 1 when the transposes differ. Each doubling of M, N
/// or the batch counts as much as a factor of 4 in K: how many work-groups there are (and how
/// full the last row and column of tiles is) decides a configuration more than the length of
/// its K loop. A transpose change counts as much as a factor e in M: a tile tuned for the same
/// transposes at a somewhat different size serves better than one tuned for other transposes
/// at the same size, but a tuned shape of other transposes still beats a hand-picked class.
/// Sizes below 1 count as 1.
double shape_distance(const gemm_problem_shape& call, const gemm_problem_shape& tuned);

/// How far a tuned shape reaches: about a factor 6 in both M and N, 12 in one of them, 150 in K
/// alone. Beyond it a tile tuned for another regime (a 128 x 128 block for a 64 x 64 problem)
/// is no evidence, and the class entries of the level, then the next level, decide.
inline constexpr double max_shape_distance = 2.5;

/// How much farther than the nearest tuned shape another may lie and still be weighed by its
/// fill (in shape_distance's units: about a factor 1.6 in M or N).
inline constexpr double fill_choice_reach = 0.5;

/// A candidate's score at a call: device_fill at the call over device_fill at the shape it was
/// tuned at (what a tile measured there gains or loses here), times exp(-0.2 x distance) (a
/// nearer shape's measurement is the better evidence). Chosen by leave-one-shape-out replays of
/// the H200 sweeps (gen/selection_replay.py): a tuned shape's entries hidden, the rule picks from the
/// others, the pick's measured speed there over the best measured there; the nearest-shape rule
/// alone had sent few-tile shapes to tiles that left most compute units idle (benchmark/RESULTS.md,
/// issue 12).
double tuned_shape_fill_score(const gemm_params& params, int element_bytes, const gemm_problem_shape& call,
                              const gemm_problem_shape& tuned, std::int64_t compute_units);

/// The measured rule weighs the measurements of this many nearest measured shapes.
inline constexpr int measured_rule_shapes = 8;

/// How far a measured shape reaches (shape_distance): farther than a tuned shape's winner
/// (max_shape_distance), since its measurements are weighed by fill and averaged with the other
/// near ones; at the H200's untuned batched shapes they served better than the class entries.
inline constexpr double measured_rule_reach = 3.5;

/// A measured shape's weight falls by a factor e every measured_rule_scale of shape_distance
/// farther from the call (a factor e in M or N, or a transpose change).
inline constexpr double measured_rule_scale = 1.0;

/// A measured shape's weight also falls by a factor e every measured_rule_fill_scale of
/// |log(fill gain)|, the gain being device_fill at the call over device_fill at the measured shape:
/// the fill correction is a model, and a measurement taken at another fill says less of the call
/// than one taken at the same fill. On the H200 a 64 x 64 k-group block filled 0.59-0.69 of the
/// device at three neighbours of 161 x 1585 x 4207 TT and 0.83 at the call; the gain of 1.2-1.4x
/// made it the pick there, where it ran at 0.74x cuBLAS and a 128 x 64 block split per call, of
/// the same fill at the call as at its neighbours, at 0.96x. Leaving each of the database's 146
/// measured shapes out in turn (gen/selection_replay.py --own-figures), the picks reach 0.943 of
/// the best there (0.927 without this term; 0.938 and 0.934 at scales 0.3 and 1.0); side by side
/// at 196 changed picks, 1.027x the speed (benchmark/RESULTS.md, issue 12).
inline constexpr double measured_rule_fill_scale = 0.5;

/// The weight of a measured shape's evidence for a configuration at a call: exp(-distance /
/// measured_rule_scale - |log(fill_gain)| / measured_rule_fill_scale).
double measured_shape_weight(double distance, double fill_gain);

/// The measured rule weighs a configuration only where the near shapes that timed it carry at
/// least this share of the distance weight (exp(-distance / measured_rule_scale)) of all the
/// measured_rule_shapes nearest. A configuration new to the database is timed at the shapes of its
/// own draw before the others get its figures (select_defaults.py --added); judged there alone it
/// looked best where those shapes were its best. On the H200 the whole-K k-group blocks of the
/// short-K draw (K 64-512), timed at those 16 shapes only, became the picks at long-K calls of a
/// short side (5654 x 104 x 3784 TN: their two timed shapes carried 0.25 of the weight) and ran
/// there at 0.57-0.61x cuBLAS. At the 18 picks of the check shapes that this share changes,
/// side by side on the H200: 1.095x the speed, below 0.75x cuBLAS 8 -> 3 (the losses: 193 x 4151
/// x 215 NT 0.93 -> 0.77, and 2665 x 1911 x 2065 NT 0.81 -> 0.74, where a block timed at two of
/// its eight near shapes had been right).
/// Leaving each measured shape out (gen/selection_replay.py --own-figures) scores 0.940 of the
/// best with this share at 0, 0.2 and 0.3, 0.937 at 0.5 (benchmark/RESULTS.md, issue 12,
/// evidence for short-K calls). If no configuration of the nearest shape has the share, the best
/// of them is still taken.
inline constexpr double measured_rule_coverage = 0.3;

/// At a call's own measured shape the measured rule weighs only the configurations timed there at
/// this fraction of the fastest timed there (of those that fit the device) or more: the near
/// shapes' timings rank the shape's own near-best, they do not overrule its timings by more. On
/// the H200 at 512^3 NN the near shapes' timings made a 64 x 128 block the pick, timed at 0.73 of
/// the fastest there; it ran 10.4-16.3 TFLOP/s from run to run (1.08x CLBlast in one suite run),
/// where the 64 x 16 block timed fastest there runs 15.2-16.4 in every run. Of the 7738 picks of
/// the shape files, 3 change, all at measured shapes; side by side (old, new, new, old, old, new):
/// 512^3 NN 1.139x, 62 x 347 x 1389 TN 1.078x, 75 x 330 x 2307 TN 1.155x, eight unchanged picks
/// beside them 0.996x (benchmark/RESULTS.md, issue 12). At 0.8, 512^3 took a 64 x 32 block timed
/// at 0.81 of the fastest there.
inline constexpr double measured_rule_own_shape_floor = 0.85;

/// What a configuration measured at a tuned shape says of it at a call: its speed there as a
/// fraction of the fastest configuration measured there, times device_fill at the call over
/// device_fill there (what its tiles gain or lose at the call). At the call its measured split
/// counts only up to the split the call runs: where chosen_split_k gives the call fewer slices
/// (or none), its fill there is that of those slices. The measured rule takes the
/// configuration with the largest weighted mean of the logarithm of this over the nearest
/// measured shapes where it was measured (weights measured_shape_weight), among those timed at
/// enough of them (measured_rule_coverage). Chosen
/// on the H200's matrix of every database configuration timed at 74 shapes (gen/selection_replay.py
/// --matrix, benchmark/RESULTS.md, issue 12): at 32 untuned shapes its picks reach 0.946 of the
/// best configuration of the database there (geometric mean), the fill rule's 0.885; leaving each
/// of the 42 tuned shapes out in turn, 0.947 against 0.854.
double measured_shape_score(const gemm_params& params, int element_bytes, double fraction_of_best,
                            const gemm_problem_shape& call, const gemm_problem_shape& measured,
                            std::int64_t compute_units);

/// What a table entry matches on.
enum class gemm_match_level { name, architecture, vendor, type, any };

/// What a tuned shape's entry records.
enum class gemm_entry_role {
  tuned,     // a configuration that won at the shape (or the default that held there): a pick
  measured,  // a configuration of the database timed at the shape (gflops): the measured rule's evidence
};

/// One entry of the defaults table.
struct gemm_default_entry {
  gemm_match_level level;
  std::string match;        // compared case-insensitively (the name: as a substring)
  int element_bytes;        // 4, 8, or 0 for any
  std::string transposes;   // "nn", "nt", "tn", "tt" or "any"
  std::string problem;      // "small", "medium", "large", "batched" or "any"; a tuned shape's own class
  gemm_params params;
  std::string origin;       // where the entry came from (hand-picked, a tuning run)
  /// A tuned shape's sizes (empty: a class entry).
  std::optional<gemm_problem_shape> shape;
  /// The architecture of the device a tuned shape was tuned on ("sm_90"): it also serves every
  /// device of that architecture, at the architecture level. Empty: only devices matching `match`.
  std::string architecture;
  /// The arithmetic the entry was tuned for: "default" (the element type's own); issue 13's
  /// math modes (16-bit inputs, TF32) name theirs. The lookup serves a call only entries of its
  /// own precision.
  std::string precision = "default";
  gemm_entry_role role = gemm_entry_role::tuned;
  /// GFLOP/s measured at the tuned shape (0: not recorded); a measured entry's is above 0.
  double gflops = 0.0;
  /// Where the table read it: 0, 1, ... for the files of TESSERA_GEMM_DEFAULTS in order, then one
  /// more for the built-in entries. A tuned shape's timings decide at that shape over its tuned
  /// entry only where they come from the entry's source or one read before it: the built-in
  /// database's timings do not displace a winner the user has just tuned.
  int source = 0;
};

/// The table: the files of TESSERA_GEMM_DEFAULTS (read once, at the first lookup; a file that
/// cannot be read or holds a bad entry throws tessera::argument_error naming it and the JSON
/// path), then the built-in entries; each entry's source says which.
const std::vector<gemm_default_entry>& gemm_defaults_table();

/// A table with what a pick reads of it grouped once: the tuned shapes' entries, the class entries,
/// and the measured rows shape by shape. A pick then weighs those (some hundred entries and
/// measured shapes) instead of walking every row: the H200's database has 17545, and that walk was
/// most of a new shape's pick (0.5 ms). It points into the table, which must outlive it unchanged;
/// it may be shared between threads.
class gemm_defaults_index {
 public:
  explicit gemm_defaults_index(const std::vector<gemm_default_entry>& table);
  ~gemm_defaults_index();
  gemm_defaults_index(const gemm_defaults_index&) = delete;
  gemm_defaults_index& operator=(const gemm_defaults_index&) = delete;

  struct groups;  // what the lookup reads (gemm_defaults.cpp)
  const groups& grouped() const { return *groups_; }

 private:
  std::unique_ptr<groups> groups_;
};

/// gemm_defaults_table(), indexed at the first use.
const gemm_defaults_index& gemm_defaults_table_index();

/// The chosen entry's configuration and where it came from.
struct gemm_default_choice {
  gemm_params params;
  const gemm_default_entry* entry;  // null for the built-in last resort
};

/// Walks the table for this device and problem by the rule above; the result fits the device's
/// limits. For a precision other than "default", entry is null when nothing of it fits.
gemm_default_choice choose_default(const runtime::device_info& device, int element_bytes,
                                   const gemm_problem_shape& shape, std::string_view precision = "default");

/// The same over a table and a device key of the caller's (tests, tools that compare databases);
/// compute_units 0 (not known): the nearest tuned shape, without the fill.
gemm_default_choice choose_default(const std::vector<gemm_default_entry>& table, const gemm_device_key& key,
                                   const gemm_limits& limits, int element_bytes, const gemm_problem_shape& shape,
                                   std::string_view precision = "default", std::int64_t compute_units = 0);

/// The same over an index: for many picks in one table (the table overload indexes it per pick).
gemm_default_choice choose_default(const gemm_defaults_index& index, const gemm_device_key& key,
                                   const gemm_limits& limits, int element_bytes, const gemm_problem_shape& shape,
                                   std::string_view precision = "default", std::int64_t compute_units = 0);

/// A call whose products may run on tensor cores (precision "tf32", "fp16" or "bf16", elements
/// of A and B of element_bytes): choose_default of that precision, kept where its blocks give at
/// least half of the device's compute_units one; else the smallest blocks of the precision (its
/// entry for a 1 x 1 x 1 problem) where they give every unit one; else, for TF32, no entry (entry
/// null: the call takes the exact path, which has split-K), and for 16-bit operands (no other
/// path) the precision's own entry, null only where none fits. Tensor-core blocks are large (64 x 64 to
/// 256 x 128 of C); measured on an H200 (132 SMs; benchmark/RESULTS.md, issue 13): 1024^3 41 ->
/// 58 TFLOP/s with 64 x 64 blocks, 2048^3 162 with 128 blocks of 256 x 128 but 66 with 64 x 64,
/// 8192 x 64 x 8192 7.4 in TF32 against 22.7 exact.
gemm_default_choice choose_tensor_core_default(const std::vector<gemm_default_entry>& table,
                                               const gemm_device_key& key, const gemm_limits& limits,
                                               int element_bytes, const gemm_problem_shape& shape,
                                               std::string_view precision, std::int64_t compute_units);
gemm_default_choice choose_tensor_core_default(const gemm_defaults_index& index, const gemm_device_key& key,
                                               const gemm_limits& limits, int element_bytes,
                                               const gemm_problem_shape& shape, std::string_view precision,
                                               std::int64_t compute_units);

/// Class entries only (no tuned shapes): the lookup before the shape database.
gemm_default_choice choose_default(const runtime::device_info& device, int element_bytes, bool trans_a,
                                   bool trans_b, gemm_problem_class problem);

/// The entries of a defaults JSON (configs/defaults/*.json), in file order; throws
/// tessera::argument_error naming the path and the JSON path of what is wrong.
std::vector<gemm_default_entry> read_gemm_defaults_file(const std::string& path);

/// The entries of several defaults JSONs, file after file, each entry's source its file's place
/// in paths (0, 1, ...): the table TESSERA_GEMM_DEFAULTS names, before the built-in entries.
std::vector<gemm_default_entry> read_gemm_defaults_files(const std::vector<std::string>& paths);

/// The device's limits as the rules name them.
gemm_limits device_limits(const runtime::device_info& device);

/// The compute capability an NVIDIA architecture names ("sm_90" -> 90: the inverse of a device
/// key's architecture), for a device described by its key (gemm_pick); nullopt for another form.
std::optional<int> nvidia_compute_capability(std::string_view architecture);

}  // namespace tessera::blas
