#pragma once
// The plan of a tuning sweep across devices: which problem each rank measures next, what its
// budgeted search starts from, and the results gathered in the suite's order. Only logic, no
// device and no MPI (tune_*'s driver moves the items and reports between ranks), so that it is
// tested and simulated without either.
//
// An item is one problem (a shape and its transposes) on one device model: each model present
// in the job measures every problem, and a configuration measured on one model never stands for
// another. Items go out to whichever rank of the model asks first, so fast and slow devices both
// stay busy; a problem's whole search (its baselines, the configurations, the finalists) runs on
// the rank that took it, on one set of buffers.
//
// A budgeted search starts from the leaders of the problem's seed neighbours: the `neighbours`
// nearest problems before it in the suite, within blas::max_shape_distance (the reach of a tuned
// shape in the defaults table; farther is no evidence). An item goes out only once its seed
// neighbours are finished, the first such in suite order: so every search starts from the same
// seeds whatever the number of ranks and whichever finished first, and one rank or many search
// the same way (the H200's five suites: 5 of 31 problems have no neighbour in reach, and the
// longest chain of neighbours is 8 problems, so two ranks are rarely kept waiting).
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <tessera/baselines/shape_suite.hpp>
#include <tessera/blas/gemm_config.hpp>

namespace tessera::auto_tuner {

/// What a rank is handed: problem `job` of the suite, to measure on its device, the search
/// starting from `seeds` (configuration text forms: the leaders of the nearest finished
/// problems on the same device model).
struct sweep_item {
  std::size_t job = 0;
  std::vector<std::string> seeds;
};

/// What a rank says of the item it was handed: its run in the results JSON's form (partial when
/// stopped or failed), the reason when its device failed, the signal when it was stopped.
struct sweep_report {
  nlohmann::json run;
  std::string failure;  // non-empty: the rank's device failed; it takes no more items
  int stopped_by = 0;   // non-zero: the rank was stopped by this signal; it takes no more items
};

/// A problem's key among the runs of a results JSON: "nn 64x64x65536 batch 1".
std::string problem_key(std::string_view transposes, std::int64_t m, std::int64_t n, std::int64_t k,
                        std::int64_t batch);

/// A finished run's `count` best verified configurations, best first, and whether any
/// configuration of it was verified.
std::pair<std::vector<blas::gemm_params>, bool> leaders_in(const nlohmann::json& run, std::size_t count);

/// The seed neighbours of each job: the `count` jobs before it nearest to it (by
/// blas::shape_distance, the defaults table's: the shape whose leaders would serve this one
/// there; the later first among equals) within blas::max_shape_distance, nearest first.
std::vector<std::vector<std::size_t>> seed_neighbours(const std::vector<baselines::suite_shape>& jobs,
                                                      std::size_t count);

class sweep {
 public:
  /// jobs: the problems in suite order. rank_devices: each rank's device model (its name), ""
  /// for a rank that takes no items (its setup failed). neighbours: how many nearest finished
  /// problems seed a search. resumed: complete runs of an earlier sweep, by their problem_key
  /// and device name ("KEY on DEVICE"): kept as they are, not handed out again.
  sweep(std::vector<baselines::suite_shape> jobs, std::vector<std::string> rank_devices, std::size_t neighbours,
        const std::map<std::string, nlohmann::json>& resumed = {});

  /// The key of a run in `resumed`.
  static std::string resumed_key(const std::string& problem, const std::string& device);
  /// Whether the run of `resumed` with this key is one of this sweep's items (else it is another
  /// problem's, or another device model's).
  bool adopted(const std::string& key) const { return adopted_.count(key) != 0; }

  /// Records what `rank` measured (report, when it had an item) and hands it its next item, or
  /// nothing: no item of its model is ready (see waits()), none is left, the sweep was stopped,
  /// or the rank stopped or failed.
  std::optional<sweep_item> exchange(int rank, const std::optional<sweep_report>& report);

  /// Whether `rank`, handed nothing, should ask again: items of its model are left, waiting for
  /// their seed neighbours to finish on other ranks.
  bool waits(int rank) const;

  /// No more items go out; the items out are still recorded when their reports come.
  void stop() { stopped_ = true; }

  /// The device models, in the order of the ranks that first have them.
  const std::vector<std::string>& devices() const { return devices_; }
  const std::string& device_of(int rank) const { return rank_devices_.at(std::size_t(rank)); }
  const std::vector<baselines::suite_shape>& jobs() const { return jobs_; }
  /// The item `rank` is measuring, if any.
  std::optional<std::size_t> busy_with(int rank) const;

  /// Every run recorded so far (resumed or reported), by job then by device model.
  std::vector<nlohmann::json> runs() const;
  std::size_t items() const { return jobs_.size() * devices_.size(); }
  std::size_t complete() const { return complete_; }
  std::size_t resumed() const { return resumed_; }
  /// Items recorded partial: stopped, failed, or never reported (their rank went away).
  std::size_t failed() const { return failed_; }
  bool any_verified() const { return any_verified_; }

 private:
  std::size_t slot(std::size_t job, const std::string& device) const;

  std::vector<baselines::suite_shape> jobs_;
  std::vector<std::string> rank_devices_, devices_;
  std::vector<std::optional<nlohmann::json>> slots_;  // job * devices + device
  std::vector<std::vector<std::size_t>> seed_neighbours_;      // per job
  std::map<std::string, std::vector<std::size_t>> pending_;    // per device model: jobs in suite order
  std::map<std::string, std::map<std::size_t, std::vector<blas::gemm_params>>> leaders_;  // of finished jobs
  std::map<int, std::size_t> busy_;  // rank -> its job
  std::map<int, bool> retired_;
  std::set<std::string> adopted_;  // the keys of the resumed runs taken as items
  bool stopped_ = false, any_verified_ = false;
  std::size_t complete_ = 0, resumed_ = 0, failed_ = 0;
};

}  // namespace tessera::auto_tuner
