#pragma once
// Assignment: `m = expr;`, `block(m, ...) = expr;`, `m += expr;`,
// `results(r1, r2) = expressions(e1, e2);` — every assignment is one kernel, generated once
// per (targets, expressions) type and aliasing pattern and cached here; the runtime's
// program cache holds the binaries.
//
// The steps, in order (nothing is written before the checks pass):
//  1. shapes: every expression's shape (broadcast dimensions take the target's), equal
//     across results(), fitting block targets; otherwise argument_error naming both shapes;
//  2. one context for every matrix; fp64 when anything computes in double;
//  3. aliasing: a target read at other elements than written (`a = transpose(a)`) goes
//     through temporaries, so the result never depends on the order work-items run;
//  4. targets resized, the kernel looked up (or generated and built), arguments set, launched.
//
// The kernel is laid out by a skeleton (operation.hpp: kernel_skeleton). The elementwise one
// computes element (i, j) per work-item; every skeleton ends in emit_store_step, the one
// place that writes results, so a producer with its own layout (a matmul computing C by
// register tiles) can apply the rest of the expression and the store per element it owns.
#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <tessera/kernel_generator/argument_list.hpp>
#include <tessera/kernel_generator/as_operation.hpp>
#include <tessera/kernel_generator/binary_operators.hpp>
#include <tessera/kernel_generator/block.hpp>
#include <tessera/runtime/device.hpp>
#include <tessera/runtime/kernel.hpp>

namespace tessera::kernel_generator {

/// What can be assigned to: a non-const matrix, or a block of one.
template <typename T>
concept assignment_target = requires { requires std::remove_cvref_t<T>::assignable; };

template <typename T>
  requires device_matrix<T> || expression<T>
decltype(auto) as_target(T&& target) {
  if constexpr (device_matrix<T>) {
    static_assert(std::is_lvalue_reference_v<T> && !std::is_const_v<std::remove_reference_t<T>>,
                  "only a non-const matrix can be assigned to");
    return load_<std::remove_reference_t<T>&>(target);
  } else {
    return as_operation(std::forward<T>(target));
  }
}
template <typename T>
using as_target_t = decltype(as_target(std::declval<T>()));

/// The element type of the matrix a target writes.
template <typename Target>
using target_value_t = typename std::remove_cvref_t<decltype(std::declval<const Target&>().target_matrix())>::value_type;

// ---- The kernel cache -------------------------------------------------------------------

/// A built kernel with its source; launches of one kernel object are serialized (arguments
/// are set on the shared cl_kernel).
struct generated_kernel {
  std::string source;
  runtime::kernel kernel;
  std::size_t max_work_group_size = 0;  // for this kernel on its device
  std::mutex launch_mutex;
};

/// How often an assignment found its kernel in the per-type cache, and how many kernels were
/// generated (each then fetched from the runtime's program cache, which builds it or loads it).
struct kernel_cache_counters {
  std::size_t hits = 0;
  std::size_t generated = 0;
};
kernel_cache_counters cache_counters();

namespace detail {
void count_cache_hit();
std::shared_ptr<generated_kernel> build_kernel(const runtime::context& ctx, std::string source);
cl::Event launch_elementwise(generated_kernel& kernel, const runtime::context& ctx, const argument_list& arguments,
                             index_t rows, index_t cols);
cl::Event enqueue_marker(const runtime::context& ctx);
[[noreturn]] void throw_different_contexts();
}  // namespace detail

/// One cache per (targets, expressions) type: a static, as the design asks; inside, one
/// kernel per context and aliasing pattern (which matrices are the same object changes the
/// parameters and which loads are shared; which have triangular views adds their tests).
template <typename Key>
class kernel_cache {
 public:
  template <typename Generate>
  static std::shared_ptr<generated_kernel> get(const runtime::context& ctx, std::vector<int> pattern,
                                               Generate&& generate) {
    std::lock_guard lock(mutex_);
    // A cl_context handle stays unique while the kernels made in it (held here) are alive.
    auto key = std::make_pair(ctx.cl_context()(), std::move(pattern));
    if (auto found = kernels_.find(key); found != kernels_.end()) {
      detail::count_cache_hit();
      return found->second;
    }
    auto built = detail::build_kernel(ctx, generate());
    kernels_.emplace(std::move(key), built);
    return built;
  }

