#include <tessera/baselines/gemm_problem.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include <cblas.h>
#include <fmt/format.h>

#include <tessera/runtime/error.hpp>
#include <tessera/runtime/float16.hpp>

namespace tessera::baselines {

std::string_view to_string(gemm_precision precision) {
  switch (precision) {
    case gemm_precision::tf32: return "tf32";
    case gemm_precision::fp16: return "fp16";
    case gemm_precision::bf16: return "bf16";
    default: return "fp32";
  }
}

gemm_precision precision_from(std::string_view text) {
  constexpr gemm_precision every[] = {gemm_precision::fp32, gemm_precision::tf32, gemm_precision::fp16,
                                      gemm_precision::bf16};
  std::string names;
  for (const auto p : every) {
    if (text == to_string(p)) return p;
    names += (names.empty() ? "" : ", ") + std::string(to_string(p));
  }
  throw argument_error(fmt::format("precision '{}': not one of {}", text, names));
}

blas::math_mode math_of(gemm_precision precision) {
  return precision == gemm_precision::tf32 ? blas::math_mode::tf32 : blas::math_mode::exact;
}

blas::operand_type operands_of(gemm_precision precision) {
  return precision == gemm_precision::fp16   ? blas::operand_type::float16
         : precision == gemm_precision::bf16 ? blas::operand_type::bfloat16
                                             : blas::operand_type::float32;
}

std::string gemm_shape::name() const {
  auto text = fmt::format("{}{} {}x{}x{}", trans_a ? 't' : 'n', trans_b ? 't' : 'n', m, n, k);
  return batch > 1 ? fmt::format("{} batch {}", text, batch) : text;
}

std::uint64_t gemm_footprint::largest() const noexcept { return std::max({a, b, c}); }

namespace {

constexpr std::uint64_t limit = std::uint64_t(std::numeric_limits<std::int64_t>::max());

std::uint64_t checked_product(std::uint64_t x, std::uint64_t y, const gemm_shape& shape, const char* what) {
  if (x != 0 && y > limit / x)
    throw argument_error(fmt::format("{}: the size of {} overflows 64 bits", shape.name(), what));
  return x * y;
}

std::uint64_t matrix_bytes(std::int64_t rows, std::int64_t cols, const gemm_shape& shape, std::size_t element_bytes,
                           const char* what) {
  const auto elements = checked_product(checked_product(std::uint64_t(rows), std::uint64_t(cols), shape, what),
                                        std::uint64_t(shape.batch), shape, what);
  return checked_product(elements, element_bytes, shape, what);
}

}  // namespace

gemm_footprint footprint(const gemm_shape& shape, std::size_t element_bytes) {
  if (shape.m < 1 || shape.n < 1 || shape.k < 1 || shape.batch < 1)
    throw argument_error(fmt::format("{}: every size and the batch count must be at least 1", shape.name()));
  // BLAS interfaces (OpenBLAS, cuBLAS) take int sizes.
  constexpr std::int64_t int_max = std::numeric_limits<int>::max();
  if (shape.m > int_max || shape.n > int_max || shape.k > int_max || shape.batch > int_max)
    throw argument_error(fmt::format("{}: sizes and the batch count are at most {}", shape.name(), int_max));
  gemm_footprint f;
  f.a = matrix_bytes(shape.m, shape.k, shape, element_bytes, "A");
  f.b = matrix_bytes(shape.k, shape.n, shape, element_bytes, "B");
  f.c = matrix_bytes(shape.m, shape.n, shape, element_bytes, "C");
  if (f.a > limit - f.b || f.a + f.b > limit - f.c)
    throw argument_error(fmt::format("{}: the size of A, B and C together overflows 64 bits", shape.name()));
  return f;
}

template <typename T>
std::vector<T> random_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<T> dist(T(-1), T(1));
  std::vector<T> out(n);
  for (auto& v : out) do v = dist(rng); while (v == T(0));
  return out;
}

template <typename T>
void host_gemm(const gemm_shape& s, const T* a, const T* b, T* c) {
  const auto op = [](bool t) { return t ? CblasTrans : CblasNoTrans; };
#pragma omp parallel for if (s.batch > 1)
  for (std::int64_t e = 0; e < s.batch; ++e) {
    const T* ae = a + e * s.stride_a();
    const T* be = b + e * s.stride_b();
    T* ce = c + e * s.stride_c();
    if constexpr (std::is_same_v<T, float>)
      cblas_sgemm(CblasColMajor, op(s.trans_a), op(s.trans_b), int(s.m), int(s.n), int(s.k), 1.f, ae, int(s.lda()), be,
                  int(s.ldb()), 0.f, ce, int(s.ldc()));
    else
      cblas_dgemm(CblasColMajor, op(s.trans_a), op(s.trans_b), int(s.m), int(s.n), int(s.k), 1.0, ae, int(s.lda()), be,
                  int(s.ldb()), 0.0, ce, int(s.ldc()));
  }
}

