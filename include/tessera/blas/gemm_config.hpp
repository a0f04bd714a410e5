#pragma once
// GEMM kernel configurations, as values (gemm_params) and as types (tile, gemm_config,
// gemm_kernel_config), and their validity rules. The rules live in gemm_rules.def alone:
// a typed configuration expands them into one static_assert each, a run-time one is
// checked by check_gemm_rules() before a launch, and the tuner's generator reads the same
// file. This header needs no OpenCL, so a configuration can be checked by the compiler alone.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::blas {

/// Where the kernel stages its operands.
enum class gemm_memory { local, no_local };
/// Which kernel: the tiled kernels (standard) or one work-item per element (naive).
enum class gemm_algorithm { standard, naive };
/// How the matrices of a batch are laid out.
enum class gemm_batch_type { strided, interleaved };
/// partial: vectors along rows, strided across the work-group; full: a work-item's rows
/// are one vector (no_local only).
enum class gemm_vectorization { partial, full };

/// The device limits a configuration must fit.
struct gemm_limits {
  std::int64_t max_local_memory_bytes;
  std::int64_t max_work_group_size;
};

/// Limits used at compile time: the largest of the tuning targets (64 KiB of local memory,
/// 1024 work-items). The device's own limits are checked again before each launch.
inline constexpr gemm_limits compile_time_limits{65536, 1024};

/// A kernel configuration as plain values. It is a structural type, so it also serves
/// as a template argument; the typed configurations below convert to it.
struct gemm_params {
  gemm_memory memory = gemm_memory::local;
  gemm_algorithm algorithm = gemm_algorithm::standard;
  gemm_batch_type batch = gemm_batch_type::strided;
  gemm_vectorization vectorization = gemm_vectorization::partial;
  int vector_width = 1;
  int cache_line_bytes = 64;  // the K tile in bytes
  int item_rows = 4;
  int item_cols = 4;
  int wg_rows = 8;
  int wg_cols = 8;
  int sg_rows = 1;
  int sg_cols = 1;
  int tl_rows = 1;
  int tl_cols = 1;
  int item_batch = 1;
  int wg_batch = 1;
  bool double_buffer = false;
  bool no_bank_conflict_a = false;
  bool no_bank_conflict_b = false;

  friend constexpr bool operator==(const gemm_params&, const gemm_params&) = default;
};

/// The kernel families, as the rule table and the kernel sources name them.
enum class gemm_family { naive, no_local, no_local_full, local };

constexpr gemm_family family_of(const gemm_params& p) {
  if (p.algorithm == gemm_algorithm::naive) return gemm_family::naive;
  if (p.memory == gemm_memory::local) return gemm_family::local;
  return p.vectorization == gemm_vectorization::full ? gemm_family::no_local_full : gemm_family::no_local;
}
std::string_view to_string(gemm_family family);

/// The values gemm_rules.def names in its TESSERA_GEMM_INPUT lines.
struct gemm_rule_inputs {
#define TESSERA_GEMM_INPUT(name, meaning) std::int64_t name;
#define TESSERA_GEMM_DERIVED(name, expression)
#define TESSERA_GEMM_RULE(name, expression, message)
#include <tessera/blas/gemm_rules.def>
#undef TESSERA_GEMM_INPUT
#undef TESSERA_GEMM_DERIVED
#undef TESSERA_GEMM_RULE
};

/// Binds a configuration, the element size and the device limits to the rule inputs.
constexpr gemm_rule_inputs make_rule_inputs(const gemm_params& p, int element_bytes, const gemm_limits& limits) {
  gemm_rule_inputs in{};
  in.element_bytes = element_bytes;
  in.is_naive = p.algorithm == gemm_algorithm::naive;
  in.is_no_local = p.algorithm == gemm_algorithm::standard && p.memory == gemm_memory::no_local;
  in.is_local = p.algorithm == gemm_algorithm::standard && p.memory == gemm_memory::local;
  in.is_full_vector = p.vectorization == gemm_vectorization::full;
  in.is_interleaved = p.batch == gemm_batch_type::interleaved;
  in.item_rows = p.item_rows;
  in.item_cols = p.item_cols;
  in.wg_rows = p.wg_rows;
  in.wg_cols = p.wg_cols;
  in.sg_rows = p.sg_rows;
  in.sg_cols = p.sg_cols;
  in.tl_rows = p.tl_rows;
  in.tl_cols = p.tl_cols;
  in.item_batch = p.item_batch;
  in.wg_batch = p.wg_batch;
  in.cache_line_bytes = p.cache_line_bytes;
  in.vector_width = p.vector_width;
  in.double_buffer = p.double_buffer;
  in.no_bank_conflict_a = p.no_bank_conflict_a;
  in.no_bank_conflict_b = p.no_bank_conflict_b;
  in.max_local_memory_bytes = limits.max_local_memory_bytes;
  in.max_work_group_size = limits.max_work_group_size;
  return in;
}

