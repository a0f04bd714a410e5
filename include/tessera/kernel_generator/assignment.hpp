#pragma once
// Assignment: `m = expr;`, `block(m, ...) = expr;`, `m += expr;`,
// `results(r1, r2) = expressions(e1, e2);` — every assignment is one kernel, generated once
// per (targets, expressions) type and aliasing pattern (kernel_cache.hpp), laid out by the
// skeleton of its expressions (skeletons.hpp; a matmul's: fused_matmul.hpp).
//
// The steps, in order (nothing is written before the checks pass):
//  1. shapes: every expression's shape (broadcast dimensions take the target's), equal
//     across results(), fitting block targets; otherwise argument_error naming both shapes;
//  2. one context for every matrix; fp64 when anything computes in double;
//  3. aliasing: a target read at other elements than written (`a = transpose(a)`) goes
//     through temporaries, so the result never depends on the order work-items run;
//  4. targets resized, the kernel looked up (or generated and built) and launched.
#include <array>
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include <tessera/kernel_generator/access.hpp>
#include <tessera/kernel_generator/argument_list.hpp>
#include <tessera/kernel_generator/as_operation.hpp>
#include <tessera/kernel_generator/binary_operators.hpp>
#include <tessera/kernel_generator/block.hpp>
#include <tessera/kernel_generator/fused_matmul.hpp>
#include <tessera/kernel_generator/kernel_cache.hpp>
#include <tessera/kernel_generator/reduction_skeleton.hpp>
#include <tessera/kernel_generator/reductions.hpp>
#include <tessera/kernel_generator/skeletons.hpp>
#include <tessera/kernel_generator/targets.hpp>
#include <tessera/runtime/covering_event.hpp>
#include <tessera/runtime/device.hpp>

