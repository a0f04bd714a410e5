#pragma once
// The tune_* binaries' driver: baselines, the current default, then every generated
// configuration (or a budgeted search), verified and timed on the same buffers.
#include <functional>
#include <string>
#include <vector>

#include "search.hpp"
#include "tune.hpp"

namespace tessera::auto_tuner {

struct transpose_pair {
  bool trans_a, trans_b;
  std::vector<candidate> (*candidates)();
};

/// Parses the command line and runs every transpose pair; returns the exit status.
int tuner_main(int argc, char** argv, const std::string& tool, const std::vector<transpose_pair>& pairs);

}  // namespace tessera::auto_tuner
