// Walks codegen's math function table (codegen/math_functions.hpp): every function, in every
// front door that offers it (the kernel generator, unified kernels on the OpenCL and the OpenMP
// executor, Tile), in float and double, against the table's host form on fresh random data drawn
// from the function's domain, at odd sizes and empty. A line added to the table is checked here
// with nothing else to write: the lists below are expanded from the table itself.
#include <tessera/codegen/math_functions.hpp>
#include <tessera/kernel_generator/kernel_generator.hpp>
#include <tessera/tile/tile.hpp>
#include <tessera/unified/unified.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "support/test_data.hpp"

namespace {

namespace codegen = tessera::codegen;
namespace kg = tessera::kernel_generator;
namespace unified = tessera::unified;
namespace tile = tessera::tile;
using tessera::testing::random_values;

// Each front door's function for each line of the table, by the line's type.
template <typename F>
struct front_doors;
#define TESSERA_TEST_FRONT_DOORS(name_, ...)                      \
  template <>                                                     \
  struct front_doors<codegen::math::name_> {                      \
    template <typename... A>                                      \
    static auto kernel_generator(const A&... a) {                 \
      return kg::name_(a...);                                     \
    }                                                             \
    template <typename... A>                                      \
    static auto unified_kernel(A&&... a) {                        \
      return unified::name_(std::forward<A>(a)...);               \
    }                                                             \
  };
TESSERA_UNARY_MATH_FUNCTIONS(TESSERA_TEST_FRONT_DOORS)
TESSERA_BINARY_MATH_FUNCTIONS(TESSERA_TEST_FRONT_DOORS)
#undef TESSERA_TEST_FRONT_DOORS

#define TESSERA_TEST_TYPE_OF_LINE(name_, ...) codegen::math::name_,
using table = std::tuple<TESSERA_UNARY_MATH_FUNCTIONS(TESSERA_TEST_TYPE_OF_LINE)
                             TESSERA_BINARY_MATH_FUNCTIONS(TESSERA_TEST_TYPE_OF_LINE) void>;
#undef TESSERA_TEST_TYPE_OF_LINE
constexpr std::size_t table_size = std::tuple_size_v<table> - 1;  // without the closing void

/// Calls check.template operator()<F>() for every line F of the table.
template <typename Check>
void for_each_function(Check&& check) {
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    (check.template operator()<std::tuple_element_t<K, table>>(), ...);
  }(std::make_index_sequence<table_size>{});
}

/// OpenCL allows builtins a few ulps (erf and pow 16, lgamma unspecified): 64 ulps of
/// max(1, |result|) covers every builtin on the devices we run on and still fails on a wrong
/// function (a wrong function is wrong by far more).
template <typename T>
double tolerance() {
  return 64 * static_cast<double>(std::numeric_limits<T>::epsilon());
}

template <typename T>
bool lacks_precision() {
  return std::is_same_v<T, double> && !tessera::runtime::context::get().device().has_fp64;
}

/// Arguments of F: one vector per argument, n values each from the argument's domain.
template <typename F, typename T>
std::vector<std::vector<T>> arguments_of(std::size_t n) {
  std::vector<std::vector<T>> out{random_values<T>(n, T(F::x_domain.low), T(F::x_domain.high))};
  if constexpr (F::arity == 2) out.push_back(random_values<T>(n, T(F::y_domain.low), T(F::y_domain.high)));
  return out;
}

/// F on the host at element k, in T.
template <typename F, typename T>
T expected_at(const std::vector<std::vector<T>>& args, std::size_t k) {
  if constexpr (F::arity == 1) return F::host(args[0][k]);
  else return F::host(args[0][k], args[1][k]);
}

template <typename F, typename T, typename Got>
void expect_matches_host(const std::vector<std::vector<T>>& args, const Got& got, const std::string& where) {
  ASSERT_EQ(got.size(), args[0].size()) << where;
  int reported = 0;
  for (std::size_t k = 0; k < got.size(); ++k) {
    const double expected = expected_at<F, T>(args, k), value = static_cast<double>(got[k]);
    if (!(std::abs(value - expected) <= tolerance<T>() * std::max(1.0, std::abs(expected)))) {
      ADD_FAILURE() << where << ": " << F::name << " at " << args[0][k] << (F::arity == 2 ? ", " : "")
                    << (F::arity == 2 ? std::to_string(args[1][k]) : "") << " is " << value << ", the host gives "
                    << expected;
      if (++reported == 3) return;
    }
  }
}

const std::vector<std::size_t> sizes{1, 97, 0};

template <typename T>
void check_kernel_generator() {
  for_each_function([]<typename F>() {
    for (const std::size_t rows : sizes) {
      const std::size_t cols = rows == 0 ? 3 : 5;  // 1 x 5, 97 x 5, 0 x 3
      const auto args = arguments_of<F, T>(rows * cols);
      std::vector<tessera::runtime::matrix<T>> operands;
      for (const auto& values : args)
        operands.emplace_back(values, static_cast<tessera::runtime::index_t>(rows),
                              static_cast<tessera::runtime::index_t>(cols));
      tessera::runtime::matrix<T> result;
      if constexpr (F::arity == 1) result = front_doors<F>::kernel_generator(operands[0]);
      else result = front_doors<F>::kernel_generator(operands[0], operands[1]);
      expect_matches_host<F, T>(args, result.to_host(), fmt::format("kernel generator, {} x {}", rows, cols));
    }
  });
}

