#pragma once
// Reduction kernels: fn computes a term per index, op combines terms, finalize turns the
// combined value into the result (sqrt for a norm), identity is op's neutral element.
//
//   run_kernel_reduction(exec, [](auto i, auto x, auto y) { return x[i] * y[i]; },
//                        TESSERA_KERNEL_REDUCE_SUM(double), result, n, x, y);     // a dot product
//
// - run_kernel_reduction: one result (1-D size or dim<2>), in result[0];
// - run_kernel_row_reduction: one result per row, in result[row * result_stride];
// - run_kernel_col_reduction: one result per column, in result[col].
// An empty reduction yields finalize(identity) (the identity for the macros below).
//
// OpenMP: each thread reduces a contiguous chunk, the chunks are combined in thread order.
// OpenCL: work-groups write partial results, then a final pass combines them and applies
// finalize; a row or column reduction whose outputs each fit one part finishes them in one
// stage (reduction_layout.hpp says how the work is split for a GPU and a CPU device). Both orders depend only on the sizes and the device (or thread count), so
// a reduction gives the same bits every time it runs there. op, finalize and fn must not
// capture, like every kernel function.
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include <omp.h>

#include <tessera/runtime/checked_size.hpp>
#include <tessera/runtime/error.hpp>
#include <tessera/runtime/kernel.hpp>
#include <tessera/unified/launch_checks.hpp>
#include <tessera/unified/reduction_kernels.hpp>
#include <tessera/unified/reduction_layout.hpp>
#include <tessera/unified/run_kernel.hpp>

/// op, finalize and identity of a sum of ValueType.
#define TESSERA_KERNEL_REDUCE_SUM(ValueType) \
  [](auto a, auto b) { return a + b; }, [](auto a) { return a; }, ValueType {}
/// op, finalize and identity of a maximum of ValueType (the identity is its lowest value).
#define TESSERA_KERNEL_REDUCE_MAX(ValueType)                                     \
  [](auto a, auto b) { return ::tessera::unified::max(a, b); }, [](auto a) { return a; }, \
      ::std::numeric_limits<ValueType>::lowest()