 private:
  inline static std::mutex mutex_;
  inline static std::map<std::pair<cl_context, std::vector<int>>, std::shared_ptr<generated_kernel>> kernels_;
};

// ---- Generating the kernel --------------------------------------------------------------

/// The one parameter order: targets, expressions, then the result's shape. Used to declare
/// the parameters, to set the arguments and to record the matrices.
template <typename Visitor, typename Targets, typename Expressions>
void visit_kernel_parameters(Visitor& visitor, const Targets& targets, const Expressions& expressions, index_t rows,
                             index_t cols) {
  std::apply([&visitor](const auto&... t) { (t.visit_target_parameters(visitor), ...); }, targets);
  std::apply([&visitor](const auto&... e) { (e.visit_parameters(visitor), ...); }, expressions);
  visitor.integer(nullptr, "rows", rows);
  visitor.integer(nullptr, "cols", cols);
}

/// The store step: writes values[k], the k-th expression's value at (i, j), to the k-th
/// target. The one place results are written, whatever the skeleton.
template <typename Targets, std::size_t N>
void emit_store_step(kernel_context& kc, const Targets& targets, const std::array<std::string, N>& values,
                     const std::string& i, const std::string& j) {
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    (std::get<K>(targets).generate_store(kc, i, j, values[K]), ...);
  }(std::make_index_sequence<N>{});
}

/// The elementwise skeleton: work-item (i, j) computes element (i, j) of every result. The
/// column index spans the launch's second and third dimensions: GPUs cap the work-groups of
/// one dimension (NVIDIA's at 65535), and a loop instead would keep PoCL from vectorizing.
template <typename Targets, typename Expressions>
void emit_elementwise_kernel(kernel_context& kc, const Targets& targets, const Expressions& expressions) {
  auto& b = kc.builder();
  b.declare("const int", "i", "get_global_id(0)");
  b.declare("const int", "j", "get_global_id(1) + get_global_size(1) * get_global_id(2)");
  kc.open_scope("if (i < rows && j < cols)");
  const std::string i = "i", j = "j";
  const auto values = std::apply(
      [&](const auto&... e) { return std::array<std::string, sizeof...(e)>{e.generate(kc, i, j)...}; }, expressions);
  emit_store_step(kc, targets, values, i, j);
  kc.close_scope();
}

template <typename... Expressions>
constexpr kernel_skeleton skeleton_of_results() {
  return skeleton_of_arguments<Expressions...>();
}

// The two places a skeleton is chosen: the code around the expression, and the launch.

/// The OpenCL C of the kernel assigning expressions to targets.
template <typename... Targets, typename... Expressions>
std::string generate_kernel_source(const std::tuple<Targets...>& targets,
                                   const std::tuple<Expressions...>& expressions) {
  codegen::kernel_builder builder("evaluate");
  kernel_context kc(builder);
  visit_kernel_parameters(kc, targets, expressions, 0, 0);
  constexpr kernel_skeleton skeleton = skeleton_of_results<Expressions...>();
  static_assert(skeleton == kernel_skeleton::elementwise, "a new skeleton needs its emit_..._kernel here");
  emit_elementwise_kernel(kc, targets, expressions);
  return builder.source();
}

/// Launches a generated kernel over a rows x cols result, as its skeleton lays work-items out.
template <kernel_skeleton Skeleton>
cl::Event launch_generated(generated_kernel& kernel, const runtime::context& ctx, const argument_list& arguments,
                           index_t rows, index_t cols) {
  static_assert(Skeleton == kernel_skeleton::elementwise, "a new skeleton needs its launch here");
  return detail::launch_elementwise(kernel, ctx, arguments, rows, cols);
}

// ---- Evaluating -------------------------------------------------------------------------

template <typename... Targets, typename... Expressions>
cl::Event evaluate_all(const std::tuple<Targets...>& targets, const std::tuple<Expressions...>& expressions);

namespace detail {

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
                                       const runtime::context& ctx, std::index_sequence<K...>) {
  std::tuple<matrix<target_value_t<Targets>>...> temporaries{
      matrix<target_value_t<Targets>>(result.rows, result.cols, matrix_view::entire, ctx)...};
  evaluate_all(std::tuple<load_<matrix<target_value_t<Targets>>&>...>(
                   load_<matrix<target_value_t<Targets>>&>(std::get<K>(temporaries))...),
               expressions);
  (std::get<K>(targets).assign_temporary(std::move(std::get<K>(temporaries))), ...);
  return enqueue_marker(ctx);
}

}  // namespace detail