namespace tessera::kernel_generator {

template <typename... Targets, typename... Expressions>
cl::Event evaluate_all(const std::tuple<Targets...>& targets, const std::tuple<Expressions...>& expressions);

namespace detail {

/// An event completing when everything enqueued so far on ctx's queue has.
cl::Event enqueue_marker(const runtime::context& ctx);
[[noreturn]] void throw_different_contexts();

template <typename... Targets, typename... Expressions>
cl::Event assign(const std::tuple<Targets...>& targets, const std::tuple<Expressions...>& expressions,
                 fused_gemm_request& request);

template <typename Target, typename Expression>
shape result_shape(const Target& target, const Expression& expression) {
  return {expression.rows() == any_size ? target.target_rows() : expression.rows(),
          expression.cols() == any_size ? target.target_cols() : expression.cols()};
}

/// Evaluates into fresh matrices, then hands each to its target: for assignments whose
/// result would otherwise depend on the order work-items run.
template <typename... Targets, typename... Expressions, std::size_t... K>
cl::Event evaluate_through_temporaries(const std::tuple<Targets...>& targets,
                                       const std::tuple<Expressions...>& expressions, shape result,
                                       const runtime::context& ctx, fused_gemm_request& request,
                                       std::index_sequence<K...>) {
  std::tuple<matrix<target_value_t<Targets>>...> temporaries{
      matrix<target_value_t<Targets>>(result.rows, result.cols, matrix_view::entire, ctx)...};
  const cl::Event first = assign(std::tuple<load_<matrix<target_value_t<Targets>>&>...>(
                                     load_<matrix<target_value_t<Targets>>&>(std::get<K>(temporaries))...),
                                 expressions, request);
  (std::get<K>(targets).assign_temporary(std::move(std::get<K>(temporaries))), ...);
  return runtime::covering_event(ctx, first);  // the kernel and the copies into blocks
}

/// results() whose expressions differ in shape, where matmuls are involved
/// (`results(c, s) = expressions(matmul(a, b), rowwise_sum(matmul(a, b)))`): the products are
/// evaluated once into temporaries, then each result is its own assignment reading them. When
/// a target is also read, every result is evaluated into a temporary before any target is
/// written (results() reads everything before it writes).
template <typename... Targets, typename... Expressions>
cl::Event evaluate_separately(const std::tuple<Targets...>& targets, const std::tuple<Expressions...>& expressions,
                              const runtime::context& ctx) {
  access_collector accesses = collect_producers(expressions);
  std::apply([&](const auto&... t) { (t.collect_writes(accesses, access_map::identity()), ...); }, targets);
  if (accesses.writes_twice())
    throw argument_error("results: one matrix is the target of two results (or two blocks of it are)");
  const producers_release release{accesses.producers()};
  const cl::Event start = runtime::start_marker(ctx);  // the GEMMs keep their own events
  materialize_producers(accesses.producers(), ctx);
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    if (accesses.reads_a_target()) {
      std::tuple<matrix<target_value_t<Targets>>...> temporaries{
          matrix<target_value_t<Targets>>(0, 0, matrix_view::entire, ctx)...};
      (evaluate(std::get<K>(temporaries), std::get<K>(expressions)), ...);
      (std::get<K>(targets).assign_temporary(std::move(std::get<K>(temporaries))), ...);
    } else {
      (evaluate_all(std::tuple<const std::remove_cvref_t<Targets>&>(std::get<K>(targets)),
                    std::tuple<const std::remove_cvref_t<Expressions>&>(std::get<K>(expressions))),
       ...);
    }
  }(std::index_sequence_for<Targets...>{});
  return runtime::covering_event(ctx, start);
}

/// evaluate_all, with what request asks of a fused GEMM.
template <typename... Targets, typename... Expressions>
cl::Event assign(const std::tuple<Targets...>& targets, const std::tuple<Expressions...>& expressions,
                 fused_gemm_request& request) {
  constexpr std::size_t n = sizeof...(Targets);
  static_assert(n == sizeof...(Expressions) && n > 0, "results() and expressions() need as many entries");
  static_assert((assignment_target<Targets> && ...), "results() takes matrices and blocks of matrices");
  using sequence = std::make_index_sequence<n>;

  // 1. Shapes.
  const auto shapes = [&]<std::size_t... K>(std::index_sequence<K...>) {
    return std::array<shape, n>{result_shape(std::get<K>(targets), std::get<K>(expressions))...};
  }(sequence{});
  for (std::size_t k = 1; k < n; ++k)
    if (shapes[k].rows != shapes[0].rows || shapes[k].cols != shapes[0].cols) {
      if constexpr (skeleton_of_results<Expressions...>() == kernel_skeleton::gemm) {
        const runtime::context& ctx = std::get<0>(targets).target_context();
        return evaluate_separately(targets, expressions, ctx);
      }
      throw argument_error("results: all expressions must have one shape; they have " +
                           shape_string(shapes[0].rows, shapes[0].cols) + " and " +
                           shape_string(shapes[k].rows, shapes[k].cols));
    }
  const shape result = shapes[0];
  if (result.rows < 0 || result.cols < 0)
    throw argument_error("assignment: the expression has no shape of its own (" +
                         shape_string(result.rows, result.cols) + ": only host numbers and broadcasts)");
  std::apply([&](const auto&... t) { (t.check_target_shape(result.rows, result.cols), ...); }, targets);
  to_kernel_int(result.rows, "result rows");  // kernels index with int: checked before anything changes
  to_kernel_int(result.cols, "result columns");

  // 2. Context and precision.
  const runtime::context& ctx = std::get<0>(targets).target_context();
  {
    matrix_recorder recorder;
    visit_kernel_parameters(recorder, targets, expressions, 0, 0);
    for (const runtime::context* c : recorder.contexts())
      if (c != &ctx) throw_different_contexts();
  }
  if constexpr ((std::remove_cvref_t<Expressions>::uses_fp64 || ...) ||
                (std::is_same_v<target_value_t<Targets>, double> || ...))
    runtime::require_fp64(ctx.device());

  // 3. Aliasing.
  access_collector accesses;
  std::apply([&](const auto&... t) { (t.collect_writes(accesses, access_map::identity()), ...); }, targets);
  std::apply([&](const auto&... e) { (e.collect_accesses(accesses, access_map::identity()), ...); }, expressions);
  if (accesses.writes_twice())
    throw argument_error("results: one matrix is the target of two results (or two blocks of it are)");
  if (accesses.order_dependent())
    return evaluate_through_temporaries(targets, expressions, result, ctx, request, sequence{});

  // 4. The kernel. Views are taken before targets change (a target may also be read).
  const auto views = std::apply([](const auto&... e) { return std::array<matrix_view, n>{e.view()...}; }, expressions);
  std::apply([&](const auto&... t) { (t.prepare_target(result.rows, result.cols), ...); }, targets);
  cl::Event event;
  using key = std::tuple<std::remove_cvref_t<Targets>..., std::remove_cvref_t<Expressions>...>;
  if (result.rows == 0 || result.cols == 0) {
    event = enqueue_marker(ctx);
  } else if constexpr (skeleton_of_results<Expressions...>() == kernel_skeleton::gemm) {
    event = evaluate_with_producers<key>(targets, expressions, result, ctx, request);
  } else {
    event = launch_assignment<key>(targets, expressions, result, ctx);
  }
  [&]<std::size_t... K>(std::index_sequence<K...>) { (std::get<K>(targets).finish_target(views[K]), ...); }(sequence{});
  return event;
}

/// target = expression, with what request asks of a fused GEMM.
template <typename Target, typename Expression>
cl::Event assign_one(Target&& target, Expression&& expression, fused_gemm_request& request) {
  const auto& t = as_target(std::forward<Target>(target));
  using target_type = std::remove_cvref_t<decltype(t)>;
  const auto& e = as_operation_beside<target_value_t<target_type>>(std::forward<Expression>(expression));
  return assign(std::tuple<const target_type&>(t), std::tuple<const std::remove_cvref_t<decltype(e)>&>(e), request);
}

}  // namespace detail

