#pragma once
// The budgeted search of the tune_* binaries, apart from measuring so that it can be replayed
// on recorded results (tune_replay) and tested without a device.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include <tessera/blas/gemm_config.hpp>

namespace tessera::auto_tuner {

/// A configuration as the search compares it: its family, then one value per parameter of
/// gemm_params.def (a pair such as item=8x8 is one value, so that a move from 8x8 to 16x16 is
/// one step, not two). Two configurations are as far apart as the values that differ.
std::vector<std::int64_t> search_features(const blas::gemm_params& p);

/// Evaluates at most budget of configs and returns the indices evaluated, in order. evaluate
/// returns a configuration's median GFLOP/s (0 when it failed). Deterministic for the same
/// configs, scores, sample_seed (which orders the initial spread sample) and first.
/// first: configurations to evaluate before the sample, e.g. the leaders of the previous
/// transpose pair of the same run (a tile that suits NN mostly suits NT); those not among
/// configs are skipped. They count against the budget.
std::vector<std::size_t> budgeted_search(const std::vector<blas::gemm_params>& configs, std::size_t budget,
                                         const std::function<double(std::size_t)>& evaluate,
                                         std::uint64_t sample_seed = 12345,
                                         const std::vector<blas::gemm_params>& first = {});

/// The seeds of a shape's budgeted search (its `first`): the leaders (of the nearest finished
/// problems), after each leader's tile with its split chosen per call (split_k = 0) where configs
/// hold that twin and it would split this call (blas::chosen_split_k: few waves of output tiles,
/// a long K). A tile that won where it filled the device serves a shape of
/// few tiles split, which the search's spread sample seldom reaches (the H200's suites with
/// --budget 10, 2026-11-25: 784 x 128 x 1152 found no split at all, 3.6 TFLOP/s against
/// cuBLAS's 14.7). Then, for each leader that fills the device (blas::device_fill) below 0.75,
/// the configuration of its family that fills it best, if a quarter better (the nearest to the
/// leader among fills within 2%): a narrow output's leaders are wide blocks.
std::vector<blas::gemm_params> search_seeds(const std::vector<blas::gemm_params>& leaders,
                                            const std::vector<blas::gemm_params>& configs,
                                            std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch,
                                            int element_bytes, std::int64_t compute_units);

/// The best `count` of the configurations evaluated, best first (failed ones left out).
std::vector<blas::gemm_params> leaders_of(const std::vector<blas::gemm_params>& configs,
                                          const std::vector<std::size_t>& evaluated,
                                          const std::function<double(std::size_t)>& score, std::size_t count);

}  // namespace tessera::auto_tuner
