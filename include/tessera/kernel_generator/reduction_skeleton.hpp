#pragma once
// The reduction skeleton: an assignment whose expressions read rowwise or colwise reductions in
// place (`s = rowwise_sum(elt_multiply(a, b))`, `results(s, m) = expressions(rowwise_sum(a),
// rowwise_max(a))`, `n = sqrt(colwise_sum(a * a))`). The work-items of a group share each result
// (reduction_plan.hpp says how many and how they read), each lane accumulates its terms in
// several independent accumulators (memory-level parallelism on a GPU, instruction-level on a
// CPU), the group combines its lanes by a tree in local memory, and then either
//  - the rest of every expression is generated on the finished values and stored (one part), or
//  - partial results go to a workspace and a finishing kernel combines the parts in order
//    before the rest of the expression and the store (several parts: few results, long terms).
// Every root reduction of the assignment shares the one pass over the argument's elements
// (they run along the same dimension and length); a reduction that is not a root (under a
// broadcast, nested in another reduction) is materialized first, once per node, in dependency
// order, and read as a matrix; except where every reduction of an elementwise result runs along
// its rows (or every one along its columns) on a GPU: then one fused-levels kernel computes them
// all and the result, a work-group owning whole rows (softmax: one kernel instead of five).
#include <algorithm>
#include <array>
#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <tessera/codegen/kernel_builder.hpp>
#include <tessera/kernel_generator/access.hpp>
#include <tessera/kernel_generator/argument_list.hpp>
#include <tessera/kernel_generator/kernel_cache.hpp>
#include <tessera/kernel_generator/reduction_plan.hpp>
#include <tessera/kernel_generator/skeletons.hpp>
#include <tessera/runtime/buffer.hpp>
#include <tessera/runtime/covering_event.hpp>

namespace tessera::kernel_generator {

namespace detail {

/// The two kernels of a reduction assignment: the pass over the terms, and the pass that
/// finishes several parts.
struct reduction_kernels {
  runtime::kernel pass;
  runtime::kernel finish;
};
template <typename Key>
inline runtime::kernel_cache<std::vector<int>, reduction_kernels> reduction_kernel_cache;

/// Frees the temporaries of the reductions an assignment materialized when it is done.
class materialized_reductions {
 public:
  materialized_reductions() = default;
  materialized_reductions(const materialized_reductions&) = delete;
  materialized_reductions& operator=(const materialized_reductions&) = delete;
  ~materialized_reductions() {
    for (const auto& release : releases_) release();
  }
  void add(std::function<void()> release) { releases_.push_back(std::move(release)); }