/// Assigns expressions[k] to targets[k] for every k, in one kernel.
template <typename... Targets, typename... Expressions>
cl::Event evaluate_all(const std::tuple<Targets...>& targets, const std::tuple<Expressions...>& expressions) {
  detail::fused_gemm_request none;
  return detail::assign(targets, expressions, none);
}

/// target = expression (target: a matrix, resized, or a block). Returns the kernel's event.
template <typename Target, typename Expression>
  requires(device_matrix<Target> || assignment_target<Target>) && (operand<Expression> || host_scalar<Expression>)
cl::Event evaluate(Target&& target, Expression&& expression) {
  detail::fused_gemm_request none;
  return detail::assign_one(std::forward<Target>(target), std::forward<Expression>(expression), none);
}

/// target = expression as one GEMM kernel with the given configuration instead of the
/// defaults table's: how the tuner measures a GEMM with its epilogue attached. Throws
/// argument_error when the assignment does not fuse (no matmul, or one the fall-back takes).
template <typename Target, typename Expression>
  requires(device_matrix<Target> || assignment_target<Target>) && operand<Expression>
cl::Event evaluate_fused_with(const blas::gemm_params& params, Target&& target, Expression&& expression) {
  detail::fused_gemm_request request{&params};
  const cl::Event event = detail::assign_one(std::forward<Target>(target), std::forward<Expression>(expression), request);
  if (!request.fused)
    throw argument_error(
        "evaluate_fused_with: the assignment is not one fused GEMM (no matmul, an empty result, or a matmul that is "
        "not the root's producer)");
  return event;
}

