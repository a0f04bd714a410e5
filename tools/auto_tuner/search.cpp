// The budgeted search (see search.hpp).
#include "search.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <random>

namespace tessera::auto_tuner {

namespace {
// The configuration of configs nearest to `to` (the fewest search features differing, the first
// among equals) among those `admitted` takes; null when it takes none.
template <typename Admitted>
const blas::gemm_params* nearest_config(const blas::gemm_params& to, const std::vector<blas::gemm_params>& configs,
                                        Admitted&& admitted) {
  const auto features = search_features(to);
  const blas::gemm_params* nearest = nullptr;
  std::size_t fewest = std::numeric_limits<std::size_t>::max();
  for (std::size_t i = 0; i < configs.size(); ++i) {
    if (!admitted(i)) continue;
    const auto other = search_features(configs[i]);
    std::size_t count = 0;
    for (std::size_t f = 0; f < std::min(features.size(), other.size()); ++f) count += features[f] != other[f];
    if (count < fewest) nearest = &configs[i], fewest = count;
  }
  return nearest;
}
}  // namespace

std::vector<std::int64_t> search_features(const blas::gemm_params& p) {
  std::vector<std::int64_t> features{static_cast<std::int64_t>(p.family)};
  for (const auto& info : blas::gemm_param_table) {
    std::int64_t value = info.get(p, 0);
    if (info.components() == 2) value = (value << 32) | (info.get(p, 1) & 0xffffffff);
    features.push_back(value);
  }
  return features;
}

namespace {
int distance(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
  int d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d += a[i] != b[i];
  return d;
}
}  // namespace

std::vector<std::size_t> budgeted_search(const std::vector<blas::gemm_params>& configs, std::size_t budget,
                                         const std::function<double(std::size_t)>& evaluate,
                                         std::uint64_t sample_seed, const std::vector<blas::gemm_params>& first) {
  const std::size_t n = configs.size();
  budget = std::min(budget, n);
  std::vector<std::vector<std::int64_t>> features(n);
  for (std::size_t i = 0; i < n; ++i) features[i] = search_features(configs[i]);
  std::vector<std::size_t> order;
  std::vector<double> score(n, -1.0);
  auto run = [&](std::size_t i) {
    score[i] = evaluate(i);
    order.push_back(i);
  };
  // 0. The configurations the caller knows to be promising.
  for (const auto& known : first) {
    const auto it = std::find(configs.begin(), configs.end(), known);
    const auto i = static_cast<std::size_t>(it - configs.begin());
    if (it != configs.end() && score[i] < 0 && order.size() < budget) run(i);
  }
  // 1. A spread sample: a third of the budget, evenly over the configurations in a shuffled
  //    order (deterministic per seed), so every family and size region is seen. Replayed on the
  //    H200's full results (tune_replay --seeds 100), a third found 97% of the best more often
  //    than a half or a quarter: refinement needs the room.
  std::vector<std::size_t> shuffled(n);
  std::iota(shuffled.begin(), shuffled.end(), 0);
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(static_cast<std::mt19937::result_type>(sample_seed)));
  const std::size_t sample = std::max<std::size_t>(1, budget / 3);
  for (std::size_t s = 0; s < sample && order.size() < budget; ++s)
    if (score[shuffled[s * n / sample]] < 0) run(shuffled[s * n / sample]);
  // 2. Refinement: repeatedly evaluate the unevaluated configuration closest to a leader
  //    (fewest differing parameters), leaders taken best first.
  while (order.size() < budget) {
    std::vector<std::size_t> leaders(order);
    std::sort(leaders.begin(), leaders.end(), [&](auto x, auto y) { return score[x] > score[y]; });
    leaders.resize(std::min<std::size_t>(leaders.size(), 3));
    std::size_t pick = n;
    int best_distance = 1 << 30;
    for (std::size_t rank = 0; rank < leaders.size() && pick == n; ++rank)
      for (std::size_t i = 0; i < n; ++i)
        if (score[i] < 0) {
          // Weighted: a neighbour of the best leader beats an equally close one of the third.
          const int d = distance(features[i], features[leaders[rank]]) * 4 + int(rank);
          if (d < best_distance) best_distance = d, pick = i;
        }
    if (pick == n) break;
    run(pick);
  }
  return order;
}

