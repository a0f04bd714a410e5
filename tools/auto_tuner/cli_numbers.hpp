#pragma once
// Checks of numeric command-line values for the tuner's tools, in the option's own terms.
// CLI11's own checks read numbers as doubles ("Value 0 not in range 0.000000 to 1.79e308") and
// let an unsigned option take -1 as SIZE_MAX; these parse the text exactly and say what is wrong.
#include <cstdint>

#include <CLI/CLI.hpp>

namespace tessera::auto_tuner {

/// A whole number from low to high ("3x", "1e3", "-1" for low 1 and 99999999999999999999 are
/// refused, each with a message saying which).
CLI::Validator whole_number(std::int64_t low, std::int64_t high);

/// A finite number at most high and above low (at least low with low_included).
CLI::Validator number_in(double low, double high, bool low_included = false);

}  // namespace tessera::auto_tuner