namespace detail {
/// The OpenCL C of every kernel an elementwise or reduction assignment runs, in order: each
/// reduction it materializes first (deepest first, a comment naming the step), then its own
/// kernel (the reduction skeleton's two when it reads reductions in place).
/// The elementwise kernel is the one the assignment would run at its current shape.
template <typename... Targets, typename... Expressions>
std::string assignment_source(const std::tuple<Targets...>& targets, const std::tuple<Expressions...>& expressions,
                              const runtime::context& ctx) {
  const shape result = result_shape(std::get<0>(targets), std::get<0>(expressions));
  // The matrices as they are now: a target not yet at the result's shape may give another split
  // than the launch, which records them after preparing the targets.
  matrix_recorder recorder;
  code_of(targets, expressions).record_matrices(recorder);
  const elementwise_split split = choose_elementwise_split(planning_device(ctx.device()), result.rows, result.cols,
                                                           recorder.rows_in_vectors(vector_rows),
                                                           recorder.one_row_each());
  if constexpr (!(std::remove_cvref_t<Expressions>::has_reductions || ...)) {
    return generate_kernel_source(targets, expressions, split);
  } else {
    reduction_analysis analysis;
    analyze_reductions(expressions, analysis, planning_device(ctx.device()));
    const auto code = code_of(targets, expressions);
    if (runs_fused_levels(analysis, result, planning_device(ctx.device())))
      return "// one kernel: each reduction by the group owning its rows (columns), then the result\n" +
             generate_fused_levels_source(code, distinct_levels(analysis));
    materialized_reductions stand_ins;
    std::string source;
    for (const reduction_site* site : analysis.to_materialize) {
      if (site->materialized()) continue;
      if (const auto [sum, max] = online_pair(analysis, *site); sum != nullptr) {
        source += "// materialized first: a " + std::string(site->rowwise ? "rowwise" : "colwise") +
                  " maximum and sum of exp(x - maximum), in one pass\n" + sum->materializing_with_max_source(ctx) + "\n";
        for (const reduction_site* done : {max, sum}) {
          done->stand_in(ctx);
          stand_ins.add(done->release);
        }
        continue;
      }
      source += "// materialized first: a " + std::string(site->rowwise ? "rowwise" : "colwise") + " reduction\n" +
                site->materializing_source(ctx) + "\n";
      site->stand_in(ctx);
      stand_ins.add(site->release);
    }
    if (analysis.roots.empty()) return source + generate_kernel_source(code, split);
    const reduction_site& first = *analysis.roots.front();
    const runtime::device_info& device = planning_device(ctx.device());
    const bool blocked = reduction_rows_blocked(device, first.rowwise, first.outputs);
    const reduction_walk walk = pass_walk(device, takes_whole_steps(analysis.roots));
    return source + "// the pass over the terms\n" +
           (blocked ? generate_blocked_rows_pass(code, analysis.roots)
                    : generate_reduction_source(code, analysis.roots, false, walk)) +
           "\n// the finishing pass (when the terms are split into parts)\n" +
           generate_reduction_source(code, analysis.roots, true, walk);
  }
}
}  // namespace detail

/// The OpenCL C that `target = expression` runs (for reading, and the golden-file tests): every
/// kernel, in order; for a fused matmul, the store step it adds to the GEMM.
template <typename Target, typename Expression>
  requires(device_matrix<Target> || assignment_target<Target>) && operand<Expression>
std::string kernel_source(Target&& target, Expression&& expression) {
  const auto& t = as_target(std::forward<Target>(target));
  const auto& e = as_operation(std::forward<Expression>(expression));
  if constexpr (std::remove_cvref_t<decltype(e)>::skeleton == kernel_skeleton::gemm)
    return store_step_source(t, e);  // what the generator adds to the GEMM's kernels
  else
    return detail::assignment_source(std::tuple<const std::remove_cvref_t<decltype(t)>&>(t),
                                     std::tuple<const std::remove_cvref_t<decltype(e)>&>(e), t.target_context());
}