namespace tessera::unified {

namespace detail {

template <typename V>
constexpr void check_reduction_value() {
  static_assert(kernel_value<V> && !std::is_same_v<V, bool>,
                "tessera::unified: a reduction's result type is a number (float, double, an integer)");
}

// --- OpenMP ---------------------------------------------------------------------------

/// [begin, end) of thread `id` among `team` over n items: contiguous, in thread order.
inline std::pair<std::int64_t, std::int64_t> thread_chunk(std::int64_t n, int id, int team) {
  const std::int64_t chunk = n / team + (n % team != 0);
  return {std::min(n, chunk * id), std::min(n, chunk * (id + 1))};
}

/// fn's terms over [0, n) (flat indices of a rows x cols space when TwoD), combined with op.
template <bool TwoD, typename Fn, typename Op, typename V, typename... A>
V omp_reduce(int threads, std::int64_t n, std::int64_t cols, V identity, A... a) {
  std::vector<V> partial(static_cast<std::size_t>(threads), identity);
#pragma omp parallel num_threads(threads) if (n >= min_parallel_elements)
  {
    const auto [begin, end] = thread_chunk(n, omp_get_thread_num(), omp_get_num_threads());
    V acc = identity;
    if constexpr (TwoD) {
      if (begin < end) {
        std::int64_t row = begin / cols, col = begin % cols;
        for (std::int64_t t = begin; t < end; ++t) {
          acc = Op{}(acc, Fn{}(row, col, a...));
          if (++col == cols) col = 0, ++row;
        }
      }
    } else {
      for (std::int64_t i = begin; i < end; ++i) acc = Op{}(acc, Fn{}(i, a...));
    }
    partial[static_cast<std::size_t>(omp_get_thread_num())] = acc;
  }
  V total = identity;
  for (const V& p : partial) total = Op{}(total, p);
  return total;
}

template <bool TwoD, typename Fn, typename Op, typename Finalize, typename V, typename... Args>
void reduce(const omp_executor& exec, V identity, array<V>& result, std::int64_t n, std::int64_t cols,
            const host_launch& launch, Args&... args) {
  check_arguments(exec, launch, args..., result);
  check_result(launch.operation, result.size(), 1);
  V* out = result.host_data();
  std::apply([&](auto... a) { out[0] = static_cast<V>(Finalize{}(omp_reduce<TwoD, Fn, Op>(exec.num_threads(), n, cols, identity, a...))); },
             host_arguments(launch, args...));
}

/// Rows in parallel; each row's columns in unrolled blocks of four.
template <typename Fn, typename Op, typename Finalize, typename V, typename... A>
void omp_row_reduce(int threads, std::int64_t rows, std::int64_t cols, V identity, V* out, std::int64_t stride, A... a) {
  const std::int64_t rounded = cols / 4 * 4;
#pragma omp parallel for schedule(static) num_threads(threads) if (rows * cols >= min_parallel_elements)
  for (std::int64_t row = 0; row < rows; ++row) {
    V acc = identity;
    std::int64_t col = 0;
    for (; col < rounded; col += 4) {
      acc = Op{}(acc, Fn{}(row, col, a...));
      acc = Op{}(acc, Fn{}(row, col + 1, a...));
      acc = Op{}(acc, Fn{}(row, col + 2, a...));
      acc = Op{}(acc, Fn{}(row, col + 3, a...));
    }
    for (; col < cols; ++col) acc = Op{}(acc, Fn{}(row, col, a...));
    out[row * stride] = static_cast<V>(Finalize{}(acc));
  }
}

template <typename Fn, typename Op, typename Finalize, typename V, typename... Args>
void row_reduce(const omp_executor& exec, V identity, array<V>& result, std::int64_t stride, dim<2> size,
                const host_launch& launch, Args&... args) {
  check_arguments(exec, launch, args..., result);
  const std::int64_t rows = static_cast<std::int64_t>(size[0]);
  V* out = result.host_data();
  std::apply([&](auto... a) {
    omp_row_reduce<Fn, Op, Finalize>(exec.num_threads(), rows, static_cast<std::int64_t>(size[1]), identity, out,
                                     stride, a...);
  }, host_arguments(launch, args...));
}

/// Threads take contiguous row chunks, each with a row of partial results; the chunks are
/// then combined per column in thread order.
template <typename Fn, typename Op, typename Finalize, typename V, typename... A>
void omp_col_reduce(int threads, std::int64_t rows, std::int64_t cols, V identity, V* out, A... a) {
  std::vector<V> partial(static_cast<std::size_t>(threads) * static_cast<std::size_t>(cols), identity);
#pragma omp parallel num_threads(threads) if (rows * cols >= min_parallel_elements)
  {
    const int id = omp_get_thread_num();
    const auto [begin, end] = thread_chunk(rows, id, omp_get_num_threads());
    V* mine = partial.data() + static_cast<std::size_t>(id) * static_cast<std::size_t>(cols);
    for (std::int64_t row = begin; row < end; ++row)
      for (std::int64_t col = 0; col < cols; ++col) mine[col] = Op{}(mine[col], Fn{}(row, col, a...));
  }
#pragma omp parallel for schedule(static) num_threads(threads) if (cols * threads >= min_parallel_elements)
  for (std::int64_t col = 0; col < cols; ++col) {
    V acc = identity;
    for (int t = 0; t < threads; ++t) acc = Op{}(acc, partial[static_cast<std::size_t>(t) * cols + col]);
    out[col] = static_cast<V>(Finalize{}(acc));
  }
}

template <typename Fn, typename Op, typename Finalize, typename V, typename... Args>
void col_reduce(const omp_executor& exec, V identity, array<V>& result, dim<2> size, const host_launch& launch,
                Args&... args) {
  check_arguments(exec, launch, args..., result);
  V* out = result.host_data();
  std::apply([&](auto... a) {
    omp_col_reduce<Fn, Op, Finalize>(exec.num_threads(), static_cast<std::int64_t>(size[0]),
                                     static_cast<std::int64_t>(size[1]), identity, out, a...);
  }, host_arguments(launch, args...));
}

// --- OpenCL: launches (the kernels are in reduction_kernels.hpp) --------------------------

struct full_reduction_kernel;
struct row_reduction_kernel;
struct row_block_kernel;
struct col_reduction_kernel;
struct col_block_kernel;
struct col_block_array_kernel;
struct single_term_kernel;
struct final_per_output_kernel;

/// The one kernel of Key on exec's context, traced by body the first time.
template <typename Key, typename Body>
const runtime::kernel& cached_kernel(const opencl_executor& exec, const char* kind, const std::type_info& function,
                                     Body body) {
  return cached_kernels<Key, 1>(exec, [&] {
    return std::array{trace_kernel(exec.ctx(), program_name(kind, function), body)};
  })[0];
}

template <bool TwoD, typename Fn, typename Op, typename Finalize, typename V, typename... Args>
void reduce(const opencl_executor& exec, V identity, array<V>& result, std::int64_t n, std::int64_t cols,
            const host_launch& launch, Args&... args) {
  check_arguments(exec, launch, args..., result);
  check_result(launch.operation, result.size(), 1);
  // A GPU's 2-D terms find their rows by dividing their indices when every index fits 32 bits.
  const runtime::device_info& device = layout_device(exec.ctx().device());
  constexpr std::int64_t largest = std::numeric_limits<std::uint32_t>::max();
  const bool divided = TwoD && device.type != runtime::device_type::cpu && cols > 0 && cols <= largest &&
                       n - 1 <= largest && !stepping_indices_forced();
  const index_walk walk = divided ? index_walk::divided : index_walk::rows_and_steps;
  using key = std::tuple<full_reduction_kernel, std::bool_constant<TwoD>, Fn, Op, Finalize, V, argument_t<Args>...>;
  const auto& kernels = cached_kernels<key, 2>(exec, static_cast<std::size_t>(walk), [&] {
    const char* kind = !TwoD ? "run_kernel_reduction 1-D"
                       : divided ? "run_kernel_reduction 2-D (divided indices)"
                                 : "run_kernel_reduction 2-D";
    return std::array{trace_kernel(exec.ctx(), program_name(kind, typeid(Fn)),
                                   [&](const std::shared_ptr<kernel_trace>& t) {
                                     trace_full_partials<TwoD, Fn, Op, V, Args...>(t, walk);
                                   }),
                      trace_kernel(exec.ctx(), program_name("final pass", typeid(Finalize)),
                                   trace_final_scalar<Op, Finalize, V>)};
  });
  const auto layout = full_reduction_layout(device, work_group_size(kernels[0]), static_cast<std::size_t>(n));
  auto workspace = exec.workspace(layout.groups * sizeof(V));
  const cl_mem partials = workspace.buffer->handle()();
  auto sizes = [&] {
    if constexpr (TwoD) {
      // The step of an item's index, in whole rows and remaining columns (cols is 0 only when n
      // is), and the divider by cols.
      const auto step = static_cast<std::int64_t>(layout.step);
      const index_divider d = divided ? make_index_divider(static_cast<std::uint32_t>(cols)) : index_divider{};
      return std::tuple(n, cols, cols > 0 ? step / cols : 0, cols > 0 ? step % cols : 0, d.magic, d.pre, d.post);
    } else {
      return std::tuple(n);
    }
  }();
  enqueue(kernels[0], exec, runtime::launch_range::one_d(layout.groups * layout.local, layout.local),
          std::tuple_cat(sizes, item_loop(layout), std::tuple(identity), launch_values(launch, args...),
                         std::tuple(partials)));
  const std::size_t final_local = work_group_size(kernels[1]);
  enqueue(kernels[1], exec, runtime::launch_range::one_d(final_local, final_local),
          std::tuple(static_cast<std::int64_t>(layout.groups), identity, partials, result.device_buffer().handle()()));
}

/// Partial results of a row or column reduction: a workspace when outputs have several parts;
/// with one part, stage 1 writes the finished results and never touches it (the result buffer
/// stands in for the parameter).
template <typename V>
struct partial_results {
  opencl_executor::workspace_lease workspace;
  cl_mem buffer;
  std::int64_t finish;
  partial_results(const opencl_executor& exec, std::size_t outputs, std::size_t parts, const array<V>& result)
      : workspace(parts > 1 ? exec.workspace(outputs * parts * sizeof(V)) : opencl_executor::workspace_lease{}),
        buffer(parts > 1 ? workspace.buffer->handle()() : result.device_buffer().handle()()), finish(parts == 1) {}
};

/// Stage 2 of row and column reductions, when outputs have several parts.
template <typename Op, typename Finalize, typename V>
void finish_per_output(const opencl_executor& exec, std::size_t outputs, const reduction_layout& layout,
                       std::size_t output_step, std::size_t part_step, V identity, cl_mem partials,
                       const array<V>& result, std::int64_t result_stride) {
  using key = std::tuple<final_per_output_kernel, Op, Finalize, V>;
  const auto& k = cached_kernel<key>(exec, "final pass", typeid(Finalize), trace_final_per_output<Op, Finalize, V>);
  const std::size_t local = work_group_size(k);
  const std::size_t lanes = std::min(layout.final_lanes, local);
  const std::size_t per_group = local / lanes;
  enqueue(k, exec, runtime::launch_range::one_d(runtime::round_up(outputs, per_group) / per_group * local, local),
          std::tuple(static_cast<std::int64_t>(outputs), static_cast<std::int64_t>(layout.parts),
                     static_cast<std::int64_t>(output_step), static_cast<std::int64_t>(part_step),
                     static_cast<std::int64_t>(lanes), static_cast<std::int64_t>(part_step == 1),
                     identity, partials, result.device_buffer().handle()(), result_stride));
}

/// A row reduction of one column (ByRow) or a column reduction of one row: a map.
template <bool ByRow, typename Fn, typename Op, typename Finalize, typename V, typename... Args>
void reduce_single_terms(const opencl_executor& exec, V identity, array<V>& result, std::size_t outputs,
                         std::int64_t result_stride, const host_launch& launch, Args&... args) {
  using key = std::tuple<single_term_kernel, std::bool_constant<ByRow>, Fn, Op, Finalize, V, argument_t<Args>...>;
  const auto& k = cached_kernel<key>(exec, ByRow ? "run_kernel_row_reduction" : "run_kernel_col_reduction",
                                     typeid(Fn), trace_single_terms<ByRow, Fn, Op, Finalize, V, Args...>);
  const auto layout = single_term_layout(layout_device(exec.ctx().device()), work_group_size(k), outputs);
  enqueue(k, exec, runtime::launch_range::one_d(layout.groups * layout.local, layout.local),
          std::tuple_cat(std::tuple(static_cast<std::int64_t>(outputs), static_cast<std::int64_t>(layout.rows_per_item),
                                    static_cast<std::int64_t>(layout.first_row_step),
                                    static_cast<std::int64_t>(layout.row_step), identity),
                         launch_values(launch, args...), std::tuple(result.device_buffer().handle()(), result_stride)));
}

template <typename Fn, typename Op, typename Finalize, typename V, typename... Args>
void row_reduce(const opencl_executor& exec, V identity, array<V>& result, std::int64_t stride, dim<2> size,
                const host_launch& launch, Args&... args) {
  check_arguments(exec, launch, args..., result);
  const std::size_t rows = size[0], cols = size[1];
  if (rows == 0) return;
  if (cols == 1)
    return reduce_single_terms<true, Fn, Op, Finalize>(exec, identity, result, rows, stride, launch, args...);
  using row_key = std::tuple<row_reduction_kernel, Fn, Op, Finalize, V, argument_t<Args>...>;
  const auto& k = cached_kernel<row_key>(exec, "run_kernel_row_reduction", typeid(Fn),
                                         trace_row_partials<Fn, Op, Finalize, V, Args...>);
  const auto layout = row_reduction_layout(layout_device(exec.ctx().device()), work_group_size(k), rows, cols);
  const partial_results<V> partials(exec, rows, layout.parts, result);
  const auto common = std::tuple(static_cast<std::int64_t>(rows), static_cast<std::int64_t>(cols));
  const auto outputs = std::tuple(partials.buffer, result.device_buffer().handle()(), stride, partials.finish);
  const auto range = runtime::launch_range::two_d(layout.groups * layout.local, layout.parts, layout.local, 1);
  if (layout.lanes == 1) {  // one item per row: no tree
    using block_key = std::tuple<row_block_kernel, Fn, Op, Finalize, V, argument_t<Args>...>;
    const auto& blocks = cached_kernel<block_key>(exec, "run_kernel_row_reduction", typeid(Fn),
                                                  trace_row_blocks<Fn, Op, Finalize, V, Args...>);
    enqueue(blocks, exec, range,
            std::tuple_cat(common,
                           std::tuple(static_cast<std::int64_t>(layout.parts),
                                      static_cast<std::int64_t>(layout.part_length),
                                      static_cast<std::int64_t>(layout.rows_per_item),
                                      static_cast<std::int64_t>(layout.first_row_step),
                                      static_cast<std::int64_t>(layout.row_step), identity),
                           launch_values(launch, args...), outputs));
  } else {
    enqueue(k, exec, range,
            std::tuple_cat(common,
                           std::tuple(static_cast<std::int64_t>(layout.lanes), static_cast<std::int64_t>(layout.parts),
                                      static_cast<std::int64_t>(layout.part_length)),
                           item_loop(layout), std::tuple(identity), launch_values(launch, args...), outputs));
  }
  if (layout.parts > 1)
    finish_per_output<Op, Finalize>(exec, rows, layout, layout.parts, 1, identity, partials.buffer, result, stride);
}

template <typename Fn, typename Op, typename Finalize, typename V, typename... Args>
void col_reduce(const opencl_executor& exec, V identity, array<V>& result, dim<2> size, const host_launch& launch,
                Args&... args) {
  check_arguments(exec, launch, args..., result);
  const std::size_t rows = size[0], cols = size[1];
  if (cols == 0) return;
  if (rows == 1)
    return reduce_single_terms<false, Fn, Op, Finalize>(exec, identity, result, cols, 1, launch, args...);
  // The column kernel has its columns per group in its text: the layout picks them for the
  // largest group the device runs, and again for a smaller one if that kernel runs less.
  using col_key = std::tuple<col_reduction_kernel, Fn, Op, Finalize, V, argument_t<Args>...>;
  const runtime::device_info& device = layout_device(exec.ctx().device());
  auto col_kernel = [&](std::size_t columns_per_group) -> const runtime::kernel& {
    return cached_kernels<col_key, 1>(exec, columns_per_group, [&] {
      return std::array{trace_kernel(
          exec.ctx(),
          program_name(
              ("run_kernel_col_reduction (" + std::to_string(columns_per_group) + " columns per group)").c_str(),
              typeid(Fn)),
          [&](const std::shared_ptr<kernel_trace>& t) {
            trace_col_partials<Fn, Op, Finalize, V, Args...>(t, columns_per_group);
          })};
    })[0];
  };
  std::size_t local = std::bit_floor(std::clamp<std::size_t>(exec.ctx().device().max_work_group_size, 1,
                                                             max_work_group_size));
  reduction_layout layout;
  const runtime::kernel* k = nullptr;  // none for a layout of column blocks
  do {
    if (k != nullptr) local = work_group_size(*k);
    layout = col_reduction_layout(device, local, rows, cols);
    k = layout.columns_per_item > 1 ? nullptr : &col_kernel(layout.lanes);
  } while (k != nullptr && work_group_size(*k) < local);
  const partial_results<V> partials(exec, cols, layout.parts, result);
  const auto common = std::tuple(static_cast<std::int64_t>(rows), static_cast<std::int64_t>(cols));
  const auto outputs = std::tuple(partials.buffer, result.device_buffer().handle()(), partials.finish);
  const auto range = runtime::launch_range::two_d(layout.groups * layout.local, layout.parts, layout.local, 1);
  if (layout.column_arrays) {  // a CPU device's column blocks: an array of accumulators per item
    const auto& blocks = cached_kernel<std::tuple<col_block_array_kernel, Fn, Op, Finalize, V, argument_t<Args>...>>(
        exec, "run_kernel_col_reduction", typeid(Fn), trace_col_block_arrays<Fn, Op, Finalize, V, Args...>);
    enqueue(blocks, exec, range,
            std::tuple_cat(common,
                           std::tuple(static_cast<std::int64_t>(layout.parts),
                                      static_cast<std::int64_t>(layout.part_length),
                                      static_cast<std::int64_t>(layout.first_col_step),
                                      static_cast<std::int64_t>(layout.columns_per_item), identity),
                           launch_values(launch, args...), outputs));
  } else if (layout.columns_per_item > 1) {  // column blocks: several columns per item, no tree
    const auto block_arguments =
        std::tuple_cat(common,
                       std::tuple(static_cast<std::int64_t>(layout.parts), static_cast<std::int64_t>(layout.part_length),
                                  static_cast<std::int64_t>(layout.first_col_step),
                                  static_cast<std::int64_t>(layout.col_step), identity),
                       launch_values(launch, args...), outputs);
    auto launch_blocks = [&]<std::size_t Columns>(std::integral_constant<std::size_t, Columns>) {
      using block_key = std::tuple<col_block_kernel, std::integral_constant<std::size_t, Columns>, Fn, Op, Finalize, V,
                                   argument_t<Args>...>;
      const auto& blocks = cached_kernel<block_key>(exec, "run_kernel_col_reduction", typeid(Fn),
                                                    trace_col_blocks<Columns, Fn, Op,
                                                                     Finalize, V, Args...>);
      enqueue(blocks, exec, range, block_arguments);
    };
    launch_blocks(std::integral_constant<std::size_t, gpu_columns_per_item>{});
  } else {
    enqueue(*k, exec, range,
            std::tuple_cat(common,
                           std::tuple(static_cast<std::int64_t>(layout.parts),
                                      static_cast<std::int64_t>(layout.part_length),
                                      static_cast<std::int64_t>(layout.part_extent)),
                           item_loop(layout), std::tuple(identity), launch_values(launch, args...), outputs,
                           std::tuple(static_cast<std::int64_t>(layout.col_blocks))));
  }
  if (layout.parts > 1)
    finish_per_output<Op, Finalize>(exec, cols, layout, 1, cols, identity, partials.buffer, result, 1);
}

template <typename Fn, typename Op, typename Finalize>
constexpr void check_reduction_functions() {
  check_kernel_function<Fn>();
  check_kernel_function<Op>();
  check_kernel_function<Finalize>();
}

}  // namespace detail

/// result[0] = finalize(op-combination of fn(i, args...) over i in [0, size)).
template <typename Exec, typename Fn, typename Op, typename Finalize, typename V, typename... Args>
void run_kernel_reduction(const std::shared_ptr<Exec>& exec, Fn, Op, Finalize, std::type_identity_t<V> identity,
                          array<V>& result, std::size_t size, Args&&... args) {
  detail::check_reduction_value<V>();
  detail::check_reduction_functions<Fn, Op, Finalize>();
  const host_launch launch{"run_kernel_reduction"};
  const std::int64_t n = detail::checked_extent(launch.operation, size);
  detail::dispatch(exec, launch.operation, [&](const auto& e) {
    detail::reduce<false, Fn, Op, Finalize>(e, identity, result, n, 0, launch, args...);
  });
}

/// result[0] = finalize(op-combination of fn(row, col, args...) over all of size).
template <typename Exec, typename Fn, typename Op, typename Finalize, typename V, typename... Args>
void run_kernel_reduction(const std::shared_ptr<Exec>& exec, Fn, Op, Finalize, std::type_identity_t<V> identity,
                          array<V>& result, dim<2> size, Args&&... args) {
  detail::check_reduction_value<V>();
  detail::check_reduction_functions<Fn, Op, Finalize>();
  const host_launch launch{"run_kernel_reduction"};
  const std::int64_t n = detail::checked_elements(launch.operation, size);
  detail::dispatch(exec, launch.operation, [&](const auto& e) {
    detail::reduce<true, Fn, Op, Finalize>(e, identity, result, n, static_cast<std::int64_t>(size[1]), launch,
                                           args...);
  });
}

/// result[row * result_stride] = finalize(op-combination over the row's columns), per row.
template <typename Exec, typename Fn, typename Op, typename Finalize, typename V, typename... Args>
void run_kernel_row_reduction(const std::shared_ptr<Exec>& exec, Fn, Op, Finalize, std::type_identity_t<V> identity,
                              array<V>& result, std::size_t result_stride, dim<2> size, Args&&... args) {
  detail::check_reduction_value<V>();
  detail::check_reduction_functions<Fn, Op, Finalize>();
  const host_launch launch{"run_kernel_row_reduction"};
  detail::checked_elements(launch.operation, size);
  const std::int64_t stride = detail::checked_extent(launch.operation, result_stride);
  if (stride < 1) throw argument_error("run_kernel_row_reduction: result stride 0");
  if (size[0] > 0)
    detail::check_result(launch.operation, result.size(),
                         static_cast<std::size_t>(runtime::checked_sum(
                             runtime::checked_product(static_cast<std::int64_t>(size[0]) - 1, stride,
                                                      "(rows - 1) * result stride", launch.operation),
                             1, "the result's extent", launch.operation)));
  detail::dispatch(exec, launch.operation, [&](const auto& e) {
    detail::row_reduce<Fn, Op, Finalize>(e, identity, result, stride, size, launch, args...);
  });
}

/// result[col] = finalize(op-combination over the column's rows), per column.
template <typename Exec, typename Fn, typename Op, typename Finalize, typename V, typename... Args>
void run_kernel_col_reduction(const std::shared_ptr<Exec>& exec, Fn, Op, Finalize, std::type_identity_t<V> identity,
                              array<V>& result, dim<2> size, Args&&... args) {
  detail::check_reduction_value<V>();
  detail::check_reduction_functions<Fn, Op, Finalize>();
  const host_launch launch{"run_kernel_col_reduction"};
  detail::checked_elements(launch.operation, size);
  detail::check_result(launch.operation, result.size(), size[1]);
  detail::dispatch(exec, launch.operation, [&](const auto& e) {
    detail::col_reduce<Fn, Op, Finalize>(e, identity, result, size, launch, args...);
  });
}

}  // namespace tessera::unified
