// The 16-bit storage types convert exactly as IEEE 754 rounds (to nearest, ties to even),
// checked against references that share no code with them: every 16-bit value decoded with
// ldexp, and rounding by search for the nearest value in the sorted table of all of them.
#include <tessera/runtime/float16.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "support/test_data.hpp"

namespace rt = tessera::runtime;

namespace {

// Decodes a binary16 pattern by its definition.
double decode_float16(std::uint16_t bits) {
  const int sign = bits >> 15, exponent = (bits >> 10) & 31, mantissa = bits & 1023;
  double v;
  if (exponent == 31) v = mantissa ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else if (exponent == 0) v = std::ldexp(mantissa, -24);
  else v = std::ldexp(1024 + mantissa, exponent - 25);
  return sign ? -v : v;
}

double decode_bfloat16(std::uint16_t bits) {
  const int sign = bits >> 15, exponent = (bits >> 7) & 255, mantissa = bits & 127;
  double v;
  if (exponent == 255) v = mantissa ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else if (exponent == 0) v = std::ldexp(mantissa, -133);
  else v = std::ldexp(128 + mantissa, exponent - 134);
  return sign ? -v : v;
}

// Rounds x to the nearest of the format's finite positive values (ascending bit patterns from
// 0 to largest, as `decode` gives them), ties to the even pattern; past the midpoint between the
// largest and the next power of two, infinity.
template <typename Decode>
std::uint16_t round_by_search(float x, std::uint16_t largest, std::uint16_t infinity, double overflow_at,
                              Decode decode) {
  const std::uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const double a = std::fabs(double(x));
  if (a >= overflow_at) return sign | infinity;
  std::uint16_t lo = 0, hi = largest;  // decode(lo) <= a < decode(hi) or a == largest
  if (a >= decode(largest)) return sign | largest;
  while (hi - lo > 1) {
    const std::uint16_t mid = static_cast<std::uint16_t>((lo + hi) / 2);
    (decode(mid) <= a ? lo : hi) = mid;
  }
  const double below = a - decode(lo), above = decode(hi) - a;
  if (below < above) return sign | lo;
  if (above < below) return sign | hi;
  return sign | ((lo & 1) == 0 ? lo : hi);
}

std::uint16_t reference_float16(float x) {
  // largest 65504 (0x7bff); halfway to 65536 is 65520
  return round_by_search(x, 0x7bff, 0x7c00, 65520.0, decode_float16);
}

std::uint16_t reference_bfloat16(float x) {
  // largest (2 - 2^-7) * 2^127 (0x7f7f); halfway to 2^128 is (2 - 2^-8) * 2^127
  return round_by_search(x, 0x7f7f, 0x7f80, std::ldexp(2.0 - std::ldexp(1.0, -8), 127), decode_bfloat16);
}

bool is_nan16(std::uint16_t bits, int exponent_bits) {
  const int mantissa_bits = 15 - exponent_bits;
  const std::uint16_t exponent_mask = static_cast<std::uint16_t>(((1 << exponent_bits) - 1) << mantissa_bits);
  return (bits & exponent_mask) == exponent_mask && (bits & ((1 << mantissa_bits) - 1)) != 0;
}

// Floats that exercise rounding: random bit patterns across every exponent, the values of the
// format itself, the midpoints between neighbours and one float ulp either side of them.
std::vector<float> probe_floats(double (*decode)(std::uint16_t), std::uint16_t largest) {
  std::vector<float> out;
  std::mt19937_64 rng(tessera::testing::fresh_seed());
  for (int i = 0; i < 200000; ++i) out.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(rng())));
  for (std::uint16_t b = 0; b < largest; ++b) {
    const double lo = decode(b), hi = decode(static_cast<std::uint16_t>(b + 1));
    const float mid = static_cast<float>((lo + hi) / 2);  // exact: floats have the bits to spare
    for (float v : {static_cast<float>(lo), mid, std::nextafter(mid, 0.f), std::nextafter(mid, 1e30f)}) {
      out.push_back(v);
      out.push_back(-v);
    }
  }
  return out;
}

TEST(Float16, EveryPatternDecodesAsTheFormatDefinesIt) {
  for (std::uint32_t b = 0; b < 65536; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    const double want = decode_float16(bits);
    const float got = static_cast<float>(rt::float16::from_bits(bits));
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << "pattern " << b;
      EXPECT_EQ(std::signbit(got), (b & 0x8000) != 0) << "pattern " << b;
    } else {
      ASSERT_EQ(double(got), want) << "pattern " << b;
      ASSERT_EQ(std::signbit(got), std::signbit(want)) << "pattern " << b;
    }
  }
}

TEST(Float16, RoundsToNearestEvenAsTheReference) {
  for (float x : probe_floats(decode_float16, 0x7bff)) {
    const std::uint16_t got = rt::float16(x).bits;
    if (std::isnan(x)) {
      EXPECT_TRUE(is_nan16(got, 5)) << x;
      EXPECT_EQ((got & 0x8000) != 0, std::signbit(x));
      EXPECT_TRUE(got & 0x0200) << "NaN must be quiet";
      continue;
    }
    ASSERT_EQ(got, reference_float16(x)) << "x = " << x << " (bits " << std::bit_cast<std::uint32_t>(x) << ")";
  }
}

