#pragma once
// Exact loop bounds for one output element of a contraction.
//
// A work item owns one output element o. The index variables x with output rows equal to o
// form an affine integer lattice; unimodular changes of variables (integer elimination of the
// equalities, as in the Omega test) give it as x = x0(o) + M y with free integer loop variables
// y, and turn rational coefficients (`I[i / 2]`) into exact strides instead of tests. The
// remaining rows are inequalities in y; Fourier-Motzkin elimination, innermost variable first,
// gives every loop its lower bounds (ceil) and upper bounds (floor), so that each integer point
// of the loops is a valid point and every valid point is visited once. Conditions on o alone
// (divisibility, ranges) become guards; where a guard fails the element receives no value.
#include <cstdint>
#include <string>
#include <vector>

#include <tessera/tile/shapes.hpp>

namespace tessera::tile {

/// sum loops[i] * y_i + sum parameters[j] * p_j + constant, with integer coefficients.
struct integer_affine {
  std::vector<std::int64_t> loops;
  std::vector<std::int64_t> parameters;
  std::int64_t constant = 0;

  bool uses_loops() const;
  bool uses_parameters() const;
};

/// A loop bound: lower bounds are ceil(numerator / divisor), upper ones floor(...); divisor > 0.
struct loop_bound {
  integer_affine numerator;
  std::int64_t divisor = 1;
};

struct loop_level {
  std::vector<loop_bound> lower;  // the loop starts at the largest
  std::vector<loop_bound> upper;  // and ends (inclusive) at the smallest
};

/// Before the loops, in order: a guard or the definition of a parameter from earlier ones.
struct guard_step {
  enum class kind {
    non_negative,  // value >= 0
    zero,          // value == 0
    divisible,     // value % divisor == 0
    define,        // parameter `defines` = value / divisor (exact: a divisible step precedes it)
  };
  kind what = kind::non_negative;
  integer_affine value;  // over parameters only
  std::int64_t divisor = 1;
  std::size_t defines = 0;
};

struct loop_nest {
  /// Parameters 0 .. outputs-1 are the output coordinates; later ones are defined by steps.
  std::size_t outputs = 0;
  std::size_t parameters = 0;
  /// Range of each parameter over the launch (outputs: [0, size - 1]); used to drop
  /// redundant bounds and guards.
  std::vector<std::pair<std::int64_t, std::int64_t>> parameter_ranges;
  /// True when no output element has a valid point (the kernel writes zeros).
  bool empty = false;
  std::vector<guard_step> steps;
  std::vector<loop_level> loops;  // outermost first
  /// Ranges each loop variable can take (over all output elements); empty when empty.
  std::vector<std::pair<std::int64_t, std::int64_t>> loop_ranges;
  /// For every row of the space (index_space::all_rows order) with integer values: its value
  /// over loops and parameters. Non-integral rows (constraints) have an empty entry.
  std::vector<std::optional<integer_affine>> row_values;
  /// Which original index variable each loop mostly follows (for names in generated code).
  std::vector<std::string> loop_names;
};

/// Derives the loop nest of space for one output element. names: index variable names.
loop_nest derive_loop_nest(const index_space& space, const std::vector<std::string>& names);

/// The loop nest as C-like pseudo code (for tests and `--emit`): guards, loops, bounds.
std::string describe(const loop_nest& nest);

}  // namespace tessera::tile
