#include <tessera/tile/rational.hpp>

#include <limits>

#include <fmt/format.h>

namespace tessera::tile {

std::int64_t checked_add(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw arithmetic_overflow();
  return r;
}

std::int64_t checked_sub(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) throw arithmetic_overflow();
  return r;
}

std::int64_t checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw arithmetic_overflow();
  return r;
}

std::int64_t gcd(std::int64_t a, std::int64_t b) {
  // INT64_MIN has no positive counterpart; refusing it keeps every result representable.
  if (a == std::numeric_limits<std::int64_t>::min() || b == std::numeric_limits<std::int64_t>::min())
    throw arithmetic_overflow();
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  while (b != 0) {
    const std::int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

std::int64_t lcm(std::int64_t a, std::int64_t b) {
  if (a == 0 || b == 0) return 0;
  const std::int64_t g = gcd(a, b);
  const std::int64_t r = checked_mul(a / g, b);
  return r < 0 ? checked_sub(0, r) : r;
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  if (b == -1) return checked_sub(0, a);
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  if (b == -1) return checked_sub(0, a);
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) == (b < 0))) ++q;
  return q;
}

std::int64_t floor_mod(std::int64_t a, std::int64_t b) {
  return checked_sub(a, checked_mul(b, floor_div(a, b)));
}

rational::rational(std::int64_t numerator, std::int64_t denominator) {
  if (denominator == 0) throw std::domain_error("rational with a zero denominator");
  const std::int64_t g = gcd(numerator, denominator);
  numerator /= g;
  denominator /= g;
  if (denominator < 0) {
    numerator = checked_sub(0, numerator);
    denominator = checked_sub(0, denominator);
  }
  numerator_ = numerator;
  denominator_ = denominator;
}

rational operator+(const rational& a, const rational& b) {
  if (a.denominator_ == 1 && b.denominator_ == 1) return rational(checked_add(a.numerator_, b.numerator_));
  const std::int64_t g = gcd(a.denominator_, b.denominator_);
  const std::int64_t da = a.denominator_ / g, db = b.denominator_ / g;
  return rational(checked_add(checked_mul(a.numerator_, db), checked_mul(b.numerator_, da)),
                  checked_mul(a.denominator_, db));
}

rational operator-(const rational& a) { return rational(checked_sub(0, a.numerator_), a.denominator_); }

rational operator-(const rational& a, const rational& b) { return a + (-b); }

rational operator*(const rational& a, const rational& b) {
  if (a.denominator_ == 1 && b.denominator_ == 1) return rational(checked_mul(a.numerator_, b.numerator_));
  // Cross-cancel first so that products stay small.
  const std::int64_t g1 = gcd(a.numerator_, b.denominator_), g2 = gcd(b.numerator_, a.denominator_);
  const std::int64_t n1 = g1 ? a.numerator_ / g1 : 0, d2 = g1 ? b.denominator_ / g1 : b.denominator_;
  const std::int64_t n2 = g2 ? b.numerator_ / g2 : 0, d1 = g2 ? a.denominator_ / g2 : a.denominator_;
  return rational(checked_mul(n1, n2), checked_mul(d1, d2));
}

rational operator/(const rational& a, const rational& b) {
  if (b.numerator_ == 0) throw std::domain_error("division by zero");
  return a * rational(b.denominator_, b.numerator_);
}

bool operator<(const rational& a, const rational& b) {
  // Compare a.n * b.d < b.n * a.d in 128 bits: no overflow possible.
  return static_cast<__int128>(a.numerator_) * b.denominator_ < static_cast<__int128>(b.numerator_) * a.denominator_;
}

std::string rational::to_string() const {
  return denominator_ == 1 ? fmt::format("{}", numerator_) : fmt::format("{}/{}", numerator_, denominator_);
}

}  // namespace tessera::tile
