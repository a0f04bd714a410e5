#pragma once
// Fresh random test data (never zeros) and type-aware tolerances.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace tessera::testing {

/// A seed that differs between runs, recorded in the test's XML output so a failure can be replayed.
/// TESSERA_TEST_SEED fixes it.
inline std::uint64_t fresh_seed() {
  static const std::uint64_t base = [] {
    if (const char* s = std::getenv("TESSERA_TEST_SEED")) return static_cast<std::uint64_t>(std::strtoull(s, nullptr, 10));
    return (static_cast<std::uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
  }();
  static std::uint64_t counter = 0;
  const std::uint64_t seed = base + counter++;
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  return seed;
}

/// n values uniform in [low, high), none of them exactly zero.
template <typename T>
std::vector<T> random_values(std::size_t n, T low = T(-1), T high = T(1), std::uint64_t seed = fresh_seed()) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<T> dist(low, high);
  std::vector<T> out(n);
  for (auto& v : out) {
    do v = dist(rng);
    while (v == T(0));
  }
  return out;
}

/// Relative tolerance for results accumulated over `terms` values of type T.
template <typename T>
T tolerance(std::size_t terms = 1) {
  return T(8) * std::numeric_limits<T>::epsilon() * T(std::max<std::size_t>(terms, 1));
}

}  // namespace tessera::testing
