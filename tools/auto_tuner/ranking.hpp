#pragma once
// What the tuner concludes from its measurements, apart from measuring so that it can be tested
// without a device: which rows are implausible, which rows are the finalists, and whether the
// best finalist beats the current default by more than the noise of the measurement.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <tessera/baselines/device_peak.hpp>

#include "tune.hpp"

namespace tessera::auto_tuner {

/// Measures rows suspect and best again, interleaved in the same process, and returns their
/// GFLOP/s (medians): a second look before a row is failed for being too fast next to another.
using measure_again = std::function<std::pair<double, double>(std::size_t suspect, std::size_t best)>;

/// Marks as implausible every ok row that claims more GFLOP/s than the device can do: a row on
/// the tuned OpenCL device above peak (when known), or a baseline on a device (CLBlast, cuBLAS)
/// above twice the best ok configuration of the run (the default's included). Such a row is a
/// failed measurement: its reason gives both figures; it is never ranked. When `again` is given,
/// a baseline above twice the best configuration is measured once more, interleaved with that
/// configuration, and failed only if the second look disagrees with the first (it puts the
/// baseline less than half as far ahead of the configuration, or above peak): a library
/// confirmed to be that much faster at the shape is
/// kept, since it is what the tuner has to beat. The second rule is for the libraries whose
/// calls the tuner does not see into (CLBlast's returned event once covered only its last
/// kernel); tessera's own configurations are all timed alike, and one may well be several times
/// faster than the rest (a naive kernel on tiny batched problems). Host rows (OpenBLAS) are left
/// alone: the peak describes another processor.
void reject_implausible(std::vector<tune_result>& rows, const std::optional<baselines::device_peak>& peak,
                        const measure_again& again = {});

/// Why a figure of gflops measured on `where` is implausible ("" when it is not): above peak
/// (OpenCL-device figures, when the peak is known) or above twice best_configuration (device
/// figures, when it is above 0).
std::string implausibility(double gflops, baselines::processor where, double best_configuration,
                           const std::optional<baselines::device_peak>& peak);

/// The rows measured again interleaved after the search: the `count` fastest ok configurations,
/// best first, then the ok default row (a configuration equal to the default's is left out: the
/// default stands for it). Indices into rows.
std::vector<std::size_t> pick_finalists(const std::vector<tune_result>& rows, std::size_t count);

/// One finalist's re-measurement.
struct finalist {
  std::string name;           // the row's name
  std::string kind;           // "config" or "default"
  std::string configuration;  // the gemm_params text form
  baselines::timing time;
  double flops = 0;
  double median_gflops() const { return flops / time.median_seconds * 1e-9; }
};

enum class verdict { best, default_kept, none };
std::string_view to_string(verdict v);

struct ranking_decision {
  verdict outcome = verdict::none;
  std::optional<std::size_t> best;          // index into the finalists: the configuration named BEST
  std::optional<std::size_t> default_index;  // index of the default among the finalists
  std::string reason;                        // why, in words, for the report
};

/// BEST is the fastest finalist configuration that beats the default's median by more than the
/// spread (the larger interquartile range of the two); finalists within that spread of each
/// other are a tie, resolved by name so that repeated runs agree. Without such a configuration
/// the default is kept. Without a verified default the fastest configuration is BEST.
ranking_decision decide(const std::vector<finalist>& finalists);

}  // namespace tessera::auto_tuner