namespace detail {
/// The context of an expression's first matrix; the default context when it reads none.
template <typename Expression>
const runtime::context& context_of(const Expression& expression) {
  matrix_recorder recorder;
  expression.visit_parameters(recorder);
  return recorder.empty() ? runtime::context::get() : *recorder.contexts().front();
}
}  // namespace detail

/// The OpenCL C of assigning expression to a new matrix of T (default: its value type,
/// float for int and bool expressions).
template <typename T = void, operand Expression>
std::string kernel_source(Expression&& expression) {
  using value = value_type_t<as_operation_t<Expression>>;
  using result_type = std::conditional_t<std::is_void_v<T>, floating_t<value>, T>;
  matrix<result_type> target(0, 0, matrix_view::entire, detail::context_of(expression));
  return kernel_source(target, std::forward<Expression>(expression));
}

// ---- results(...) = expressions(...) ----------------------------------------------------

template <typename... Operations>
class expressions_ {
 public:
  template <typename... E>
  explicit expressions_(E&&... e) : operations_(std::forward<E>(e)...) {}
  const std::tuple<Operations...>& operations() const noexcept { return operations_; }

 private:
  std::tuple<Operations...> operations_;
};

template <typename... Targets>
class results_ {
 public:
  template <typename... T>
  explicit results_(T&&... t) : targets_(std::forward<T>(t)...) {}
  template <typename... Operations>
  const results_& operator=(const expressions_<Operations...>& e) const {
    evaluate_all(targets_, e.operations());
    return *this;
  }
  const std::tuple<Targets...>& targets() const noexcept { return targets_; }

 private:
  std::tuple<Targets...> targets_;
};

/// Targets of one multi-output assignment: `results(a, b) = expressions(x + y, x - y);`.
template <typename... T>
  requires((device_matrix<T> || assignment_target<T>) && ...)
auto results(T&&... targets) {
  return results_<as_target_t<T>...>(as_target(std::forward<T>(targets))...);
}
/// Expressions of one multi-output assignment, evaluated in one kernel.
template <operand... E>
auto expressions(E&&... e) {
  return expressions_<as_operation_t<E>...>(as_operation(std::forward<E>(e))...);
}

/// The OpenCL C of a multi-output assignment.
template <typename... Targets, typename... Operations>
std::string kernel_source(const results_<Targets...>& r, const expressions_<Operations...>& e) {
  return detail::assignment_source(r.targets(), e.operations(), std::get<0>(r.targets()).target_context());
}

// ---- Definitions declared by operation and block_ ----------------------------------------

template <typename Derived, typename V, typename... A>
template <device_scalar T>
operation<Derived, V, A...>::operator matrix<T>() const {
  if (derived().rows() == any_size || derived().cols() == any_size)
    throw argument_error("assignment: the expression has no shape of its own (" +
                         shape_string(derived().rows(), derived().cols()) +
                         "); assign it to a matrix that has the shape it should take");
  matrix<T> result(0, 0, matrix_view::entire, detail::context_of(derived()));
  evaluate(result, derived());
  return result;
}

template <typename Derived, typename V, typename... A>
template <device_scalar T>
void operation<Derived, V, A...>::evaluate_into(matrix<T>& target) const {
  evaluate(target, derived());
}

template <typename Op, bool Rowwise, typename A>
cl::Event reduction_<Op, Rowwise, A>::materialize(const runtime::context& ctx) const {
  auto results = std::make_shared<matrix<value_type>>(rows(), cols(), matrix_view::entire, ctx);
  const cl::Event event = evaluate(*results, *this);
  materialized_ = std::move(results);
  return event;
}

template <typename Op, bool Rowwise, typename A>
std::string reduction_<Op, Rowwise, A>::materializing_source(const runtime::context& ctx) const {
  matrix<value_type> results(0, 0, matrix_view::entire, ctx);
  return kernel_source(results, *this);
}

