#pragma once
// run_kernel and run_kernel_solver: one generic lambda, run natively by the OpenMP executor
// and traced into OpenCL C by the OpenCL executor.
//
//   run_kernel(exec, [](auto i, auto alpha, auto x) { x[i] *= alpha[0]; }, x.size(), alpha, x);
//   run_kernel(exec, [](auto row, auto col, auto m) { m(row, col) = 0; }, dim<2>{rows, cols}, m);
//
// The lambda must not capture (its captures would be frozen into the traced kernel): data
// reaches it only through the arguments. exec is a shared_ptr to omp_executor,
// opencl_executor or executor (then the dynamic type decides). On the OpenCL executor the
// launch is asynchronous on the context's in-order queue; reading results (to_host) waits.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include <omp.h>

#include <tessera/runtime/error.hpp>
#include <tessera/runtime/kernel.hpp>
#include <tessera/unified/arguments.hpp>
#include <tessera/unified/control_flow.hpp>
#include <tessera/unified/dim.hpp>
#include <tessera/unified/executor.hpp>
#include <tessera/unified/kernel_cache.hpp>
#include <tessera/unified/launch_checks.hpp>
#include <tessera/unified/launch_recorder.hpp>
#include <tessera/unified/math.hpp>
#include <tessera/unified/stopping_status.hpp>

