#pragma once
// An assignment with a matmul (matmul.hpp): fused into the tuned GEMM as one kernel where the
// product is the root's producer, else each product evaluated into a temporary by blas::gemm
// and the elementwise kernel reading them.
#include <algorithm>
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <tessera/blas/gemm.hpp>
#include <tessera/kernel_generator/access.hpp>
#include <tessera/kernel_generator/argument_list.hpp>
#include <tessera/kernel_generator/kernel_cache.hpp>
#include <tessera/kernel_generator/matmul.hpp>
#include <tessera/kernel_generator/reduction_skeleton.hpp>
#include <tessera/kernel_generator/skeletons.hpp>
#include <tessera/kernel_generator/targets.hpp>
#include <tessera/runtime/covering_event.hpp>

namespace tessera::kernel_generator {

namespace detail {

/// What an assignment is asked about a fused GEMM, passed down to where it launches: the
/// configuration to take instead of the defaults table's (the tuner's), and, on return, whether
/// the assignment ran as one GEMM kernel.
struct fused_gemm_request {
  const blas::gemm_params* params = nullptr;
  bool fused = false;
};

/// Whether the assignment can be one GEMM kernel: one product (producers with equal operands
/// are one product, however many nodes or paths reach it), read in place by every path, of
/// the first target's element type.
template <typename FirstTarget>
bool fusable(const std::vector<producer>& producers) {
  if (producers.empty()) return false;
  for (const producer& p : producers)
    if (p.operands != producers.front().operands || !(p.map == access_map::identity())) return false;
  return producers.front().is_double == std::is_same_v<target_value_t<FirstTarget>, double>;
}

/// The nodes of a fused product (each once).
inline std::vector<const void*> producer_nodes(const std::vector<producer>& producers) {
  std::vector<const void*> nodes;
  for (const producer& p : producers)
    if (std::find(nodes.begin(), nodes.end(), p.node) == nodes.end()) nodes.push_back(p.node);
  return nodes;
}

/// Frees the temporaries of materialized producers when an assignment is done.
struct producers_release {
  const std::vector<producer>& producers;
  explicit producers_release(const std::vector<producer>& p) : producers(p) {}
  producers_release(const producers_release&) = delete;
  ~producers_release() {
    for (const producer& p : producers) p.release();
  }
};

/// Evaluates every producer into a temporary, once per distinct product: a producer with
/// the operands of one evaluated before adopts its temporary.
inline void materialize_producers(const std::vector<producer>& producers, const runtime::context& ctx) {
  for (std::size_t k = 0; k < producers.size(); ++k) {
    const producer& p = producers[k];
    if (p.materialized()) continue;
    const auto same = std::find_if(producers.begin(), producers.begin() + static_cast<std::ptrdiff_t>(k),
                                   [&](const producer& q) { return q.operands == p.operands; });
    if (same != producers.begin() + static_cast<std::ptrdiff_t>(k)) p.adopt(same->temporary());
    else p.materialize(ctx);
  }
}

template <typename... Expressions>
access_collector collect_producers(const std::tuple<Expressions...>& expressions) {
  access_collector collector;
  std::apply([&](const auto&... e) { (e.collect_accesses(collector, access_map::identity()), ...); }, expressions);
  return collector;
}

/// An assignment with a matmul: fused into the GEMM where fusable(), else the fall-back:
/// each distinct product evaluated into a temporary by blas::gemm, then the elementwise
/// kernel reading the temporaries. Producers already materialized (by an enclosing
/// assignment) are the enclosing assignment's: they are only read.
template <typename Key, typename... Targets, typename... Expressions>
cl::Event evaluate_with_producers(const std::tuple<Targets...>& targets, const std::tuple<Expressions...>& expressions,
                                  shape result, const runtime::context& ctx, fused_gemm_request& request) {
  const access_collector collector = collect_producers(expressions);
  const std::vector<producer>& producers = collector.producers();
  if (std::any_of(producers.begin(), producers.end(), [](const producer& p) { return p.materialized(); }))
    return launch_assignment<Key>(targets, expressions, result, ctx);
  using first_target = std::remove_cvref_t<std::tuple_element_t<0, std::tuple<Targets...>>>;
  if (fusable<first_target>(producers)) {
    // Reductions under the product's epilogue (a bias's broadcast row sums) are evaluated
    // first, once, and read by the store step.
    reduction_analysis reductions;
    if constexpr ((std::remove_cvref_t<Expressions>::has_reductions || ...))
      analyze_reductions(expressions, reductions, planning_device(ctx.device()));
    materialized_reductions materialized;
    const cl::Event start = reductions.to_materialize.empty() ? cl::Event() : runtime::start_marker(ctx);
    materialize_reductions(reductions, ctx, materialized);
    matrix_recorder recorder;
    visit_kernel_parameters(recorder, targets, expressions, 0, 0);
    // Which reductions are materialized (read) or computed in place (loops, one term) is part
    // of the store step's code, so of its key.
    std::vector<int> pattern = recorder.aliasing_pattern();
    pattern.push_back(-1);
    pattern.insert(pattern.end(), reductions.pattern.begin(), reductions.pattern.end());
    const auto source = counted_get(store_steps<Key>, ctx, pattern, [&] {
      count_generated();
      return generate_store_step_source(targets, expressions, producer_nodes(producers));
    });
    argument_list arguments;
    visit_kernel_parameters(arguments, targets, expressions, result.rows, result.cols);
    // C is the first target, so the GEMM's checks hold; the store step writes every result.
    const auto& first = std::get<0>(targets);
    const auto& c = first.target_matrix();
    const auto [row, col] = first.target_offset();
    const index_t ldc = std::max<index_t>(1, c.rows());
    request.fused = true;
    const cl::Event event = producers.front().launch_fused(
        fused_launch{*source, &arguments, &c.storage(), static_cast<std::size_t>(row + col * ldc), ldc, request.params});
    return reductions.to_materialize.empty() ? event : runtime::covering_event(ctx, start);
  }
  const producers_release release{producers};
  const cl::Event start = runtime::start_marker(ctx);  // the GEMMs keep their own events
  materialize_producers(producers, ctx);
  launch_assignment<Key>(targets, expressions, result, ctx);
  return runtime::covering_event(ctx, start);
}

}  // namespace detail

/// The store step a fused `target = expression` puts before the GEMM's kernels
/// (blas::detail::program_text(..., source) gives the whole program). Throws argument_error
/// when the assignment does not fuse.
template <typename Target, typename Expression>
  requires(device_matrix<Target> || assignment_target<Target>) && operand<Expression>
std::string store_step_source(Target&& target, Expression&& expression) {
  const auto& t = as_target(std::forward<Target>(target));
  const auto& e = as_operation(std::forward<Expression>(expression));
  const access_collector collector = detail::collect_producers(std::tuple<const std::remove_cvref_t<decltype(e)>&>(e));
  if (!detail::fusable<std::remove_cvref_t<decltype(t)>>(collector.producers()))
    throw argument_error("store_step_source: the assignment is not one fused GEMM");
  return generate_store_step_source(std::tuple<const std::remove_cvref_t<decltype(t)>&>(t),
                                    std::tuple<const std::remove_cvref_t<decltype(e)>&>(e),
                                    detail::producer_nodes(collector.producers()));
}

}  // namespace tessera::kernel_generator
