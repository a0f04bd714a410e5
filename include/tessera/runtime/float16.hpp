#pragma once
// 16-bit floating-point storage types: IEEE binary16 (float16) and bfloat16. They hold values
// in device buffers for the tensor-core GEMM (FP16/BF16 inputs, FP32 accumulation); arithmetic
// happens in float. Conversions from float round to nearest, ties to even, as IEEE 754 and the
// devices' conversion instructions do: overflow gives infinity, NaN stays NaN (quiet, sign kept),
// float16 has subnormals down to 2^-24, bfloat16 keeps float's exponent range.
#include <bit>
#include <cstdint>
#include <span>
#include <vector>

namespace tessera::runtime {

namespace detail {

constexpr std::uint16_t float_to_float16_bits(float value) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(value);
  const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  const std::uint32_t magnitude = x & 0x7fffffffu;
  if (magnitude > 0x7f800000u)  // NaN: quiet, with the payload's top bits
    return static_cast<std::uint16_t>(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
  if (magnitude >= 0x477ff000u)  // 65520 and above (infinity too) round to infinity
    return static_cast<std::uint16_t>(sign | 0x7c00u);
  if (magnitude < 0x38800000u) {  // below 2^-14: a subnormal float16, or zero
    if (magnitude < 0x33000000u) return sign;  // below 2^-25 (2^-25 itself ties to 0)
    // value = mantissa * 2^(exponent - 150) = h * 2^-24  =>  h = mantissa >> (126 - exponent)
    const std::uint32_t exponent = magnitude >> 23;
    const std::uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
    const std::uint32_t shift = 126u - exponent;
    std::uint32_t h = mantissa >> shift;
    const std::uint32_t rest = mantissa & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rest > half || (rest == half && (h & 1u))) ++h;
    return static_cast<std::uint16_t>(sign | h);
  }
  // Rebias the exponent (127 -> 15) and drop 13 mantissa bits; a carry out of the mantissa
  // correctly moves up the exponent.
  std::uint32_t h = (magnitude - 0x38000000u) >> 13;
  const std::uint32_t rest = magnitude & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
  return static_cast<std::uint16_t>(sign | h);
}

constexpr float float16_bits_to_float(std::uint16_t bits) {
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
  const std::uint32_t exponent = (bits >> 10) & 0x1fu, mantissa = bits & 0x3ffu;
  if (exponent == 0x1fu)  // infinity or NaN (the payload moves up)
    return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) {
    if (mantissa == 0) return std::bit_cast<float>(sign);
    // subnormal: mantissa * 2^-24, normal as a float
    int shift = 0;
    std::uint32_t m = mantissa;
    while ((m & 0x400u) == 0) {
      m <<= 1;
      ++shift;
    }
    return std::bit_cast<float>(sign | ((113u - static_cast<std::uint32_t>(shift)) << 23) | ((m & 0x3ffu) << 13));
  }
  return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

constexpr std::uint16_t float_to_bfloat16_bits(float value) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(value);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  // Round to nearest even on the 16 dropped bits; a carry moves up the exponent (to infinity
  // past the largest finite value).
  return static_cast<std::uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

constexpr float bfloat16_bits_to_float(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

}  // namespace detail

/// A 16-bit floating-point value in storage: the bits, converted from float by
/// `to_bits` (round to nearest, ties to even) and back by `to_float`. Equality is bitwise.
template <std::uint16_t (*to_bits)(float), float (*to_float)(std::uint16_t)>
struct storage16 {
  std::uint16_t bits = 0;

  constexpr storage16() = default;
  constexpr explicit storage16(float value) : bits(to_bits(value)) {}
  constexpr explicit operator float() const { return to_float(bits); }
  static constexpr storage16 from_bits(std::uint16_t b) {
    storage16 h;
    h.bits = b;
    return h;
  }
  friend constexpr bool operator==(storage16, storage16) = default;
};

/// IEEE 754 binary16: 1 sign, 5 exponent, 10 mantissa bits.
using float16 = storage16<detail::float_to_float16_bits, detail::float16_bits_to_float>;
/// bfloat16: float's sign and 8 exponent bits, 7 mantissa bits.
using bfloat16 = storage16<detail::float_to_bfloat16_bits, detail::bfloat16_bits_to_float>;

static_assert(sizeof(float16) == 2 && sizeof(bfloat16) == 2, "16-bit storage types must be 2 bytes");

/// Whole arrays, for host data on its way to or from the device.
template <typename Half>
std::vector<Half> to_16bit(std::span<const float> values) {
  std::vector<Half> out;
  out.reserve(values.size());
  for (float v : values) out.emplace_back(v);
  return out;
}
template <typename Half>
std::vector<float> to_float(std::span<const Half> values) {
  std::vector<float> out;
  out.reserve(values.size());
  for (Half v : values) out.push_back(static_cast<float>(v));
  return out;
}

}  // namespace tessera::runtime

namespace tessera {
using runtime::bfloat16;
using runtime::float16;
}  // namespace tessera