namespace {

/// values rounded to Half (to nearest even): their bits; values become what the bits hold.
template <typename Half>
std::vector<std::uint16_t> round_to_16bit(std::vector<float>& values) {
  const std::vector<Half> halves = runtime::to_16bit<Half>(values);
  values = runtime::to_float<Half>(halves);
  std::vector<std::uint16_t> bits(halves.size());
  std::transform(halves.begin(), halves.end(), bits.begin(), [](Half h) { return h.bits; });
  return bits;
}

/// host_gemm in FP64 of a and b, rounded to T once.
template <typename T>
std::vector<T> fp64_product(const gemm_shape& s, const std::vector<T>& a, const std::vector<T>& b, std::size_t c_size) {
  std::vector<T> c(c_size);
  if constexpr (std::is_same_v<T, double>) {
    host_gemm(s, a.data(), b.data(), c.data());
  } else {
    const std::vector<double> wide_a(a.begin(), a.end()), wide_b(b.begin(), b.end());
    std::vector<double> wide_c(c_size);
    host_gemm(s, wide_a.data(), wide_b.data(), wide_c.data());
    std::transform(wide_c.begin(), wide_c.end(), c.begin(), [](double x) { return T(x); });
  }
  return c;
}

}  // namespace

template <typename T>
gemm_operands<T>::gemm_operands(const runtime::context& context, const gemm_shape& s, std::uint64_t seed,
                                blas::operand_type types)
    : ctx(&context), shape(s), operands(types) {
  const bool sixteen_bit = types != blas::operand_type::float32;
  if (sixteen_bit && !std::is_same_v<T, float>)
    throw argument_error(fmt::format("{}: A and B of {} values go with a float C only", s.name(), blas::to_string(types)));
  const auto bytes = footprint(s, sizeof(T));
  host_a = random_values<T>(std::size_t(bytes.a / sizeof(T)), seed);
  host_b = random_values<T>(std::size_t(bytes.b / sizeof(T)), seed + 1);
  if constexpr (std::is_same_v<T, float>) {
    if (types == blas::operand_type::float16)
      a_bits = round_to_16bit<runtime::float16>(host_a), b_bits = round_to_16bit<runtime::float16>(host_b);
    if (types == blas::operand_type::bfloat16)
      a_bits = round_to_16bit<runtime::bfloat16>(host_a), b_bits = round_to_16bit<runtime::bfloat16>(host_b);
  }
  reference = fp64_product(s, host_a, host_b, std::size_t(bytes.c / sizeof(T)));
  const auto element_bytes = std::size_t(blas::operand_bytes(types, int(sizeof(T))));
  a = runtime::device_buffer(context, host_a.size() * element_bytes);
  b = runtime::device_buffer(context, host_b.size() * element_bytes);
  c = runtime::device_buffer(context, std::size_t(bytes.c));
  if (sixteen_bit) {
    a.write(0, a.bytes(), a_bits.data());
    b.write(0, b.bytes(), b_bits.data());
  } else {
    a.write(0, a.bytes(), host_a.data());
    b.write(0, b.bytes(), host_b.data());
  }
}

template <typename T>
double gemm_tolerance(std::int64_t k) {
  return 4.0 * double(std::max<std::int64_t>(k, 1)) * double(std::numeric_limits<T>::epsilon());
}

double tf32_gemm_tolerance(std::int64_t k) {
  return gemm_tolerance<float>(k) + 8.0 * std::sqrt(double(std::max<std::int64_t>(k, 1))) * std::ldexp(1.0, -9);
}

double gemm_tolerance(gemm_precision precision, std::int64_t k) {
  return precision == gemm_precision::tf32 ? tf32_gemm_tolerance(k) : gemm_tolerance<float>(k);
}

template <typename T>
std::string first_mismatch(const std::vector<T>& got, const std::vector<T>& want, double tolerance) {
  if (got.size() != want.size())
    return fmt::format("{} elements instead of {}", got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double expected = double(want[i]);
    if (!(std::abs(double(got[i]) - expected) <= tolerance * std::max(1.0, std::abs(expected))))
      return fmt::format("element {} is {} instead of {} (tolerance {:.2g})", i, got[i], want[i], tolerance);
  }
  return {};
}

template <typename T>
double max_relative_error(const std::vector<T>& got, const std::vector<T>& want) {
  double difference = 0, scale = 0;
  for (std::size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
    if (std::isnan(got[i])) return std::numeric_limits<double>::infinity();
    difference = std::max(difference, std::abs(double(got[i]) - double(want[i])));
    scale = std::max(scale, std::abs(double(want[i])));
  }
  return difference / std::max(scale, 1e-30);
}

#define TESSERA_BASELINES_INSTANTIATE(T)                                                                  \
  template std::vector<T> random_values<T>(std::size_t, std::uint64_t);                                 \
  template void host_gemm<T>(const gemm_shape&, const T*, const T*, T*);                                  \
  template struct gemm_operands<T>;                                                                       \
  template double gemm_tolerance<T>(std::int64_t);                                                        \
  template std::string first_mismatch<T>(const std::vector<T>&, const std::vector<T>&, double);           \
  template double max_relative_error<T>(const std::vector<T>&, const std::vector<T>&);
TESSERA_BASELINES_INSTANTIATE(float)
TESSERA_BASELINES_INSTANTIATE(double)
#undef TESSERA_BASELINES_INSTANTIATE

}  // namespace tessera::baselines