template <typename Op, bool Rowwise, typename A>
cl::Event reduction_<Op, Rowwise, A>::materialize_with_max(const runtime::context& ctx) const {
  using max_type = std::remove_cvref_t<decltype(online_max())>;
  auto maxima = std::make_shared<matrix<value_type>>(rows(), cols(), matrix_view::entire, ctx);
  auto sums = std::make_shared<matrix<value_type>>(rows(), cols(), matrix_view::entire, ctx);
  const cl::Event event =
      evaluate_all(std::tuple<load_<matrix<value_type>&>, load_<matrix<value_type>&>>(*maxima, *sums),
                   std::tuple<const max_type&, const reduction_&>(online_max(), *this));
  online_max().materialized_ = std::move(maxima);
  materialized_ = std::move(sums);
  return event;
}

template <typename Op, bool Rowwise, typename A>
std::string reduction_<Op, Rowwise, A>::materializing_with_max_source(const runtime::context& ctx) const {
  using max_type = std::remove_cvref_t<decltype(online_max())>;
  matrix<value_type> maxima(0, 0, matrix_view::entire, ctx), sums(0, 0, matrix_view::entire, ctx);
  return detail::assignment_source(std::tuple<load_<matrix<value_type>&>, load_<matrix<value_type>&>>(maxima, sums),
                                   std::tuple<const max_type&, const reduction_&>(online_max(), *this), ctx);
}

template <device_scalar T>
void make_dense(matrix<T>& m) {
  if (m.view() == matrix_view::entire) return;
  evaluate(m, m);  // stores the zeros outside the view
  m.set_view(matrix_view::entire);
}

template <typename A>
template <typename E>
  requires operand<E> || host_scalar<E>
const block_<A>& block_<A>::operator=(E&& expression) const {
  evaluate(*this, std::forward<E>(expression));
  return *this;
}
template <typename A>
template <typename M>
void block_<A>::assign_temporary(M&& result) const
  requires assignable
{
  evaluate(*this, result);
}
template <typename A>
const block_<A>& block_<A>::operator=(const block_& other) const {
  evaluate(*this, other);
  return *this;
}
template <typename A>
template <typename E>
const block_<A>& block_<A>::operator+=(E&& expression) const {
  evaluate(*this, *this + std::forward<E>(expression));
  return *this;
}
template <typename A>
template <typename E>
const block_<A>& block_<A>::operator-=(E&& expression) const {
  evaluate(*this, *this - std::forward<E>(expression));
  return *this;
}
template <typename A>
template <typename E>
  requires host_scalar<E>
const block_<A>& block_<A>::operator*=(E scale) const {
  evaluate(*this, *this * scale);
  return *this;
}
template <typename A>
template <typename E>
  requires host_scalar<E>
const block_<A>& block_<A>::operator/=(E divisor) const {
  evaluate(*this, *this / divisor);
  return *this;
}

// ---- Compound assignment to matrices ------------------------------------------------------

template <device_scalar T, typename E>
  requires operand<E> || host_scalar<E>
matrix<T>& operator+=(matrix<T>& m, E&& e) {
  evaluate(m, m + std::forward<E>(e));
  return m;
}
template <device_scalar T, typename E>
  requires operand<E> || host_scalar<E>
matrix<T>& operator-=(matrix<T>& m, E&& e) {
  evaluate(m, m - std::forward<E>(e));
  return m;
}
/// Scaling only: an elementwise product is `m = elt_multiply(m, e)`.
template <device_scalar T, host_scalar E>
matrix<T>& operator*=(matrix<T>& m, E scale) {
  evaluate(m, m * scale);
  return m;
}
template <device_scalar T, host_scalar E>
matrix<T>& operator/=(matrix<T>& m, E divisor) {
  evaluate(m, m / divisor);
  return m;
}

}  // namespace tessera::kernel_generator

namespace tessera::runtime {
using kernel_generator::operator+=;
using kernel_generator::operator-=;
using kernel_generator::operator*=;
using kernel_generator::operator/=;
}  // namespace tessera::runtime