std::vector<blas::gemm_params> leaders_of(const std::vector<blas::gemm_params>& configs,
                                          const std::vector<std::size_t>& evaluated,
                                          const std::function<double(std::size_t)>& score, std::size_t count) {
  std::vector<std::size_t> ok;
  for (const auto i : evaluated)
    if (score(i) > 0) ok.push_back(i);
  std::stable_sort(ok.begin(), ok.end(), [&](auto x, auto y) { return score(x) > score(y); });
  std::vector<blas::gemm_params> out;
  for (std::size_t r = 0; r < std::min(count, ok.size()); ++r) out.push_back(configs[ok[r]]);
  return out;
}

std::vector<blas::gemm_params> search_seeds(const std::vector<blas::gemm_params>& leaders,
                                            const std::vector<blas::gemm_params>& configs,
                                            std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch,
                                            int element_bytes, std::int64_t compute_units) {
  std::vector<blas::gemm_params> out;
  const auto held = [](const std::vector<blas::gemm_params>& in, const blas::gemm_params& p) {
    return std::find(in.begin(), in.end(), p) != in.end();
  };
  for (const auto& leader : leaders) {
    // The leader's tile with split_k = 0 where configs hold it, else the split-per-call
    // configuration nearest to it (fewest differing parameters, the first among equals): the
    // NVIDIA set splits only some tiles, and a few-tile shape's leaders are often others.
    blas::gemm_params twin = leader;
    twin.split_k = 0;
    if (!held(configs, twin)) {
      const auto* split = nearest_config(leader, configs, [&](std::size_t i) { return configs[i].split_k == 0; });
      if (split == nullptr) continue;
      twin = *split;
    }
    if (!held(out, twin) && blas::chosen_split_k(twin, element_bytes, m, n, k, batch, compute_units) > 1)
      out.push_back(twin);
  }
  // The leader's tile fitted to the output: where the leader wastes a quarter or more of the
  // device (edge tiles mostly empty, a last wave mostly idle), the configuration of its family
  // that fills the device best, the nearest to the leader among equals. The H200's narrow
  // outputs led with 128 x 64 blocks, 16 useful columns of 64 at n = 16, and the spread sample
  // did not reach the narrow blocks of the set (16384 x 16 x 4096: 0.54x cuBLAS, 2026-11-28).
  const blas::gemm_problem_shape shape{m, n, k, batch, false, false};
  std::vector<double> fills;  // of every configuration, computed once, where a leader needs them
  for (const auto& leader : leaders) {
    const double leader_fill = blas::device_fill(leader, element_bytes, shape, compute_units);
    if (leader_fill >= 0.75) continue;
    if (fills.empty())
      for (const auto& c : configs) fills.push_back(blas::device_fill(c, element_bytes, shape, compute_units));
    double best_fill = 0.0;
    for (std::size_t i = 0; i < configs.size(); ++i)
      if (configs[i].family == leader.family) best_fill = std::max(best_fill, fills[i]);
    if (best_fill < 1.25 * leader_fill) continue;  // nothing fills a quarter more
    // Fills within 2% of the best count as equal: of those, the fewest parameters differing.
    const auto* fitted = nearest_config(leader, configs, [&](std::size_t i) {
      return configs[i].family == leader.family && fills[i] >= best_fill / 1.02;
    });
    if (fitted != nullptr && !held(out, *fitted)) out.push_back(*fitted);
  }
  for (const auto& leader : leaders)
    if (!held(out, leader)) out.push_back(leader);
  return out;
}

}  // namespace tessera::auto_tuner
