#pragma once
// A shape suite: the GEMM problems `tune_* --shapes FILE` tunes one after the other, and the
// shape-suite benchmark measures (configs/shapes/*.json).
//
// The file is a JSON list of shapes, or an object {"description": "...", "shapes": [...]}:
//   {"m": 4096, "n": 4096, "k": 4096, "batch": 1, "transposes": "nn", "weight": 1.0}
// batch (default 1) and weight (default 1: how much the shape counts in a suite's mean) may be
// left out; transposes is one of nn nt tn tt, a list of them, or "all" (the four).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <tessera/blas/gemm_defaults.hpp>

namespace tessera::baselines {

struct suite_shape {
  std::int64_t m = 1, n = 1, k = 1, batch = 1;
  bool trans_a = false, trans_b = false;
  double weight = 1.0;
  std::string where;  // "file: $[3]" for messages

  std::string transposes() const { return {trans_a ? 't' : 'n', trans_b ? 't' : 'n'}; }
  /// "1024x768x3072 nn" (", batch 8" when batched)
  std::string label() const;
  /// The shape as the defaults table sees it (its distance: blas::shape_distance).
  blas::gemm_problem_shape problem() const { return {m, n, k, batch, trans_a, trans_b}; }
};

/// The shapes of a suite file, one per transpose pair (a shape with "all" is four); throws
/// tessera::argument_error naming the file, the JSON path and what is wrong (a missing or
/// unknown key, a size that is not a whole number from 1 to 2^31 - 1, a weight that is not
/// positive, malformed JSON with its line and column, an empty suite).
std::vector<suite_shape> read_shape_suite(const std::filesystem::path& path);

/// The same from text (path names it in messages).
std::vector<suite_shape> parse_shape_suite(const std::string& text, const std::string& path);

}  // namespace tessera::baselines
