#pragma once
// The budgeted search of the tune_* binaries, apart from measuring so that it can be replayed
// on recorded results (tune_replay) and tested without a device.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include <tessera/blas/gemm_config.hpp>

namespace tessera::auto_tuner {

/// Evaluates at most budget of configs and returns the indices evaluated, in order. evaluate
/// returns a configuration's median GFLOP/s (0 when it failed). Deterministic for the same
/// configs, scores and sample_seed (which orders the initial spread sample).
std::vector<std::size_t> budgeted_search(const std::vector<blas::gemm_params>& configs, std::size_t budget,
                                         const std::function<double(std::size_t)>& evaluate,
                                         std::uint64_t sample_seed = 12345);

}  // namespace tessera::auto_tuner