namespace tessera::unified {

namespace detail {

/// Below this many elements an OpenMP kernel runs on the calling thread: waking a team costs
/// more than the work (and much more on a machine whose cores are busy).
inline constexpr std::int64_t min_parallel_elements = 4096;

template <typename Fn>
constexpr void check_kernel_function() {
  static_assert(std::is_empty_v<Fn> && std::is_default_constructible_v<Fn>,
                "tessera::unified: kernel functions must not capture: a traced kernel is built once per lambda "
                "type, so captured values would be frozen into it. Pass data as run_kernel arguments.");
}

/// Calls visit with exec as omp_executor or opencl_executor.
template <typename Exec, typename Visit>
decltype(auto) dispatch(const std::shared_ptr<Exec>& exec, const char* operation, Visit&& visit) {
  if (!exec) throw argument_error(std::string(operation) + ": the executor is null");
  using plain = std::remove_const_t<Exec>;
  if constexpr (std::is_base_of_v<omp_executor, plain>) {
    return visit(static_cast<const omp_executor&>(*exec));
  } else if constexpr (std::is_base_of_v<opencl_executor, plain>) {
    return visit(static_cast<const opencl_executor&>(*exec));
  } else {
    static_assert(std::is_base_of_v<executor, plain>, "tessera::unified: exec must point to an executor");
    if (auto* omp = dynamic_cast<const omp_executor*>(exec.get())) return visit(*omp);
    if (auto* opencl = dynamic_cast<const opencl_executor*>(exec.get())) return visit(*opencl);
    throw argument_error(std::string(operation) + ": unknown executor " + exec->description());
  }
}


template <typename... Values>
void enqueue(const runtime::kernel& k, const opencl_executor& exec, const runtime::launch_range& range,
             const std::tuple<Values...>& values) {
  std::apply([&](const auto&... v) { record_launch(k.launch(exec.ctx(), range, v...)); }, values);
}

// Kinds of traced kernels: part of each cache key.
struct one_d_kernel;
struct two_d_kernel;

// --- OpenMP ---------------------------------------------------------------------------

/// This thread's share of [0, n). Called inside the parallel region with the arguments by
/// value, so each thread holds its own copies: the compiler then knows the loop's stores
/// cannot change them, keeps them in registers and vectorizes the loop.
template <typename Fn, typename... A>
void rows_of_thread(Fn fn, std::int64_t n, A... a) {
#pragma omp for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) fn(i, a...);
}

template <typename Fn, typename... Args>
void run_1d(const omp_executor& exec, Fn fn, std::size_t size, Args&... args) {
  const host_launch launch{"run_kernel"};
  const std::int64_t n = checked_extent(launch.operation, size);
  check_arguments(exec, launch, args...);
  const auto arguments = host_arguments(launch, args...);
#pragma omp parallel num_threads(exec.num_threads()) if (n >= min_parallel_elements)
  std::apply([&](auto... a) { rows_of_thread(fn, n, a...); }, arguments);
}

/// fn(row, col) for col in [base, base + sizeof...(K)), unrolled.
template <typename Fn, std::size_t... K, typename... A>
inline void columns(Fn& fn, [[maybe_unused]] std::int64_t row, [[maybe_unused]] std::int64_t base,
                    std::index_sequence<K...>, [[maybe_unused]] A... a) {
  (fn(row, base + static_cast<std::int64_t>(K), a...), ...);
}

/// Rows in parallel (this thread's share); each row's columns in unrolled blocks of four,
/// then the Remainder. Arguments by value, as in rows_of_thread.
template <std::size_t Remainder, typename Fn, typename... A>
void rows_in_blocks(Fn fn, std::int64_t rows, std::int64_t cols, A... a) {
  constexpr std::int64_t block = 4;
  const std::int64_t rounded = cols - static_cast<std::int64_t>(Remainder);
#pragma omp for schedule(static)
  for (std::int64_t row = 0; row < rows; ++row) {
    for (std::int64_t base = 0; base < rounded; base += block)
      columns(fn, row, base, std::make_index_sequence<block>{}, a...);
    columns(fn, row, rounded, std::make_index_sequence<Remainder>{}, a...);
  }
}

template <typename Fn, typename... A>
void run_rows(int threads, Fn fn, std::int64_t rows, std::int64_t cols, const std::tuple<A...>& arguments) {
#pragma omp parallel num_threads(threads) if (rows * cols >= min_parallel_elements)
  std::apply(
      [&](auto... a) {
        switch (cols % 4) {
          case 0: return rows_in_blocks<0>(fn, rows, cols, a...);
          case 1: return rows_in_blocks<1>(fn, rows, cols, a...);
          case 2: return rows_in_blocks<2>(fn, rows, cols, a...);
          default: return rows_in_blocks<3>(fn, rows, cols, a...);
        }
      },
      arguments);
}

template <bool Solver, typename Fn, typename... Args>
void run_2d(const omp_executor& exec, Fn fn, dim<2> size, const host_launch& launch, Args&... args) {
  checked_elements(launch.operation, size);
  check_arguments(exec, launch, args...);
  run_rows(exec.num_threads(), fn, static_cast<std::int64_t>(size[0]), static_cast<std::int64_t>(size[1]),
           host_arguments(launch, args...));
}

// --- OpenCL ---------------------------------------------------------------------------

template <typename Fn, typename... Args>
void run_1d(const opencl_executor& exec, Fn, std::size_t size, Args&... args) {
  const host_launch launch{"run_kernel"};
  const std::int64_t n = checked_extent(launch.operation, size);
  check_arguments(exec, launch, args...);
  using key = std::tuple<one_d_kernel, Fn, argument_t<Args>...>;
  const auto& kernels = cached_kernels<key, 1>(exec, [&] {
    return std::array{trace_kernel(exec.ctx(), program_name("run_kernel 1-D", typeid(Fn)),
                                   [](const std::shared_ptr<kernel_trace>& t) {
                                     const std::string count = t->scalar_parameter("long", "n");
                                     auto arguments = traced_arguments<Args...>(t, traced_launch{});
                                     const std::string i = t->constant("long", "get_global_id(0)", "i");
                                     t->open_block("if (" + i + " < " + count + ")");
                                     std::apply([&](auto&... a) { Fn{}(traced<std::int64_t>(t, i, 0), a...); },
                                                arguments);
                                     t->close_block();
                                   })};
  });
  const runtime::kernel& k = kernels[0];
  const std::size_t local = work_group_size(k);
  enqueue(k, exec, runtime::launch_range::one_d(runtime::round_up(size, local), local),
          std::tuple_cat(std::tuple<std::int64_t>(n), launch_values(launch, args...)));
}

template <bool Solver, typename Fn, typename... Args>
void run_2d(const opencl_executor& exec, Fn, dim<2> size, const host_launch& launch, Args&... args) {
  checked_elements(launch.operation, size);
  check_arguments(exec, launch, args...);
  using key = std::tuple<two_d_kernel, std::bool_constant<Solver>, Fn, argument_t<Args>...>;
  const auto& kernels = cached_kernels<key, 1>(exec, [&] {
    return std::array{trace_kernel(
        exec.ctx(), program_name(Solver ? "run_kernel_solver" : "run_kernel 2-D", typeid(Fn)),
        [](const std::shared_ptr<kernel_trace>& t) {
          const std::string rows = t->scalar_parameter("long", "rows");
          const std::string cols = t->scalar_parameter("long", "cols");
          traced_launch parameters{Solver ? t->scalar_parameter("long", "default_stride") : ""};
          auto arguments = traced_arguments<Args...>(t, parameters);
          // Dimension 0 runs along a row, so neighbouring work-items touch neighbouring elements.
          const std::string row = t->constant("long", "get_global_id(1)", "row");
          const std::string col = t->constant("long", "get_global_id(0)", "col");
          t->open_block("if (" + row + " < " + rows + " && " + col + " < " + cols + ")");
          std::apply(
              [&](auto&... a) { Fn{}(traced<std::int64_t>(t, row, 0), traced<std::int64_t>(t, col, 0), a...); },
              arguments);
          t->close_block();
        })};
  });
  const runtime::kernel& k = kernels[0];
  const std::size_t rows = size[0], cols = size[1], local = work_group_size(k);
  const std::size_t local_cols = std::min(local, std::bit_ceil(std::max<std::size_t>(cols, 1)));
  const std::size_t local_rows = local / local_cols;
  const auto range = runtime::launch_range::two_d(runtime::round_up(cols, local_cols),
                                                  runtime::round_up(rows, local_rows), local_cols, local_rows);
  const auto sizes = std::tuple<std::int64_t, std::int64_t>(static_cast<std::int64_t>(rows), static_cast<std::int64_t>(cols));
  if constexpr (Solver)
    enqueue(k, exec, range,
            std::tuple_cat(sizes, std::tuple<std::int64_t>(launch.default_stride), launch_values(launch, args...)));
  else
    enqueue(k, exec, range, std::tuple_cat(sizes, launch_values(launch, args...)));
}

}  // namespace detail

/// fn(i, args...) for i in [0, size).
template <typename Exec, typename Fn, typename... Args>
void run_kernel(const std::shared_ptr<Exec>& exec, Fn fn, std::size_t size, Args&&... args) {
  detail::check_kernel_function<Fn>();
  detail::dispatch(exec, "run_kernel", [&](const auto& e) { detail::run_1d(e, fn, size, args...); });
}

/// fn(row, col, args...) for every (row, col) of size (rows in parallel on OpenMP).
template <typename Exec, typename Fn, typename... Args>
void run_kernel(const std::shared_ptr<Exec>& exec, Fn fn, dim<2> size, Args&&... args) {
  detail::check_kernel_function<Fn>();
  detail::dispatch(exec, "run_kernel", [&](const auto& e) {
    detail::run_2d<false>(e, fn, size, host_launch{"run_kernel"}, args...);
  });
}

/// A 2-D kernel whose default_stride(m) arguments share the stride default_stride, and whose
/// row_vector(m) arguments are indexed by column.
template <typename Exec, typename Fn, typename... Args>
void run_kernel_solver(const std::shared_ptr<Exec>& exec, Fn fn, dim<2> size, std::size_t default_stride,
                       Args&&... args) {
  detail::check_kernel_function<Fn>();
  const host_launch launch{"run_kernel_solver", detail::checked_extent("run_kernel_solver", default_stride)};
  detail::dispatch(exec, "run_kernel_solver", [&](const auto& e) { detail::run_2d<true>(e, fn, size, launch, args...); });
}

}  // namespace tessera::unified