/// One broken rule: its name in gemm_rules.def and why it exists.
struct gemm_rule_violation {
  std::string_view rule;
  std::string_view message;
};

/// Every rule of gemm_rules.def that the configuration breaks, in the file's order
/// (empty when it is valid for elements of element_bytes on a device with these limits).
std::vector<gemm_rule_violation> check_gemm_rules(const gemm_params& params, int element_bytes,
                                                  const gemm_limits& limits = compile_time_limits);

/// The derived values of gemm_rules.def (local memory, K tile, ...) for one configuration.
struct gemm_derived {
  std::int64_t k_tile, block_rows, block_cols, work_group_size, pad_a, pad_b, local_memory_bytes;
};
gemm_derived derive(const gemm_params& params, int element_bytes);

/// Expands every rule into its own static_assert, whose message names the rule; it is
/// instantiated by gemm_kernel_config (and by the tuner's generated sources).
template <gemm_params P, int ElementBytes, gemm_limits Limits = compile_time_limits>
struct gemm_rules_check {
 private:
  static constexpr gemm_rule_inputs inputs = make_rule_inputs(P, ElementBytes, Limits);
#define TESSERA_GEMM_INPUT(name, meaning) static constexpr std::int64_t name = inputs.name;
#define TESSERA_GEMM_DERIVED(name, expression) static constexpr std::int64_t name = (expression);
#define TESSERA_GEMM_RULE(name, expression, message) \
  static_assert(expression, "tessera gemm rule '" #name "': " message);
#include <tessera/blas/gemm_rules.def>
#undef TESSERA_GEMM_INPUT
#undef TESSERA_GEMM_DERIVED
#undef TESSERA_GEMM_RULE

 public:
  static constexpr bool value = true;
};

// ---- typed configurations, named as portBLAS names them --------------------------------

/// The work decomposition: per work-item, per work-group, per sub-group block, block-level
/// tiles and batch entries.
template <int ItemRows, int ItemCols, int WgRows, int WgCols, int SgRows = 1, int SgCols = 1,
          int TlRows = 1, int TlCols = 1, int ItemBatch = 1, int WgBatch = 1>
struct tile {
  static constexpr int item_rows = ItemRows, item_cols = ItemCols;
  static constexpr int wg_rows = WgRows, wg_cols = WgCols;
  static constexpr int sg_rows = SgRows, sg_cols = SgCols;
  static constexpr int tl_rows = TlRows, tl_cols = TlCols;
  static constexpr int item_batch = ItemBatch, wg_batch = WgBatch;
};

/// Transposes and the kernel family.
template <bool TransA, bool TransB, gemm_memory Memory, gemm_algorithm Algorithm,
          gemm_batch_type Batch = gemm_batch_type::strided,
          gemm_vectorization Vectorization = gemm_vectorization::partial>
struct gemm_config {
  static constexpr bool trans_a = TransA, trans_b = TransB;
  static constexpr gemm_memory memory = Memory;
  static constexpr gemm_algorithm algorithm = Algorithm;
  static constexpr gemm_batch_type batch = Batch;
  static constexpr gemm_vectorization vectorization = Vectorization;
};

/// A complete kernel for element type T: the tuner's
/// tune<VectorWidth, CacheLineBytes, Tile, DoubleBuffer, NbcA, NbcB, GemmConfig, T>.
/// Instantiating it checks every rule at compile time.
template <int VectorWidth, int CacheLineBytes, typename Tile, bool DoubleBuffer, bool NoBankConflictA,
          bool NoBankConflictB, typename Config, typename T, gemm_limits Limits = compile_time_limits>
struct gemm_kernel_config {
  using value_type = T;
  using tile_type = Tile;
  using config_type = Config;
  static constexpr bool trans_a = Config::trans_a, trans_b = Config::trans_b;
  static constexpr gemm_params params{
      Config::memory,    Config::algorithm,  Config::batch,      Config::vectorization,
      VectorWidth,       CacheLineBytes,     Tile::item_rows,    Tile::item_cols,
      Tile::wg_rows,     Tile::wg_cols,      Tile::sg_rows,      Tile::sg_cols,
      Tile::tl_rows,     Tile::tl_cols,      Tile::item_batch,   Tile::wg_batch,
      DoubleBuffer,      NoBankConflictA,    NoBankConflictB};
  static_assert(gemm_rules_check<params, static_cast<int>(sizeof(T)), Limits>::value);
};

// ---- text form ------------------------------------------------------------------------

/// A configuration as one line of key=value words, e.g.
/// "local vw=4 cls=64 item=8x8 wg=16x16 sg=1x1 tl=1x1 batch=strided:1x1 db=1 nbc=0x0".
std::string to_string(const gemm_params& params);
/// The inverse of to_string. The family word comes first; omitted keys keep the defaults
/// of gemm_params. Throws tessera::argument_error naming the word it cannot read.
gemm_params parse_gemm_params(std::string_view text);

}  // namespace tessera::blas
