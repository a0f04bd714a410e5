#pragma once
// One GEMM problem as every comparison sees it: C = op(A) op(B) (alpha 1, beta 0), column-major,
// strided-batched, on fresh random operands (never zeros) with OpenBLAS's FP64 result as the
// reference; and the check of a result against that reference.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <tessera/blas/gemm.hpp>
#include <tessera/runtime/buffer.hpp>
#include <tessera/runtime/context.hpp>

namespace tessera::baselines {

/// The arithmetic of a float GEMM problem (the tuner's --precision): FP32; TF32 products
/// (blas::math_mode::tf32); or A and B stored in FP16 or BF16 (blas::operand_type), C in float.
enum class gemm_precision { fp32, tf32, fp16, bf16 };

/// "fp32", "tf32", "fp16", "bf16".
std::string_view to_string(gemm_precision precision);
/// The precision named text; argument_error naming the valid names otherwise.
gemm_precision precision_from(std::string_view text);
blas::math_mode math_of(gemm_precision precision);
blas::operand_type operands_of(gemm_precision precision);

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

/// The operands of one problem on the host and on ctx's device, and the reference result.
template <typename T>
struct gemm_operands {
  /// Random A and B from seed, stored on the device as operands says (16-bit types: float
  /// only; argument_error for double); C allocated (not written).
  gemm_operands(const runtime::context& ctx, const gemm_shape& shape, std::uint64_t seed,
                blas::operand_type operands = blas::operand_type::float32);

  const runtime::context* ctx;
  gemm_shape shape;
  blas::operand_type operands;
  /// The values of A and B the device holds (16-bit operands: rounded to nearest even, widened).
  std::vector<T> host_a, host_b;
  /// 16-bit operands: their bits, as a and b hold them (empty otherwise).
  std::vector<std::uint16_t> a_bits, b_bits;
  /// C = op(A) op(B) of host_a and host_b, computed in FP64 (OpenBLAS's dgemm) and rounded
  /// to T once: column-major, every batch entry.
  std::vector<T> reference;
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

/// The tolerance of a float problem of this precision against the FP64 reference of the values
/// the device holds: FP32's k-fold bound (gemm_tolerance<float>) for fp32 and for 16-bit A and B
/// (products of 16-bit values are exact in FP32; only the FP32 sums round: their own rounding
/// to 16 bits is the data's, made on the host), tf32_gemm_tolerance for TF32 products.
double gemm_tolerance(gemm_precision precision, std::int64_t k);

/// "" when every element of got lies within tolerance * max(1, |want|) of want, else which
/// element is off and by how much (a NaN, an element never written, is off).
template <typename T>
std::string first_mismatch(const std::vector<T>& got, const std::vector<T>& want, double tolerance);

/// max |got - want| / max |want| (infinite when got holds a NaN): the benchmarks' counter.
template <typename T>
double max_relative_error(const std::vector<T>& got, const std::vector<T>& want);

}  // namespace tessera::baselines
