#pragma once
// Exact rational numbers on 64-bit integers. Index expressions have rational coefficients
// (`I[i / 2]`), and the set of valid indices must be computed exactly; every operation
// checks for overflow and throws arithmetic_overflow instead of wrapping.
#include <cstdint>
#include <stdexcept>
#include <string>

namespace tessera::tile {

/// An integer or rational computation left the 64-bit range. The front end turns it into a
/// located check_error or shape_error.
class arithmetic_overflow : public std::overflow_error {
 public:
  arithmetic_overflow() : std::overflow_error("integer overflow in Tile index arithmetic") {}
};

std::int64_t checked_add(std::int64_t a, std::int64_t b);
std::int64_t checked_sub(std::int64_t a, std::int64_t b);
std::int64_t checked_mul(std::int64_t a, std::int64_t b);
std::int64_t gcd(std::int64_t a, std::int64_t b);
std::int64_t lcm(std::int64_t a, std::int64_t b);
/// Division rounding toward negative infinity (b != 0).
std::int64_t floor_div(std::int64_t a, std::int64_t b);
/// Division rounding toward positive infinity (b != 0).
std::int64_t ceil_div(std::int64_t a, std::int64_t b);
/// a - b * floor_div(a, b): in [0, |b|) for b > 0.
std::int64_t floor_mod(std::int64_t a, std::int64_t b);

/// numerator / denominator in lowest terms, denominator > 0.
class rational {
 public:
  constexpr rational() = default;
  rational(std::int64_t value) : numerator_(value) {}  // NOLINT: integers are rationals
  /// Throws std::domain_error for a zero denominator.
  rational(std::int64_t numerator, std::int64_t denominator);

  std::int64_t numerator() const noexcept { return numerator_; }
  std::int64_t denominator() const noexcept { return denominator_; }
  bool is_integer() const noexcept { return denominator_ == 1; }
  bool is_zero() const noexcept { return numerator_ == 0; }
  int sign() const noexcept { return numerator_ > 0 ? 1 : numerator_ < 0 ? -1 : 0; }
  std::int64_t floor() const { return floor_div(numerator_, denominator_); }
  std::int64_t ceil() const { return ceil_div(numerator_, denominator_); }
  double to_double() const noexcept { return double(numerator_) / double(denominator_); }
  std::string to_string() const;

  friend rational operator+(const rational& a, const rational& b);
  friend rational operator-(const rational& a, const rational& b);
  friend rational operator*(const rational& a, const rational& b);
  /// Throws std::domain_error when b is zero.
  friend rational operator/(const rational& a, const rational& b);
  friend rational operator-(const rational& a);
  rational& operator+=(const rational& b) { return *this = *this + b; }
  rational& operator-=(const rational& b) { return *this = *this - b; }
  rational& operator*=(const rational& b) { return *this = *this * b; }
  friend bool operator==(const rational& a, const rational& b) noexcept {
    return a.numerator_ == b.numerator_ && a.denominator_ == b.denominator_;
  }
  friend bool operator<(const rational& a, const rational& b);
  friend bool operator<=(const rational& a, const rational& b) { return !(b < a); }
  friend bool operator>(const rational& a, const rational& b) { return b < a; }
  friend bool operator>=(const rational& a, const rational& b) { return !(a < b); }

 private:
  std::int64_t numerator_ = 0;
  std::int64_t denominator_ = 1;
};

}  // namespace tessera::tile
