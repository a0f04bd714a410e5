// tune_replay: runs the budgeted search on the results of a full tuning run (the --json of a
// tune_* binary that evaluated every configuration) instead of on a device, and reports, per
// transpose pair, what fraction of the full search's best the budget finds. The search sees
// exactly what it would have measured (the recorded medians), so its choices can be checked,
// and changed, without a GPU; a live run adds only the measurement noise.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <tessera/runtime/error.hpp>

#include "cli_numbers.hpp"
#include "search.hpp"

namespace {

using json = nlohmann::json;

struct recorded_run {
  std::string transposes;
  std::vector<tessera::blas::gemm_params> configs;
  std::vector<double> gflops;  // 0 where the configuration failed
};

// The value at key of object `where` names, or an error naming the file and the JSON path.
const json& at(const json& object, const char* key, const std::string& path, const std::string& where) {
  if (!object.is_object())
    throw tessera::argument_error(fmt::format("{}: {}: expected an object, got {}", path, where, object.type_name()));
  if (!object.contains(key)) throw tessera::argument_error(fmt::format("{}: {}: missing key '{}'", path, where, key));
  return object[key];
}

template <typename T>
T value_at(const json& object, const char* key, const std::string& path, const std::string& where) {
  const json& value = at(object, key, path, where);
  const bool fits = std::is_same_v<T, std::string> ? value.is_string()
                    : std::is_same_v<T, double>    ? value.is_number()
                                                   : value.is_number_unsigned();
  if (!fits) throw tessera::argument_error(fmt::format("{}: {}.{}: unexpected {}", path, where, key, value.type_name()));
  return value.get<T>();
}

std::vector<recorded_run> read_runs(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw tessera::argument_error(fmt::format("{}: cannot open", path));
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::exception& e) {
    throw tessera::argument_error(fmt::format("{}: not JSON: {}", path, e.what()));
  }
  std::vector<recorded_run> runs;
  const json& recorded = at(doc, "runs", path, "$");
  if (!recorded.is_array()) throw tessera::argument_error(fmt::format("{}: $.runs: expected a list", path));
  for (std::size_t i = 0; i < recorded.size(); ++i) {
    const json& run = recorded[i];
    const std::string where = fmt::format("$.runs[{}]", i);
    recorded_run r;
    r.transposes = value_at<std::string>(run, "transposes", path, where);
    if (run.value("partial", false))
      throw tessera::argument_error(fmt::format("{}: run {} was stopped before it was complete", path, r.transposes));
    const json& results = at(run, "results", path, where);
    for (std::size_t j = 0; j < results.size(); ++j) {
      const json& result = results[j];
      const std::string rw = fmt::format("{}.results[{}]", where, j);
      if (value_at<std::string>(result, "kind", path, rw) != "config") continue;
      const auto name = value_at<std::string>(result, "name", path, rw);
      try {
        r.configs.push_back(tessera::blas::parse_gemm_params(name));
      } catch (const tessera::error& e) {
        throw tessera::argument_error(fmt::format("{}: {}.name: {}", path, rw, e.what()));
      }
      r.gflops.push_back(value_at<std::string>(result, "status", path, rw) == "ok"
                             ? value_at<double>(at(result, "gflops", path, rw), "median", path, rw + ".gflops")
                             : 0.0);
    }
    const auto total = value_at<std::size_t>(run, "configs_total", path, where);
    if (r.configs.empty() || r.configs.size() != total)
      throw tessera::argument_error(fmt::format("{}: run {} evaluated {} of {} configurations, not a full search",
                                                path, r.transposes, r.configs.size(), total));
    runs.push_back(std::move(r));
  }
  return runs;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tessera::auto_tuner;
  CLI::App app{"tune_replay: the budgeted search replayed on a full tuning run's JSON results"};
  std::vector<std::string> files;
  double fraction = 0.2, require = 0;
  int seeds = 0;
  app.add_option("results", files, "JSON results of full tune_* runs")->required()->check(CLI::ExistingFile);
  app.add_option("--fraction", fraction, "budget as a fraction of the configurations")->check(number_in(0, 1));
  app.add_option("--require", require, "exit 1 unless every run reaches this fraction of its full best")
      ->check(number_in(0, 1, true));
  app.add_option("--seeds", seeds,
                 "also replay with this many other orders of the initial sample and report the spread")
      ->check(whole_number(0, 100000));
  CLI11_PARSE(app, argc, argv);
  try {
    bool met = true;
    for (const auto& file : files) {
      // As tune_all does, each pair's search starts from the previous pair's leaders (per
      // sample order, so each order replays one whole tune_all run).
      std::map<std::uint64_t, std::vector<tessera::blas::gemm_params>> previous_leaders, next_leaders;
      for (const auto& run : read_runs(file)) {
        const std::size_t budget = std::max<std::size_t>(1, std::size_t(fraction * double(run.configs.size())));
        const double full = *std::max_element(run.gflops.begin(), run.gflops.end());
        auto replay = [&](std::uint64_t seed) {
          const auto order = tessera::auto_tuner::budgeted_search(
              run.configs, budget, [&](std::size_t i) { return run.gflops[i]; }, seed, previous_leaders[seed]);
          next_leaders[seed] = tessera::auto_tuner::leaders_of(run.configs, order,
                                                               [&](std::size_t i) { return run.gflops[i]; }, 3);
          double found = 0;
          for (const auto i : order) found = std::max(found, run.gflops[i]);
          return std::pair{order.size(), full > 0 ? found / full : 0.0};
        };
        const auto [evaluated, ratio] = replay(12345);  // the tune_* binaries' own sample
        met &= ratio >= require;
        std::cout << fmt::format("{} {}: {} of {} configurations ({:.1f}%), best found {:.1f} of {:.1f} GFLOP/s = "
                                 "{:.1f}%{}\n",
                                 file.substr(file.find_last_of('/') + 1), run.transposes, evaluated,
                                 run.configs.size(), 100.0 * double(evaluated) / double(run.configs.size()),
                                 ratio * full, full, 100.0 * ratio, ratio >= require ? "" : "  BELOW REQUIREMENT");
        if (seeds > 0) {
          std::vector<double> ratios;
          for (int s = 1; s <= seeds; ++s) ratios.push_back(replay(static_cast<std::uint64_t>(s)).second);
          std::sort(ratios.begin(), ratios.end());
          const auto reaching = std::count_if(ratios.begin(), ratios.end(), [&](double r) { return r >= require; });
          std::cout << fmt::format("    over {} other sample orders: worst {:.1f}%, median {:.1f}%, {} of {} reach "
                                   "{:.1f}%\n",
                                   seeds, 100.0 * ratios.front(), 100.0 * ratios[ratios.size() / 2], reaching, seeds,
                                   100.0 * require);
        }
        previous_leaders = std::move(next_leaders);
        next_leaders.clear();
      }
    }
    return met ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "tune_replay: " << e.what() << '\n';
    return 2;
  }
}
