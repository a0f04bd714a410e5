#pragma once
// The tune_* binaries' driver: baselines, the current default, then every generated
// configuration (or a budgeted search), verified and timed on the same buffers.
#include <functional>
#include <string>
#include <vector>

#include "tune.hpp"

namespace tessera::auto_tuner {

struct transpose_pair {
  bool trans_a, trans_b;
  std::vector<candidate> (*candidates)();
};

/// Parses the command line and runs every transpose pair; returns the exit status.
int tuner_main(int argc, char** argv, const std::string& tool, const std::vector<transpose_pair>& pairs);

/// The budgeted search: a spread sample, then neighbours of the leaders. evaluate returns
/// a configuration's median GFLOP/s (0 when it failed). Returns the indices evaluated, in order.
std::vector<std::size_t> budgeted_search(const std::vector<blas::gemm_params>& configs, std::size_t budget,
                                         const std::function<double(std::size_t)>& evaluate);

}  // namespace tessera::auto_tuner
