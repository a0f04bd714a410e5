#pragma once
// How each kind of run_kernel argument reaches the kernel lambda: on the host as a pointer,
// a dense_accessor or a value; traced, as kernel parameters and their symbolic accessors;
// at launch, as the values of those parameters. One specialization of kernel_argument per kind.
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>

#include <tessera/runtime/error.hpp>
#include <tessera/runtime/opencl.hpp>
#include <tessera/unified/accessors.hpp>
#include <tessera/unified/array.hpp>
#include <tessera/unified/dense.hpp>
#include <tessera/unified/executor.hpp>
#include <tessera/unified/kernel_trace.hpp>
#include <tessera/unified/symbolic.hpp>

namespace tessera::unified {

/// run_kernel_solver: this dense argument has the kernel's default stride (one stride
/// parameter serves all of them); checked when the kernel runs.
template <typename Dense>
struct default_stride_argument {
  Dense* matrix;
};
template <typename T>
default_stride_argument<dense<T>> default_stride(dense<T>& m) {
  return {&m};
}
template <typename T>
default_stride_argument<const dense<T>> default_stride(const dense<T>& m) {
  return {&m};
}

/// run_kernel_solver: this 1 x n dense argument is indexed by column alone, as beta[col].
template <typename Dense>
struct row_vector_argument {
  Dense* matrix;
};
template <typename T>
row_vector_argument<dense<T>> row_vector(dense<T>& m) {
  return {&m};
}
template <typename T>
row_vector_argument<const dense<T>> row_vector(const dense<T>& m) {
  return {&m};
}

/// What every argument may need to know about its launch.
struct host_launch {
  const char* operation;              // "run_kernel", ... for messages
  std::int64_t default_stride = -1;   // run_kernel_solver's, else -1
};
struct traced_launch {
  std::string default_stride;  // the stride parameter's name; empty outside run_kernel_solver
};

template <typename A>
struct kernel_argument {
  static_assert(detail::always_false<A>,
                "tessera::unified: unsupported kernel argument. Pass array<T>, dense<T>, default_stride(dense), "
                "row_vector(dense) or a scalar (float, double, an integer; not bool)");
};

namespace detail {
void check_executor(const host_launch& launch, const executor& exec, const executor& owner, std::size_t position);

template <typename T, bool Const>
using host_pointer = std::conditional_t<Const, const T*, T*>;

template <kernel_element T, bool Const>
struct array_argument {
  using array_type = std::conditional_t<Const, const array<T>, array<T>>;
  static host_pointer<T, Const> host(array_type& a, const host_launch&) { return a.host_data(); }
  static traced_pointer<T, Const> symbolic(const std::shared_ptr<kernel_trace>& t, const traced_launch&) {
    using storage = typename element_traits<T>::storage_type;
    return {t, t->pointer_parameter(t->type_name<storage>(), Const, codegen::address_space::global, "p"), 0};
  }
  static std::tuple<cl_mem> values(const array<T>& a, const host_launch&) { return {a.device_buffer().handle()()}; }
  static void check(const array<T>& a, const executor& exec, std::size_t position, const host_launch& launch) {
    check_executor(launch, exec, *a.exec(), position);
  }
};

template <kernel_value T, bool Const>
struct dense_argument {
  using dense_type = std::conditional_t<Const, const dense<T>, dense<T>>;
  static dense_accessor<std::conditional_t<Const, const T, T>> host(dense_type& m, const host_launch&) {
    return {m.values().host_data(), static_cast<std::int64_t>(m.stride())};
  }
  static traced_dense<T, Const> symbolic(const std::shared_ptr<kernel_trace>& t, const traced_launch&) {
    std::string pointer = t->pointer_parameter(t->type_name<T>(), Const, codegen::address_space::global, "p");
    return {t, std::move(pointer), t->scalar_parameter("long", "stride")};
  }
  static std::tuple<cl_mem, std::int64_t> values(const dense<T>& m, const host_launch&) {
    return {m.values().device_buffer().handle()(), static_cast<std::int64_t>(m.stride())};
  }
  static void check(const dense<T>& m, const executor& exec, std::size_t position, const host_launch& launch) {
    check_executor(launch, exec, *m.exec(), position);
  }
};

void check_default_stride(const host_launch& launch, std::size_t stride, std::size_t position);
void check_row_vector(const host_launch& launch, std::size_t rows, std::size_t position);
}  // namespace detail

template <kernel_element T>
struct kernel_argument<array<T>> : detail::array_argument<T, false> {};
template <kernel_element T>
struct kernel_argument<const array<T>> : detail::array_argument<T, true> {};
template <kernel_value T>
struct kernel_argument<dense<T>> : detail::dense_argument<T, false> {};
template <kernel_value T>
struct kernel_argument<const dense<T>> : detail::dense_argument<T, true> {};

template <typename Dense>
struct kernel_argument<default_stride_argument<Dense>> {
  using T = typename std::remove_const_t<Dense>::value_type;
  static constexpr bool is_const = std::is_const_v<Dense>;
  static dense_accessor<std::conditional_t<is_const, const T, T>> host(const default_stride_argument<Dense>& a,
                                                                       const host_launch& launch) {
    return {a.matrix->values().host_data(), launch.default_stride};
  }
  static traced_dense<T, is_const> symbolic(const std::shared_ptr<kernel_trace>& t, const traced_launch& launch) {
    if (launch.default_stride.empty()) t->fail("default_stride(...) is an argument of run_kernel_solver only");
    return {t, t->pointer_parameter(t->type_name<T>(), is_const, codegen::address_space::global, "p"),
            launch.default_stride};
  }
  static std::tuple<cl_mem> values(const default_stride_argument<Dense>& a, const host_launch&) {
    return {a.matrix->values().device_buffer().handle()()};
  }
  static void check(const default_stride_argument<Dense>& a, const executor& exec, std::size_t position,
                    const host_launch& launch) {
    detail::check_executor(launch, exec, *a.matrix->exec(), position);
    detail::check_default_stride(launch, a.matrix->stride(), position);
  }
};

template <typename Dense>
struct kernel_argument<row_vector_argument<Dense>> {
  using T = typename std::remove_const_t<Dense>::value_type;
  static constexpr bool is_const = std::is_const_v<Dense>;
  static detail::host_pointer<T, is_const> host(const row_vector_argument<Dense>& a, const host_launch&) {
    return a.matrix->values().host_data();
  }
  static traced_pointer<T, is_const> symbolic(const std::shared_ptr<kernel_trace>& t, const traced_launch&) {
    return {t, t->pointer_parameter(t->type_name<T>(), is_const, codegen::address_space::global, "p"), 0};
  }
  static std::tuple<cl_mem> values(const row_vector_argument<Dense>& a, const host_launch&) {
    return {a.matrix->values().device_buffer().handle()()};
  }
  static void check(const row_vector_argument<Dense>& a, const executor& exec, std::size_t position,
                    const host_launch& launch) {
    detail::check_executor(launch, exec, *a.matrix->exec(), position);
    detail::check_row_vector(launch, a.matrix->rows(), position);
  }
};

template <kernel_value T>
  requires(!std::is_same_v<T, bool>)
struct kernel_argument<T> {
  static T host(T value, const host_launch&) { return value; }
  static unified::traced<T> symbolic(const std::shared_ptr<kernel_trace>& t, const traced_launch&) {
    return {t, t->scalar_parameter(t->type_name<T>(), "a"), 0};
  }
  static std::tuple<T> values(T value, const host_launch&) { return {value}; }
  static void check(T, const executor&, std::size_t, const host_launch&) {}
};

namespace detail {
template <typename A>
inline constexpr bool is_marker = false;
template <typename D>
inline constexpr bool is_marker<default_stride_argument<D>> = true;
template <typename D>
inline constexpr bool is_marker<row_vector_argument<D>> = true;

/// The kernel_argument key of a forwarded argument: scalars and markers by value, arrays and
/// dense matrices with their constness (a const array becomes a `global const` pointer).
template <typename Arg>
using argument_t = std::conditional_t<kernel_value<std::remove_cvref_t<Arg>> || is_marker<std::remove_cvref_t<Arg>>,
                                      std::remove_cvref_t<Arg>, std::remove_reference_t<Arg>>;

template <typename... Args>
void check_arguments(const executor& exec, const host_launch& launch, Args&... args) {
  std::size_t position = 0;
  (kernel_argument<argument_t<Args>>::check(args, exec, ++position, launch), ...);
}
template <typename... Args>
auto host_arguments(const host_launch& launch, Args&... args) {
  return std::tuple{kernel_argument<argument_t<Args>>::host(args, launch)...};
}
template <typename... Args>
auto traced_arguments(const std::shared_ptr<kernel_trace>& t, const traced_launch& launch) {
  return std::tuple{kernel_argument<argument_t<Args>>::symbolic(t, launch)...};
}
template <typename... Args>
auto launch_values(const host_launch& launch, Args&... args) {
  return std::tuple_cat(kernel_argument<argument_t<Args>>::values(args, launch)...);
}
}  // namespace detail

}  // namespace tessera::unified
