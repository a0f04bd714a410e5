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

#include "search.hpp"

namespace {

using json = nlohmann::json;

struct recorded_run {
  std::string transposes;
  std::vector<tessera::blas::gemm_params> configs;
  std::vector<double> gflops;  // 0 where the configuration failed
};

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
  for (const auto& run : doc.at("runs")) {
    recorded_run r;
    r.transposes = run.at("transposes").get<std::string>();
    for (const auto& result : run.at("results")) {
      if (result.at("kind") != "config") continue;
      r.configs.push_back(tessera::blas::parse_gemm_params(result.at("name").get<std::string>()));
      r.gflops.push_back(result.at("status") == "ok" ? result.at("gflops").at("median").get<double>() : 0.0);
    }
    if (r.configs.size() != run.at("configs_total").get<std::size_t>())
      throw tessera::argument_error(fmt::format("{}: run {} evaluated {} of {} configurations, not a full search",
                                                path, r.transposes, r.configs.size(),
                                                run.at("configs_total").get<std::size_t>()));
    runs.push_back(std::move(r));
  }
  return runs;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tune_replay: the budgeted search replayed on a full tuning run's JSON results"};
  std::vector<std::string> files;
  double fraction = 0.2, require = 0;
  int seeds = 0;
  app.add_option("results", files, "JSON results of full tune_* runs")->required()->check(CLI::ExistingFile);
  app.add_option("--fraction", fraction, "budget as a fraction of the configurations")->check(CLI::Range(0.0, 1.0));
  app.add_option("--require", require, "exit 1 unless every run reaches this fraction of its full best");
  app.add_option("--seeds", seeds,
                 "also replay with this many other orders of the initial sample and report the spread")
      ->check(CLI::NonNegativeNumber);
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
