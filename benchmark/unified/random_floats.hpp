#pragma once
// The unified benchmarks' input data: one generator for every suite of bench_unified.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tessera::benchmarks {

/// Values in [-1, 1), never zero, from a xorshift generator: 2^26 of them in well under a second.
inline std::vector<float> random_floats(std::size_t n, std::uint64_t seed) {
  std::uint64_t state = 0x9e3779b97f4a7c15ull * (seed + 1);
  std::vector<float> v(n);
  for (auto& x : v) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    x = static_cast<float>(static_cast<std::int64_t>(state >> 40) - (1 << 23) + 1) / float(1 << 23);
    if (x == 0.0f) x = 0.5f;
  }
  return v;
}

}  // namespace tessera::benchmarks
