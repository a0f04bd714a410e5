// The tuner's conclusions (see ranking.hpp).
#include "ranking.hpp"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

namespace tessera::auto_tuner {

namespace {

std::string milliseconds(double seconds) { return fmt::format("{:.4g} ms", seconds * 1e3); }

}  // namespace

std::string implausibility(double gflops, baselines::processor where, double best_configuration,
                           const std::optional<baselines::device_peak>& peak) {
  if (peak && where == baselines::processor::opencl_device && gflops > peak->gflops)
    return fmt::format("{:.1f} GFLOP/s is above the device's peak of {:.1f} GFLOP/s ({}): a failed measurement", gflops,
                       peak->gflops, peak->derivation);
  if (where != baselines::processor::host && best_configuration > 0 && gflops > 2.0 * best_configuration)
    return fmt::format("{:.1f} GFLOP/s is more than twice the best configuration of the run ({:.1f} GFLOP/s): "
                       "a failed measurement",
                       gflops, best_configuration);
  return {};
}

void reject_implausible(std::vector<tune_result>& rows, const std::optional<baselines::device_peak>& peak,
                        const measure_again& again) {
  // The yardstick is the best configuration as measured, before any row is rejected.
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].kind != "baseline" && rows[i].status == tune_status::ok &&
        (!best || rows[i].median_gflops() > rows[*best].median_gflops()))
      best = i;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    auto& row = rows[i];
    if (row.status != tune_status::ok || row.where == baselines::processor::host) continue;
    double claim = row.median_gflops();
    double yardstick = row.kind == "baseline" && best ? rows[*best].median_gflops() : 0.0;
    auto why = implausibility(claim, row.where, yardstick, peak);
    const bool above_peak = !implausibility(claim, row.where, 0.0, peak).empty();
    if (!why.empty() && !above_peak && again) {
      // A library that is this much faster at this shape (cuBLAS at 64x64x65536, where a tile
      // kernel without enough split-K idles most of the device) is a finding, not a failure: the
      // second look decides. Its timing differs from the search's (single calls, interleaved, so
      // launch costs weigh more on tiny problems), so what must agree is how far ahead of the
      // configuration the baseline is, not its GFLOP/s: the row fails when the second look puts
      // it less than half as far ahead as the first did (CLBlast's event once covering only its
      // last kernel: 800,000 GFLOP/s at first, level with the configurations on a second look).
      const double first = claim, first_yardstick = yardstick;
      std::tie(claim, yardstick) = again(i, *best);
      const double first_lead = first / first_yardstick, second_lead = yardstick > 0 ? claim / yardstick : 0.0;
      const bool confirmed = second_lead >= 0.5 * first_lead && implausibility(claim, row.where, 0.0, peak).empty();
      why = confirmed ? std::string{}
                      : fmt::format("{:.1f} GFLOP/s, {:.1f}x the best configuration of the run ({:.1f} GFLOP/s), "
                                    "but {:.1f}x ({:.1f} against {:.1f} GFLOP/s) when measured again interleaved "
                                    "with it: a failed measurement",
                                    first, first_lead, first_yardstick, second_lead, claim, yardstick);
    }
    if (!why.empty()) {
      row.status = tune_status::implausible;
      row.reason = std::move(why);
    }
  }
}

std::vector<std::size_t> pick_finalists(const std::vector<tune_result>& rows, std::size_t count) {
  std::optional<std::size_t> default_row;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].kind == "default" && rows[i].status == tune_status::ok) default_row = i;
  std::vector<std::size_t> configs;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].kind == "config" && rows[i].status == tune_status::ok &&
        !(default_row && rows[i].params == rows[*default_row].params))
      configs.push_back(i);
  std::stable_sort(configs.begin(), configs.end(),
                   [&](std::size_t x, std::size_t y) { return rows[x].median_gflops() > rows[y].median_gflops(); });
  if (configs.size() > count) configs.resize(count);
  if (default_row) configs.push_back(*default_row);
  return configs;
}

std::string_view to_string(verdict v) {
  switch (v) {
    case verdict::best: return "best";
    case verdict::default_kept: return "default_kept";
    default: return "none";
  }
}

ranking_decision decide(const std::vector<finalist>& finalists) {
  ranking_decision d;
  std::vector<std::size_t> configs;
  for (std::size_t i = 0; i < finalists.size(); ++i) {
    if (finalists[i].kind == "default") d.default_index = i;
    if (finalists[i].kind == "config") configs.push_back(i);
  }
  const auto median = [&](std::size_t i) { return finalists[i].time.median_seconds; };
  const auto spread = [&](std::size_t x, std::size_t y) {
    return std::max(finalists[x].time.spread_seconds, finalists[y].time.spread_seconds);
  };
  if (configs.empty()) {
    d.outcome = d.default_index ? verdict::default_kept : verdict::none;
    d.reason = d.default_index ? "no other configuration was verified" : "no configuration was verified";
    return d;
  }
  const auto fastest_of = [&](const std::vector<std::size_t>& among) {
    return *std::min_element(among.begin(), among.end(), [&](auto x, auto y) { return median(x) < median(y); });
  };
  // Among candidates, those within the spread of the fastest are a tie: the first by name wins.
  const auto pick = [&](const std::vector<std::size_t>& candidates) {
    const std::size_t fastest = fastest_of(candidates);
    std::size_t chosen = fastest;
    for (const auto i : candidates)
      if (median(i) <= median(fastest) + spread(i, fastest) && finalists[i].name < finalists[chosen].name) chosen = i;
    return chosen;
  };
  if (!d.default_index) {
    d.outcome = verdict::best;
    d.best = pick(configs);
    d.reason = "no verified default to compare with";
    return d;
  }
  const std::size_t def = *d.default_index;
  std::vector<std::size_t> winners;
  for (const auto i : configs)
    if (median(def) - median(i) > spread(i, def)) winners.push_back(i);
  if (winners.empty()) {
    const std::size_t fastest = fastest_of(configs);
    d.outcome = verdict::default_kept;
    d.reason = fmt::format("the fastest other finalist, {}, is not faster than the default by more than the spread "
                           "({} against {}, spread {})",
                           finalists[fastest].name, milliseconds(median(fastest)), milliseconds(median(def)),
                           milliseconds(spread(fastest, def)));
    return d;
  }
  const std::size_t best = pick(winners);
  d.outcome = verdict::best;
  d.best = best;
  d.reason = fmt::format("{:.2f}x the default: {} against {}, more than the spread {}", median(def) / median(best),
                         milliseconds(median(best)), milliseconds(median(def)), milliseconds(spread(best, def)));
  return d;
}

}  // namespace tessera::auto_tuner
