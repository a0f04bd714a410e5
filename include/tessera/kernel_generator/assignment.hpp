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
#include <algorithm>
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
#include <tessera/kernel_generator/matmul.hpp>
#include <tessera/runtime/covering_event.hpp>
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
void count_generated();
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

/// The store steps fused into a GEMM (the source before the GEMM's kernels), one per
/// (targets, expressions) type, context and aliasing pattern, like kernel_cache; the GEMM's
/// kernel cache and the program cache hold the built kernels (one per GEMM configuration).
template <typename Key>
class store_step_cache {
 public:
  template <typename Generate>
  static std::shared_ptr<const std::string> get(const runtime::context& ctx, std::vector<int> pattern,
                                                Generate&& generate) {
    std::lock_guard lock(mutex_);
    auto key = std::make_pair(ctx.cl_context()(), std::move(pattern));
    if (auto found = sources_.find(key); found != sources_.end()) {
      detail::count_cache_hit();
      return found->second;
    }
    auto source = std::make_shared<const std::string>(generate());
    detail::count_generated();
    sources_.emplace(std::move(key), source);
    return source;
  }

 private:
  inline static std::mutex mutex_;
  inline static std::map<std::pair<cl_context, std::vector<int>>, std::shared_ptr<const std::string>> sources_;
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

/// The GEMM skeleton's part: a function the GEMM's store calls for each element (i, j) of C
/// it owns, with gemm_value, the product's value there (alpha * acc). It is remembered as the
/// producer's value at (i, j), so the rest of every expression reads it through generate like
/// any other value. The function's parameters are the assignment's, appended to the GEMM
/// kernel's through GEMM_EPILOGUE_PARAMETERS. C is the first target, so:
///  - one target: the function returns the result's value at (i, j) (GEMM_EPILOGUE) and the
///    GEMM's own store writes it to C, in vectors where its family does (the same write as
///    the target's generate_store: element (i, j), converted to the element type);
///  - several: the function is the store step (GEMM_STORE_STEP, emit_store_step writes every
///    result) and the GEMM writes nothing itself.
template <typename Targets, typename Expressions>
std::string generate_store_step_source(const Targets& targets, const Expressions& expressions,
                                       const std::vector<const void*>& producers) {
  constexpr bool one_target = std::tuple_size_v<Targets> == 1;
  codegen::kernel_builder builder(one_target ? "tessera_epilogue" : "tessera_store_step");
  kernel_context kc(builder, /*restrict_matrices=*/false);  // C is also the GEMM kernel's C
  visit_kernel_parameters(kc, targets, expressions, 0, 0);
  const std::string i = "i", j = "j";
  for (const void* producer : producers) kc.remember(producer, i, j, "gemm_value");
  const auto values = std::apply(
      [&](const auto&... e) { return std::array<std::string, sizeof...(e)>{e.generate(kc, i, j)...}; }, expressions);
  if constexpr (one_target)
    builder.statement("return " + cast_to("REAL", values[0]));
  else
    emit_store_step(kc, targets, values, i, j);
  std::string parameters, names;
  for (const std::string& p : builder.parameter_declarations()) parameters += ", " + p;
  for (const std::string& n : builder.parameter_names()) names += ", " + n;
  builder.define("GEMM_EPILOGUE_PARAMETERS", parameters);
  builder.define("GEMM_EPILOGUE_ARGUMENTS", names);
  if constexpr (one_target)
    builder.define("GEMM_EPILOGUE(value, row, col)", "tessera_epilogue((value), (row), (col) GEMM_EPILOGUE_ARGUMENTS)");
  else
    builder.define("GEMM_STORE_STEP(value, row, col)",
                   "tessera_store_step((value), (row), (col) GEMM_EPILOGUE_ARGUMENTS)");
  return builder.function_source("const REAL gemm_value, const int i, const int j", one_target ? "REAL" : "void");
}

template <typename... Expressions>
constexpr kernel_skeleton skeleton_of_results() {
  return skeleton_of_arguments<Expressions...>();
}

/// The OpenCL C of the elementwise kernel assigning expressions to targets (for the GEMM
/// skeleton: with its producers materialized; generate_store_step_source when fused).
template <typename... Targets, typename... Expressions>
std::string generate_kernel_source(const std::tuple<Targets...>& targets,
                                   const std::tuple<Expressions...>& expressions) {
  codegen::kernel_builder builder("evaluate");
  kernel_context kc(builder);
  visit_kernel_parameters(kc, targets, expressions, 0, 0);
  emit_elementwise_kernel(kc, targets, expressions);
  return builder.source();
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
  const cl::Event first = evaluate_all(std::tuple<load_<matrix<target_value_t<Targets>>&>...>(
                                           load_<matrix<target_value_t<Targets>>&>(std::get<K>(temporaries))...),
                                       expressions);
  (std::get<K>(targets).assign_temporary(std::move(std::get<K>(temporaries))), ...);
  return runtime::covering_event(ctx, first);  // the kernel and the copies into blocks
}

/// The configuration a fused GEMM takes instead of the defaults table's (the tuner's); null
/// otherwise. Consumed (reset) by the fused launch.
const blas::gemm_params*& fused_gemm_params();

/// The elementwise kernel of an assignment: found or generated, its arguments set, launched.
template <typename Key, typename... Targets, typename... Expressions>
cl::Event launch_elementwise_assignment(const std::tuple<Targets...>& targets,
                                        const std::tuple<Expressions...>& expressions, shape result,
                                        const runtime::context& ctx) {
  // The pattern is taken after the targets are prepared: preparing may change a view.
  matrix_recorder recorder;
  visit_kernel_parameters(recorder, targets, expressions, 0, 0);
  auto kernel = kernel_cache<Key>::get(ctx, recorder.aliasing_pattern(),
                                       [&] { return generate_kernel_source(targets, expressions); });
  argument_list arguments;
  visit_kernel_parameters(arguments, targets, expressions, result.rows, result.cols);
  return launch_elementwise(*kernel, ctx, arguments, result.rows, result.cols);
}

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
                                  shape result, const runtime::context& ctx) {
  const access_collector collector = collect_producers(expressions);
  const std::vector<producer>& producers = collector.producers();
  if (std::any_of(producers.begin(), producers.end(), [](const producer& p) { return p.materialized(); }))
    return launch_elementwise_assignment<Key>(targets, expressions, result, ctx);
  using first_target = std::remove_cvref_t<std::tuple_element_t<0, std::tuple<Targets...>>>;
  if (fusable<first_target>(producers)) {
    matrix_recorder recorder;
    visit_kernel_parameters(recorder, targets, expressions, 0, 0);
    const auto source = store_step_cache<Key>::get(ctx, recorder.aliasing_pattern(), [&] {
      return generate_store_step_source(targets, expressions, detail::producer_nodes(producers));
    });
    argument_list arguments;
    visit_kernel_parameters(arguments, targets, expressions, result.rows, result.cols);
    // C is the first target, so the GEMM's checks hold; the store step writes every result.
    const auto& first = std::get<0>(targets);
    const auto& c = first.target_matrix();
    const auto [row, col] = first.target_offset();
    const index_t ldc = std::max<index_t>(1, c.rows());
    const blas::gemm_params* params = std::exchange(fused_gemm_params(), nullptr);
    return producers.front().launch_fused(
        fused_launch{*source, &arguments, &c.storage(), static_cast<std::size_t>(row + col * ldc), ldc, params});
  }
  const producers_release release{producers};
  const cl::Event start = runtime::start_marker(ctx);  // the GEMMs keep their own events
  materialize_producers(producers, ctx);
  launch_elementwise_assignment<Key>(targets, expressions, result, ctx);
  return runtime::covering_event(ctx, start);
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
  const cl::Event start = runtime::start_marker(ctx);
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
    if (shapes[k].rows != shapes[0].rows || shapes[k].cols != shapes[0].cols) {
      if constexpr (skeleton_of_results<Expressions...>() == kernel_skeleton::gemm) {
        const runtime::context& ctx = std::get<0>(targets).target_context();
        return detail::evaluate_separately(targets, expressions, ctx);
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
  using key = std::tuple<std::remove_cvref_t<Targets>..., std::remove_cvref_t<Expressions>...>;
  if (result.rows == 0 || result.cols == 0) {
    event = detail::enqueue_marker(ctx);
  } else if constexpr (skeleton_of_results<Expressions...>() == kernel_skeleton::gemm) {
    event = detail::evaluate_with_producers<key>(targets, expressions, result, ctx);
  } else {
    event = detail::launch_elementwise_assignment<key>(targets, expressions, result, ctx);
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

/// target = expression as one GEMM kernel with the given configuration instead of the
/// defaults table's: how the tuner measures a GEMM with its epilogue attached. Throws
/// argument_error when the assignment does not fuse (no matmul, or one the fall-back takes).
template <typename Target, typename Expression>
  requires(device_matrix<Target> || assignment_target<Target>) && operand<Expression>
cl::Event evaluate_fused_with(const blas::gemm_params& params, Target&& target, Expression&& expression) {
  const blas::gemm_params*& slot = detail::fused_gemm_params();
  slot = &params;
  cl::Event event;
  try {
    event = evaluate(std::forward<Target>(target), std::forward<Expression>(expression));
  } catch (...) {
    slot = nullptr;
    throw;
  }
  if (std::exchange(slot, nullptr) != nullptr)
    throw argument_error(
        "evaluate_fused_with: the assignment is not one fused GEMM (no matmul, an empty result, or a matmul that is "
        "not the root's producer)");
  return event;
}

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

/// The OpenCL C that `target = expression` runs (for reading, and the golden-file tests); for
/// a fused matmul, the store step it adds to the GEMM.
template <typename Target, typename Expression>
  requires(device_matrix<Target> || assignment_target<Target>) && operand<Expression>
std::string kernel_source(Target&& target, Expression&& expression) {
  const auto& t = as_target(std::forward<Target>(target));
  const auto& e = as_operation(std::forward<Expression>(expression));
  if constexpr (std::remove_cvref_t<decltype(e)>::skeleton == kernel_skeleton::gemm)
    return store_step_source(t, e);  // what the generator adds to the GEMM's kernels
  else
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
