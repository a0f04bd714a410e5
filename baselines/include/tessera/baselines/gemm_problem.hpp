#pragma once
// One GEMM problem as every comparison sees it: C = op(A) op(B) (alpha 1, beta 0), column-major,
// strided-batched, on fresh random operands (never zeros) with OpenBLAS's result as the
// reference; and the check of a result against that reference.
#include <cstdint>
#include <string>
#include <vector>

#include <tessera/runtime/buffer.hpp>
#include <tessera/runtime/context.hpp>

namespace tessera::baselines {

/// Sizes and layout: op(A) is m x k, op(B) k x n, C m x n; each stored matrix densely
/// (leading dimension its row count), batch entries one after the other.
struct gemm_shape {
  bool trans_a = false, trans_b = false;
  std::int64_t m = 0, n = 0, k = 0, batch = 1;

  std::int64_t lda() const noexcept { return trans_a ? k : m; }
  std::int64_t ldb() const noexcept { return trans_b ? n : k; }
  std::int64_t ldc() const noexcept { return m; }
  std::int64_t stride_a() const noexcept { return m * k; }
  std::int64_t stride_b() const noexcept { return k * n; }
  std::int64_t stride_c() const noexcept { return m * n; }
  /// Floating-point operations of one call (2 m n k per batch entry).
  double flops() const noexcept { return 2.0 * double(m) * double(n) * double(k) * double(batch); }
  /// "nt 67x45x53", with " batch 3" when batched.
  std::string name() const;
};

/// The memory a problem of element_bytes-sized elements needs, in bytes: each of A, B and C
/// over every batch entry.
struct gemm_footprint {
  std::uint64_t a = 0, b = 0, c = 0;
  std::uint64_t device() const noexcept { return a + b + c; }
  std::uint64_t largest() const noexcept;
};

/// Throws argument_error naming the sizes when a size is below 1 or above INT_MAX (BLAS takes
/// int sizes), or when a count of elements or bytes does not fit in 63 bits (a product that
/// would wrap around).
gemm_footprint footprint(const gemm_shape& shape, std::size_t element_bytes);

/// n values uniform in [-1, 1), none exactly zero (a zero hides a missed element).
template <typename T>
std::vector<T> random_values(std::size_t n, std::uint64_t seed);

/// C = op(A) op(B) on the host through OpenBLAS, every batch entry (a, b, c at the shape's
/// strides).
template <typename T>
void host_gemm(const gemm_shape& shape, const T* a, const T* b, T* c);

/// The operands of one problem on the host and on ctx's device, and OpenBLAS's result.
template <typename T>
struct gemm_operands {
  /// Random A and B from seed, copied to the device; C allocated (not written).
  gemm_operands(const runtime::context& ctx, const gemm_shape& shape, std::uint64_t seed);

  const runtime::context* ctx;
  gemm_shape shape;
  std::vector<T> host_a, host_b;
  std::vector<T> reference;  // C = op(A) op(B), column-major, every batch entry
  runtime::device_buffer a, b, c;
};

/// How far a GEMM result may lie from the reference: operands in [-1, 1] make each element a
/// sum of k products, off by at most about k rounding errors.
template <typename T>
double gemm_tolerance(std::int64_t k);

/// The same for float products in TF32 (blas::math_mode::tf32, cuBLAS's TF32 math): each
/// operand cut to 10 mantissa bits adds up to 2^-9 of |a b| per product; the bound is the
/// square-root growth of k such errors of random sign over operands in [-1, 1], times 8.
double tf32_gemm_tolerance(std::int64_t k);

/// "" when every element of got lies within tolerance * max(1, |want|) of want, else which
/// element is off and by how much (a NaN, an element never written, is off).
template <typename T>
std::string first_mismatch(const std::vector<T>& got, const std::vector<T>& want, double tolerance);

/// max |got - want| / max |want| (infinite when got holds a NaN): the benchmarks' counter.
template <typename T>
double max_relative_error(const std::vector<T>& got, const std::vector<T>& want);

}  // namespace tessera::baselines