#ifdef __FLT16_MAX__
TEST(Float16, AgreesWithTheCompilersFloat16) {
  std::mt19937_64 rng(tessera::testing::fresh_seed());
  for (int i = 0; i < 1000000; ++i) {
    const float x = std::bit_cast<float>(static_cast<std::uint32_t>(rng()));
    if (std::isnan(x)) continue;
    const auto want = std::bit_cast<std::uint16_t>(static_cast<_Float16>(x));
    ASSERT_EQ(rt::float16(x).bits, want) << "x = " << x;
  }
}
#endif

TEST(Float16, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(rt::float16(0.f).bits, 0x0000);
  EXPECT_EQ(rt::float16(-0.f).bits, 0x8000);
  EXPECT_EQ(rt::float16(inf).bits, 0x7c00);
  EXPECT_EQ(rt::float16(-inf).bits, 0xfc00);
  EXPECT_EQ(rt::float16(65504.f).bits, 0x7bff);    // largest
  EXPECT_EQ(rt::float16(65519.996f).bits, 0x7bff); // just below the midpoint to infinity
  EXPECT_EQ(rt::float16(65520.f).bits, 0x7c00);    // the midpoint ties to even: infinity
  EXPECT_EQ(rt::float16(1e10f).bits, 0x7c00);
  EXPECT_EQ(rt::float16(std::ldexp(1.f, -14)).bits, 0x0400);  // smallest normal
  EXPECT_EQ(rt::float16(std::ldexp(1.f, -24)).bits, 0x0001);  // smallest subnormal
  EXPECT_EQ(rt::float16(std::ldexp(1.f, -25)).bits, 0x0000);  // half of it ties to even: zero
  EXPECT_EQ(rt::float16(std::nextafter(std::ldexp(1.f, -25), 1.f)).bits, 0x0001);
  EXPECT_EQ(rt::float16(std::ldexp(3.f, -25)).bits, 0x0002);  // 1.5 ulp ties to even: 2
  EXPECT_EQ(rt::float16(1.f + std::ldexp(1.f, -11)).bits, 0x3c00);  // tie to even (down)
  EXPECT_EQ(rt::float16(1.f + 3 * std::ldexp(1.f, -11)).bits, 0x3c02);  // tie to even (up)
}

TEST(Bfloat16, EveryPatternDecodesAndRoundTrips) {
  for (std::uint32_t b = 0; b < 65536; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    const double want = decode_bfloat16(bits);
    const float got = static_cast<float>(rt::bfloat16::from_bits(bits));
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << "pattern " << b;
      EXPECT_TRUE(is_nan16(rt::bfloat16(got).bits, 8)) << "pattern " << b;
      continue;
    }
    ASSERT_EQ(double(got), want) << "pattern " << b;
    ASSERT_EQ(rt::bfloat16(got).bits, bits) << "pattern " << b << " must convert back to itself";
  }
}

TEST(Bfloat16, RoundsToNearestEvenAsTheReference) {
  for (float x : probe_floats(decode_bfloat16, 0x7f7f)) {
    const std::uint16_t got = rt::bfloat16(x).bits;
    if (std::isnan(x)) {
      EXPECT_TRUE(is_nan16(got, 8)) << x;
      EXPECT_EQ((got & 0x8000) != 0, std::signbit(x));
      EXPECT_TRUE(got & 0x0040) << "NaN must be quiet";
      continue;
    }
    ASSERT_EQ(got, reference_bfloat16(x)) << "x = " << x << " (bits " << std::bit_cast<std::uint32_t>(x) << ")";
  }
}

TEST(Bfloat16, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(rt::bfloat16(-0.f).bits, 0x8000);
  EXPECT_EQ(rt::bfloat16(inf).bits, 0x7f80);
  EXPECT_EQ(rt::bfloat16(std::numeric_limits<float>::max()).bits, 0x7f80);  // rounds past the largest
  EXPECT_EQ(rt::bfloat16(std::numeric_limits<float>::denorm_min()).bits, 0x0000);
  EXPECT_EQ(rt::bfloat16(std::bit_cast<float>(0x00010000u)).bits, 0x0001);  // smallest subnormal
  EXPECT_EQ(rt::bfloat16(std::bit_cast<float>(0x3f808000u)).bits, 0x3f80);  // tie to even (down)
  EXPECT_EQ(rt::bfloat16(std::bit_cast<float>(0x3f818000u)).bits, 0x3f82);  // tie to even (up)
  EXPECT_EQ(rt::bfloat16(std::bit_cast<float>(0x7fc00001u)).bits & 0x7fc0, 0x7fc0);  // NaN stays NaN
  EXPECT_EQ(rt::bfloat16(std::bit_cast<float>(0x7f800001u)).bits & 0x7fc0, 0x7fc0);  // signalling: quieted
}

TEST(SixteenBitArrays, ConvertElementByElement) {
  const auto values = tessera::testing::random_values<float>(1001);
  const auto halves = rt::to_16bit<rt::float16>(values);
  const auto back = rt::to_float<rt::float16>(halves);
  ASSERT_EQ(back.size(), values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(halves[i], rt::float16(values[i]));
    EXPECT_LE(std::fabs(back[i] - values[i]), std::ldexp(std::fabs(values[i]), -11)) << i;
  }
  EXPECT_TRUE(rt::to_16bit<rt::bfloat16>({}).empty());
}

}  // namespace
