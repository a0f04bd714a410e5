#include <tessera/baselines/timing.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>

#include <tessera/runtime/error.hpp>

namespace tessera::baselines {

namespace {
using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
}
}  // namespace

timing summarize(std::vector<double> samples) {
  if (samples.empty()) throw argument_error("tessera::baselines::summarize: no samples");
  timing t;
  t.samples = samples;
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  t.min_seconds = samples.front();
  t.max_seconds = samples.back();
  t.median_seconds = n % 2 == 1 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  // Nearest-rank quartiles: with 5 samples the 2nd and 4th, with 7 the 2nd and 6th.
  t.spread_seconds = samples[(3 * n) / 4] - samples[n / 4];
  return t;
}

int calls_per_sample(const timed_call& call, const timing_options& options) {
  double once = 0;
  for (int i = 0; i < options.warmups; ++i) {
    call.finish();
    const auto start = clock_type::now();
    call.enqueue();
    call.finish();
    once = seconds_since(start);
  }
  if (options.warmups <= 0 || once >= options.min_sample_seconds) return 1;
  const double wanted = std::ceil(options.min_sample_seconds / std::max(once, 1e-9));
  return static_cast<int>(std::clamp(wanted, 1.0, double(std::max(options.max_calls_per_sample, 1))));
}

double sample_seconds(const timed_call& call, int calls) {
  call.finish();
  const auto start = clock_type::now();
  for (int i = 0; i < calls; ++i) call.enqueue();
  call.finish();
  return seconds_since(start) / double(std::max(calls, 1));
}

timing time_calls(const timed_call& call, const timing_options& options) {
  const int calls = calls_per_sample(call, options);
  std::vector<double> samples;
  for (int r = 0; r < std::max(options.repetitions, 1); ++r) samples.push_back(sample_seconds(call, calls));
  return summarize(std::move(samples));
}

std::vector<timing> time_round_robin(const std::vector<timed_call>& calls, int rounds, const timing_options& options,
                                     const std::function<void()>& after_round) {
  std::vector<int> counts;
  for (const auto& call : calls) counts.push_back(calls_per_sample(call, options));
  std::vector<std::vector<double>> samples(calls.size());
  for (int r = 0; r < std::max(rounds, 1); ++r) {
    for (std::size_t i = 0; i < calls.size(); ++i) samples[i].push_back(sample_seconds(calls[i], counts[i]));
    if (after_round) after_round();
  }
  std::vector<timing> out;
  for (auto& s : samples) out.push_back(summarize(std::move(s)));
  return out;
}

}  // namespace tessera::baselines
