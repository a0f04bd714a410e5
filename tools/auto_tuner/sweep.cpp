#include "sweep.hpp"

#include <algorithm>

#include <fmt/format.h>

#include <tessera/blas/gemm_defaults.hpp>

namespace tessera::auto_tuner {

std::string problem_key(std::string_view transposes, std::int64_t m, std::int64_t n, std::int64_t k,
                        std::int64_t batch) {
  return fmt::format("{} {}x{}x{} batch {}", transposes, m, n, k, batch);
}

std::pair<std::vector<blas::gemm_params>, bool> leaders_in(const nlohmann::json& run, std::size_t count) {
  std::vector<std::pair<double, blas::gemm_params>> ok;
  if (run.contains("results"))
    for (const auto& r : run["results"])
      if (r["kind"] == "config" && r["status"] == "ok" && r["configuration"].is_string() && r["gflops"].is_object())
        ok.emplace_back(r["gflops"]["median"].get<double>(),
                        blas::parse_gemm_params(r["configuration"].get<std::string>()));
  std::stable_sort(ok.begin(), ok.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<blas::gemm_params> leaders;
  for (const auto& [gflops, params] : ok)
    if (leaders.size() < count && std::find(leaders.begin(), leaders.end(), params) == leaders.end())
      leaders.push_back(params);
  return {leaders, !ok.empty()};
}

std::vector<std::vector<std::size_t>> seed_neighbours(const std::vector<baselines::suite_shape>& jobs,
                                                      std::size_t count) {
  std::vector<std::vector<std::size_t>> out(jobs.size());
  for (std::size_t job = 0; job < jobs.size(); ++job) {
    std::vector<std::pair<double, std::size_t>> before;
    for (std::size_t other = 0; other < job; ++other) {
      const double distance = blas::shape_distance(jobs[job].problem(), jobs[other].problem());
      if (distance <= blas::max_shape_distance) before.emplace_back(distance, other);
    }
    std::stable_sort(before.begin(), before.end(), [](const auto& x, const auto& y) {
      return x.first < y.first || (x.first == y.first && x.second > y.second);
    });
    for (std::size_t i = 0; i < std::min(count, before.size()); ++i) out[job].push_back(before[i].second);
  }
  return out;
}

sweep::sweep(std::vector<baselines::suite_shape> jobs, std::vector<std::string> rank_devices, std::size_t neighbours,
             const std::map<std::string, nlohmann::json>& resumed)
    : jobs_(std::move(jobs)), rank_devices_(std::move(rank_devices)),
      seed_neighbours_(seed_neighbours(jobs_, neighbours)) {
  for (const auto& device : rank_devices_)
    if (!device.empty() && std::find(devices_.begin(), devices_.end(), device) == devices_.end())
      devices_.push_back(device);
  slots_.resize(items());
  for (const auto& device : devices_) {
    auto& pending = pending_[device];
    for (std::size_t job = 0; job < jobs_.size(); ++job) {
      const auto& j = jobs_[job];
      const auto key = resumed_key(problem_key(j.transposes(), j.m, j.n, j.k, j.batch), device);
      const auto done = resumed.find(key);
      if (done == resumed.end()) {
        pending.push_back(job);
        continue;
      }
      adopted_.insert(key);
      // A resumed problem stays as it was written, and its leaders still seed its neighbours.
      slots_[slot(job, device)] = done->second;
      const auto [leaders, verified] = leaders_in(done->second, 3);
      leaders_[device][job] = leaders;
      any_verified_ |= verified;
      ++complete_, ++resumed_;
    }
  }
}

std::string sweep::resumed_key(const std::string& problem, const std::string& device) {
  return problem + " on " + device;
}

std::size_t sweep::slot(std::size_t job, const std::string& device) const {
  const auto at = std::find(devices_.begin(), devices_.end(), device);
  return job * devices_.size() + std::size_t(at - devices_.begin());
}

std::optional<std::size_t> sweep::busy_with(int rank) const {
  const auto found = busy_.find(rank);
  if (found == busy_.end()) return std::nullopt;
  return found->second;
}

std::optional<sweep_item> sweep::exchange(int rank, const std::optional<sweep_report>& report) {
  const std::string& device = rank_devices_.at(std::size_t(rank));
  if (const auto out = busy_.find(rank); out != busy_.end()) {
    const std::size_t job = out->second;
    busy_.erase(out);
    if (report) {
      slots_[slot(job, device)] = report->run;
      const bool partial = report->run.value("partial", true);
      if (partial) {
        ++failed_;
      } else {
        ++complete_;
        const auto [leaders, verified] = leaders_in(report->run, 3);
        leaders_[device][job] = leaders;
        any_verified_ |= verified;
      }
      if (!report->failure.empty() || report->stopped_by != 0) retired_[rank] = true;
    } else {
      // Handed out and never reported (its rank went away): recorded partial, so that the
      // problems it seeds do not wait for it.
      const auto& j = jobs_[job];
      slots_[slot(job, device)] = nlohmann::json{
          {"transposes", j.transposes()}, {"m", j.m}, {"n", j.n}, {"k", j.k}, {"batch", j.batch},
          {"problem_class", blas::to_string(blas::classify_problem(j.m, j.n, j.k, j.batch))}, {"weight", j.weight},
          {"configs_total", 0}, {"partial", true}, {"measured_by", {{"rank", rank}, {"device", device}}},
          {"results", nlohmann::json::array()}, {"finalists", nullptr}, {"decision", nullptr},
          {"failure", "handed out and never reported"}};
      ++failed_;
      retired_[rank] = true;
    }
  }
  if (device.empty() || stopped_ || retired_[rank]) return std::nullopt;
  // The first job in suite order whose seed neighbours are finished (recorded, complete or not).
  auto& pending = pending_[device];
  const auto ready = std::find_if(pending.begin(), pending.end(), [&](std::size_t job) {
    const auto& needed = seed_neighbours_[job];
    return std::all_of(needed.begin(), needed.end(), [&](std::size_t n) { return slots_[slot(n, device)].has_value(); });
  });
  if (ready == pending.end()) return std::nullopt;
  const std::size_t job = *ready;
  pending.erase(ready);
  busy_[rank] = job;
  sweep_item item{job, {}};
  const auto& finished = leaders_[device];
  for (const std::size_t n : seed_neighbours_[job])
    if (const auto found = finished.find(n); found != finished.end())
      for (const auto& p : found->second)
        if (const auto text = blas::to_string(p); std::find(item.seeds.begin(), item.seeds.end(), text) == item.seeds.end())
          item.seeds.push_back(text);
  return item;
}

bool sweep::waits(int rank) const {
  const std::string& device = rank_devices_.at(std::size_t(rank));
  if (device.empty() || stopped_ || busy_.count(rank) != 0) return false;
  if (const auto r = retired_.find(rank); r != retired_.end() && r->second) return false;
  const auto pending = pending_.find(device);
  return pending != pending_.end() && !pending->second.empty();
}

std::vector<nlohmann::json> sweep::runs() const {
  std::vector<nlohmann::json> out;
  for (const auto& s : slots_)
    if (s) out.push_back(*s);
  return out;
}

}  // namespace tessera::auto_tuner