 private:
  std::vector<std::function<void()>> releases_;
};

/// The reductions of an assignment: the roots its skeleton computes, the rest materialized.
struct reduction_analysis {
  access_collector collector;
  std::vector<const reduction_site*> roots;
  std::vector<const reduction_site*> to_materialize;
  /// What the kernels' code depends on besides the types and the aliasing pattern: which
  /// reductions are materialized and which are roots.
  std::vector<int> pattern;
  /// Whether the online rule applies on the device (online_rule_pays).
  bool online = false;
  /// The roots that compute a maximum and a sum of exp(x - maximum) together (online_root).
  std::deque<reduction_site> online_roots;
};

/// Whether the online rule (a maximum and a sum of exp(x - maximum) in one pass) is used on the
/// device: on GPUs, where the passes are bound by memory and the rule saves one read of the
/// matrix. A CPU's reduction passes are vectorized along rows or terms, which the pair's
/// rescaling defeats: PoCL, 2 cores, 2^24 floats, softmax by rows 0.24-0.25x the copy with two
/// passes, 0.05-0.07x with the online one (a first version, one exp and a swap per term).
bool online_rule_pays(const runtime::device_info& device);

/// Whether a root of the pass takes whole steps (reduction_site::accumulate_step): the walk
/// (pass_walk) then takes longer steps.
bool takes_whole_steps(const std::vector<const reduction_site*>& roots);

/// The root that computes the sum `sum` (a site with online_max) and the maximum `max` it
/// subtracts in one pass: its accumulator is a (maximum, sum of exp(x - maximum), compensation)
/// pair over E's terms, rescaled whenever the maximum grows (the online softmax of Milakov and
/// Gimelshein, 2018), its finished value remembered as both nodes'.
reduction_site online_root(const reduction_site& sum, const reduction_site& max);

/// Where the online rule pairs a sum and a maximum that are both to be materialized: the two
/// sites (sum, max) when `site` is one of such a pair in analysis.to_materialize, else nulls.
std::pair<const reduction_site*, const reduction_site*> online_pair(const reduction_analysis& analysis,
                                                                    const reduction_site& site);

/// Whether site can share the pass of the first root.
inline bool same_pass(const reduction_site& root, const reduction_site& site) {
  return site.rowwise == root.rowwise && site.length == root.length && site.outputs == root.outputs;
}

/// Finds the reductions of expressions: the roots the skeleton computes in one pass, and the
/// others, to be materialized (in the order to materialize them: the deepest first).
template <typename... Expressions>
void analyze_reductions(const std::tuple<Expressions...>& expressions, reduction_analysis& out,
                        const runtime::device_info& device) {
  out.online = online_rule_pays(device);
  std::apply([&](const auto&... e) { (e.collect_accesses(out.collector, access_map::identity()), ...); }, expressions);
  const std::vector<reduction_site>& sites = out.collector.reductions();
  // A node read in place and elsewhere is materialized: its other readers need it whole.
  const auto read_elsewhere = [&](const void* node) {
    return std::any_of(sites.begin(), sites.end(),
                       [&](const reduction_site& s) { return s.node == node && !(s.map == access_map::identity()); });
  };
  // 0: materialize, 1: materialized already, 2: a root, 3: short, computed in place, 4: one term,
  // 5 and 6: the sum and the maximum of an online root (below)
  std::vector<int> kind(sites.size(), 0);
  for (std::size_t s = 0; s < sites.size(); ++s) {
    const reduction_site& site = sites[s];
    if (site.materialized()) {
      kind[s] = 1;
      continue;
    }
    if (!(site.map == access_map::identity()) || read_elsewhere(site.node)) continue;
    if (!out.roots.empty() && !same_pass(*out.roots.front(), site)) continue;
    kind[s] = 2;
    if (std::none_of(out.roots.begin(), out.roots.end(), [&](const reduction_site* r) { return r->node == site.node; }))
      out.roots.push_back(&site);
  }
  // Short roots are computed by the elementwise skeleton, each work-item its own (kind 3; 4 for
  // one term, computed without a loop).
  if (!out.roots.empty() && out.roots.front()->length <= short_reduction) {
    const int in_place = out.roots.front()->length == 1 ? 4 : 3;
    out.roots.clear();
    for (int& k : kind)
      if (k == 2) k = in_place;
  }
  // The online rule: a root sum of exp(E - broadcast(M)) computes M too (kind 5 the sum, 6 the
  // maximum), where M is read nowhere but in place and inside that sum, and is not materialized.
  // (M is no root: the sum reads it elsewhere.)
  for (const reduction_site*& root : out.roots) {
    if (!out.online || root->online_max == nullptr) continue;
    const auto count = [&](const auto& take) { return std::count_if(sites.begin(), sites.end(), take); };
    const auto sums = count([&](const reduction_site& s) { return s.node == root->node; });
    const auto max_elsewhere = count([&](const reduction_site& s) {
      return s.node == root->online_max && !(s.map == access_map::identity());
    });
    const auto max_materialized =
        count([&](const reduction_site& s) { return s.node == root->online_max && s.materialized(); });
    if (max_elsewhere != sums || max_materialized > 0) continue;
    const reduction_site* max = nullptr;
    for (std::size_t s = 0; s < sites.size(); ++s) {
      if (sites[s].node == root->node) kind[s] = 5;
      if (sites[s].node == root->online_max) {
        kind[s] = 6;
        max = &sites[s];
      }
    }
    root = &out.online_roots.emplace_back(online_root(*root, *max));
  }
  for (std::size_t s = 0; s < sites.size(); ++s) sites[s].compute_as_one_term(kind[s] == 4);
  // Sites list parents before the reductions nested in them: the deepest come last.
  for (std::size_t s = sites.size(); s-- > 0;)
    if (kind[s] == 0) out.to_materialize.push_back(&sites[s]);
  for (std::size_t s = 0; s < sites.size(); ++s) out.pattern.push_back(kind[s]);
}

/// Evaluates each reduction of analysis.to_materialize into its temporary (a node reached
/// twice once), kept until `materialized` goes. Returns the event of the first evaluation (null
/// when every one was materialized already): the first command of the work, for covering_event.
inline cl::Event materialize_reductions(const reduction_analysis& analysis, const runtime::context& ctx,
                                        materialized_reductions& materialized) {
  cl::Event first;
  for (const reduction_site* site : analysis.to_materialize) {
    if (site->materialized()) continue;
    cl::Event event;
    if (const auto [sum, max] = online_pair(analysis, *site); sum != nullptr) {
      event = sum->materialize_with_max(ctx);  // both, in one pass
      materialized.add(max->release);
      materialized.add(sum->release);
    } else {
      event = site->materialize(ctx);
      materialized.add(site->release);
    }
    if (first() == nullptr) first = event;
  }
  return first;
}

/// The OpenCL C of the pass over the terms (finishing = false) or of the finishing pass.
/// Parameters: the assignment's (visit_kernel_parameters), then parts, part_length, lane_chunk,
/// lane_span, lane_step, and per root its partial results and its local scratch (the finishing
/// pass: parts, then the partial results). walk: the device's pass_walk (the pass's loop).
std::string generate_reduction_source(const assignment_code& code, const std::vector<const reduction_site*>& roots,
                                      bool finishing, const reduction_walk& walk);

/// The pass over the terms of a CPU's rowwise reduction in blocks (reduction_rows_blocked): work-item
/// b takes rows_per_item consecutive rows from row b * rows_per_item and walks its part's columns
/// once, accumulating a contiguous run of the rows per column (one accumulator per row: the rows are
/// the independent chains, and the loop over them is what the CPU vectorizes). A block past the last
/// row reads its rows clamped into the matrix and stores only those inside it. Parameters as
/// generate_reduction_source's pass (lane_chunk, lane_span and lane_step go unused: one lane).
std::string generate_blocked_rows_pass(const assignment_code& code, const std::vector<const reduction_site*>& roots);

/// The reduction kernels of an assignment (analysis.roots in place): found in cache (its type's)
/// or generated, planned and launched.
cl::Event launch_reduction_assignment(runtime::kernel_cache<std::vector<int>, reduction_kernels>& cache,
                                      const assignment_code& code, shape result, const runtime::context& ctx,
                                      const reduction_analysis& analysis);

/// The most bytes of rows (columns) one fused-levels work-group reads again.
inline constexpr std::size_t max_fused_group_bytes = std::size_t{256} << 10;

/// Whether the assignment runs as one fused-levels kernel: an elementwise result (no root) whose
/// reductions all run along its rows (rowwise, one per row, over every column) or all along its
/// columns, read where the result's row (column) is: softmax, log-sum-exp, normalizations. A
/// work-group then owns whole rows (columns): it computes each reduction in dependency order,
/// keeps the finished values in local memory and stores the result, reading its rows again
/// while they are still in the cache instead of materializing each reduction by kernels of its
/// own. On a GPU only: a CPU's work-item would walk the rows of column-major data with their
/// stride (its reductions keep the materializing kernels and their contiguous runs).
bool runs_fused_levels(const reduction_analysis& analysis, shape result, const runtime::device_info& device);

/// The reductions of a fused-levels kernel: each node of analysis.to_materialize once, deepest
/// first (a node reached on several paths first where it is deepest).
std::vector<const reduction_site*> distinct_levels(const reduction_analysis& analysis);

/// The fused-levels kernels of the assignments of type Key.
template <typename Key>
inline runtime::kernel_cache<std::vector<int>, runtime::kernel> fused_level_kernels;

/// The OpenCL C of the fused-levels kernel: each reduction of analysis.to_materialize (deepest
/// first, a node once) by the group's lanes, four accumulators each, a tree in local memory,
/// its finished value remembered for the rest; then every element of the group's rows.
std::string generate_fused_levels_source(const assignment_code& code, const std::vector<const reduction_site*>& levels);

/// The fused-levels kernel of an assignment: found in cache (its type's) or generated, planned
/// and launched.
cl::Event launch_fused_levels(runtime::kernel_cache<std::vector<int>, runtime::kernel>& cache,
                              const assignment_code& code, shape result, const runtime::context& ctx,
                              const reduction_analysis& analysis);

template <typename Key, typename... Targets, typename... Expressions>
cl::Event launch_with_reductions(const std::tuple<Targets...>& targets, const std::tuple<Expressions...>& expressions,
                                 shape result, const runtime::context& ctx);

/// An assignment's kernels once its producers (matmuls) are materialized or fused: the
/// reduction skeleton when it reads reductions in place, else the elementwise one.
template <typename Key, typename... Targets, typename... Expressions>
cl::Event launch_assignment(const std::tuple<Targets...>& targets, const std::tuple<Expressions...>& expressions,
                            shape result, const runtime::context& ctx) {
  if constexpr (!(std::remove_cvref_t<Expressions>::has_reductions || ...)) {
    return launch_elementwise_assignment<Key>(targets, expressions, result, ctx);
  } else {
    return launch_with_reductions<Key>(targets, expressions, result, ctx);
  }
}

/// launch_assignment of expressions with reductions.
template <typename Key, typename... Targets, typename... Expressions>
cl::Event launch_with_reductions(const std::tuple<Targets...>& targets, const std::tuple<Expressions...>& expressions,
                                 shape result, const runtime::context& ctx) {
  reduction_analysis analysis;
  analyze_reductions(expressions, analysis, planning_device(ctx.device()));
  const auto code = code_of(targets, expressions);
  if (runs_fused_levels(analysis, result, planning_device(ctx.device())))
    return launch_fused_levels(fused_level_kernels<Key>, code, result, ctx, analysis);
  materialized_reductions materialized;
  // The returned event covers the work from the first materializing command (not from a marker
  // enqueued before them: that would count the host's time to prepare the first kernel as the
  // device's, which an assignment of one kernel is not charged).
  cl::Event first;
  if (!analysis.to_materialize.empty()) {
    first = materialize_reductions(analysis, ctx, materialized);
    for (std::size_t s = 0; s < analysis.pattern.size(); ++s)  // now materialized
      if (analysis.pattern[s] == 0) analysis.pattern[s] = 1;
  }
  const cl::Event event = analysis.roots.empty()
                              ? launch_elementwise(elementwise_kernels<Key>, code, result, ctx, analysis.pattern)
                              : launch_reduction_assignment(reduction_kernel_cache<Key>, code, result, ctx, analysis);
  return first() == nullptr ? event : runtime::covering_event(ctx, first);
}

}  // namespace detail
}  // namespace tessera::kernel_generator