/// Assigns expressions[k] to targets[k] for every k, in one kernel.
template <typename... Targets, typename... Expressions>
cl::Event evaluate_all(const std::tuple<Targets...>& targets, const std::tuple<Expressions...>& expressions) {
  constexpr std::size_t n = sizeof...(Targets);
  static_assert(n == sizeof...(Expressions) && n > 0, "results() and expressions() need as many entries");
  static_assert((assignment_target<Targets> && ...), "results() takes matrices and blocks of matrices");
  using sequence = std::make_index_sequence<n>;

  // 1. Shapes.
  const auto shapes = [&]<std::size_t... K>(std::index_sequence<K...>) {
    return std::array<shape, n>{detail::result_shape(std::get<K>(targets), std::get<K>(expressions))...};
  }(sequence{});
  for (std::size_t k = 1; k < n; ++k)
    if (shapes[k].rows != shapes[0].rows || shapes[k].cols != shapes[0].cols)
      throw argument_error("results: all expressions must have one shape; they have " +
                           shape_string(shapes[0].rows, shapes[0].cols) + " and " +
                           shape_string(shapes[k].rows, shapes[k].cols));
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
      if (c != &ctx) detail::throw_different_contexts();
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
    return detail::evaluate_through_temporaries(targets, expressions, result, ctx, sequence{});

  // 4. The kernel. Views are taken before targets change (a target may also be read).
  const auto views = std::apply([](const auto&... e) { return std::array<matrix_view, n>{e.view()...}; }, expressions);
  std::apply([&](const auto&... t) { (t.prepare_target(result.rows, result.cols), ...); }, targets);
  cl::Event event;
  if (result.rows == 0 || result.cols == 0) {
    event = detail::enqueue_marker(ctx);
  } else {
    // The pattern is taken after the targets are prepared: preparing may change a view.
    matrix_recorder recorder;
    visit_kernel_parameters(recorder, targets, expressions, 0, 0);
    using key = std::tuple<std::remove_cvref_t<Targets>..., std::remove_cvref_t<Expressions>...>;
    auto kernel = kernel_cache<key>::get(ctx, recorder.aliasing_pattern(),
                                         [&] { return generate_kernel_source(targets, expressions); });
    argument_list arguments;
    visit_kernel_parameters(arguments, targets, expressions, result.rows, result.cols);
    event = launch_generated<skeleton_of_results<Expressions...>()>(*kernel, ctx, arguments, result.rows,
                                                                     result.cols);
  }
  [&]<std::size_t... K>(std::index_sequence<K...>) { (std::get<K>(targets).finish_target(views[K]), ...); }(sequence{});
  return event;
}

/// target = expression (target: a matrix, resized, or a block). Returns the kernel's event.
template <typename Target, typename Expression>
  requires(device_matrix<Target> || assignment_target<Target>) && (operand<Expression> || host_scalar<Expression>)
cl::Event evaluate(Target&& target, Expression&& expression) {
  const auto& t = as_target(std::forward<Target>(target));
  using target_type = std::remove_cvref_t<decltype(t)>;
  const auto& e = as_operation_beside<target_value_t<target_type>>(std::forward<Expression>(expression));
  return evaluate_all(std::tuple<const target_type&>(t), std::tuple<const std::remove_cvref_t<decltype(e)>&>(e));
}

/// The OpenCL C that `target = expression` runs (for reading, and the golden-file tests).
template <typename Target, typename Expression>
  requires(device_matrix<Target> || assignment_target<Target>) && operand<Expression>
std::string kernel_source(Target&& target, Expression&& expression) {
  const auto& t = as_target(std::forward<Target>(target));
  const auto& e = as_operation(std::forward<Expression>(expression));
  return generate_kernel_source(std::tuple<const std::remove_cvref_t<decltype(t)>&>(t),
                                std::tuple<const std::remove_cvref_t<decltype(e)>&>(e));
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
  return generate_kernel_source(r.targets(), e.operations());
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