template <typename T, typename Executor>
void check_unified(const std::shared_ptr<const Executor>& exec, const char* backend) {
  for_each_function([&]<typename F>() {
    for (const std::size_t n : sizes) {
      const auto args = arguments_of<F, T>(n);
      unified::array<T> out(exec, n);
      const unified::array<T> x(exec, std::span<const T>(args[0]));
      if constexpr (F::arity == 1) {
        unified::run_kernel(
            exec, [](auto i, auto x, auto out) { out[i] = front_doors<F>::unified_kernel(x[i]); }, n, x, out);
      } else {
        const unified::array<T> y(exec, std::span<const T>(args[1]));
        unified::run_kernel(
            exec, [](auto i, auto x, auto y, auto out) { out[i] = front_doors<F>::unified_kernel(x[i], y[i]); }, n,
            x, y, out);
      }
      expect_matches_host<F, T>(args, out.to_host(), fmt::format("unified kernels on {}, n = {}", backend, n));
    }
  });
}

/// Tile builds a program per function and shape (its kernels know the sizes): an odd size and
/// the empty one (size 1 is the others' business; a build each is a test's time).
const std::vector<std::size_t> tile_sizes{97, 0};

template <typename T>
void check_tile() {
  for (const codegen::math_function& f : codegen::math_functions()) {
    const std::string source = f.arity == 1 ? fmt::format("function (X[N]) -> (O) {{ O = {}(X); }}", f.name)
                                            : fmt::format("function (X[N], Y[N]) -> (O) {{ O = {}(X, Y); }}", f.name);
    const tile::function program = tile::compile(source);
    for (const std::size_t n : tile_sizes) {
      std::vector<std::vector<T>> args{random_values<T>(n, T(f.x.low), T(f.x.high))};
      if (f.arity == 2) args.push_back(random_values<T>(n, T(f.y.low), T(f.y.high)));
      std::vector<tile::tensor<T>> inputs;
      for (const auto& values : args) inputs.emplace_back(std::vector<std::int64_t>{static_cast<std::int64_t>(n)}, values);
      const std::vector<T> got = program.run<T>(inputs).at(0).to_host();
      ASSERT_EQ(got.size(), n) << f.name;
      int reported = 0;
      for (std::size_t k = 0; k < n; ++k) {
        const double expected = f.host(static_cast<double>(args[0][k]), f.arity == 2 ? static_cast<double>(args[1][k]) : 0.0);
        if (!(std::abs(static_cast<double>(got[k]) - expected) <= tolerance<T>() * std::max(1.0, std::abs(expected)))) {
          ADD_FAILURE() << "Tile, n = " << n << ": " << f.name << " at " << args[0][k] << " is " << got[k]
                        << ", the host gives " << expected;
          if (++reported == 3) break;
        }
      }
    }
  }
}

}  // namespace

TEST(MathFunctionTable, TheTypesAndTheRuntimeTableAreTheSameLines) {
  ASSERT_EQ(codegen::math_functions().size(), table_size);
  std::size_t k = 0;
  for_each_function([&]<typename F>() {
    const codegen::math_function& line = codegen::math_functions()[k++];
    EXPECT_EQ(line.name, F::name);
    EXPECT_EQ(line.arity, F::arity);
    EXPECT_EQ(line.opencl, F::opencl);
    EXPECT_EQ(codegen::find_math_function(F::name), &line);
  });
  EXPECT_EQ(codegen::find_math_function("no_such_function"), nullptr);
}

TEST(MathFunctionTable, EveryFunctionInTheKernelGeneratorMatchesTheHostInFloat) { check_kernel_generator<float>(); }
TEST(MathFunctionTable, EveryFunctionInTheKernelGeneratorMatchesTheHostInDouble) {
  if (lacks_precision<double>()) GTEST_SKIP() << "the device has no fp64";
  check_kernel_generator<double>();
}

TEST(MathFunctionTable, EveryFunctionInUnifiedKernelsOnOpenClMatchesTheHostInFloat) {
  check_unified<float>(unified::opencl_executor::create(), "OpenCL");
}
TEST(MathFunctionTable, EveryFunctionInUnifiedKernelsOnOpenClMatchesTheHostInDouble) {
  if (lacks_precision<double>()) GTEST_SKIP() << "the device has no fp64";
  check_unified<double>(unified::opencl_executor::create(), "OpenCL");
}
TEST(MathFunctionTable, EveryFunctionInUnifiedKernelsOnOpenMpMatchesTheHost) {
  check_unified<float>(unified::omp_executor::create(), "OpenMP");
  check_unified<double>(unified::omp_executor::create(), "OpenMP");
}

TEST(MathFunctionTable, EveryFunctionInTileMatchesTheHostInFloat) { check_tile<float>(); }
TEST(MathFunctionTable, EveryFunctionInTileMatchesTheHostInDouble) {
  if (lacks_precision<double>()) GTEST_SKIP() << "the device has no fp64";
  check_tile<double>();
}
