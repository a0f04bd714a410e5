// Every example of the seed (001, "Writing Tile Code"), on the device and in the reference
// interpreter, each compared with a direct C++ loop on fresh random data at several shapes,
// odd and empty ones included.
#include <algorithm>
#include <limits>

#include "tile_testing.hpp"

namespace tessera::tile {
namespace {

using testing::at;
using testing::expect_all_agree;
using vectors = std::vector<std::vector<double>>;

template <typename T>
class SeedExample : public ::testing::Test {};
using element_types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SeedExample, element_types);

TYPED_TEST(SeedExample, SumOverAxis) {
  using T = TypeParam;
  const std::string source = "function (I[M, N]) -> (O) { O[n: N] = +(I[m, n]); }";
  for (const shape& s : {shape{1, 1}, shape{7, 13}, shape{31, 5}, shape{0, 4}, shape{3, 0}}) {
    expect_all_agree<T>(source, {s}, [&](const auto& in) {
      std::vector<double> o(s[1], 0.0);
      for (std::int64_t m = 0; m < s[0]; ++m)
        for (std::int64_t n = 0; n < s[1]; ++n) o[n] += at(in[0], {m, n});
      return vectors{o};
    }, s[0]);
  }
}

TYPED_TEST(SeedExample, SumOverAxisWithALargerOutputPadsWithZero) {
  using T = TypeParam;
  const std::string source = "function (I[M, N]) -> (O) { O[n: N + 1] = +(I[m, n]); }";
  for (const shape& s : {shape{1, 1}, shape{5, 6}}) {
    expect_all_agree<T>(source, {s}, [&](const auto& in) {
      std::vector<double> o(s[1] + 1, 0.0);
      for (std::int64_t m = 0; m < s[0]; ++m)
        for (std::int64_t n = 0; n < s[1]; ++n) o[n] += at(in[0], {m, n});
      return vectors{o};
    }, s[0]);
  }
}

TYPED_TEST(SeedExample, MatrixMultiplication) {
  using T = TypeParam;
  const std::string source = R"(function (A[M, L], B[L, N]) -> (C) {
        C[i, j: M, N] = +(A[i, k] * B[k, j]);
    })";
  for (const auto& dims : std::vector<std::array<std::int64_t, 3>>{
           {1, 1, 1}, {7, 5, 9}, {13, 1, 17}, {33, 31, 3}, {0, 3, 4}, {3, 0, 4}, {2, 3, 0}}) {
    // Named copies, not a structured binding: the lambdas below capture them (clang 14
    // cannot capture a binding).
    const std::int64_t m = dims[0], l = dims[1], n = dims[2];
    expect_all_agree<T>(source, {{m, l}, {l, n}}, [&](const auto& in) {
      std::vector<double> c(m * n, 0.0);
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j)
          for (std::int64_t k = 0; k < l; ++k) c[i * n + j] += at(in[0], {i, k}) * at(in[1], {k, j});
      return vectors{c};
    }, l);
  }
}

TYPED_TEST(SeedExample, MaxOverAxis) {
  using T = TypeParam;
  const std::string source = R"(function (I[M, N]) -> (O) {
        O[n: N] = >(I[m, n]);
    })";
  for (const shape& s : {shape{1, 1}, shape{7, 13}, shape{2, 29}, shape{0, 3}}) {
    expect_all_agree<T>(source, {s}, [&](const auto& in) {
      std::vector<double> o(s[1], 0.0);  // no value: zero
      for (std::int64_t n = 0; n < s[1]; ++n) {
        if (s[0] == 0) continue;
        o[n] = -std::numeric_limits<double>::infinity();
        for (std::int64_t m = 0; m < s[0]; ++m) o[n] = std::max(o[n], at(in[0], {m, n}));
      }
      return vectors{o};
    }, 1);
  }
}

TYPED_TEST(SeedExample, GlobalMin) {
  using T = TypeParam;
  const std::string source = R"(function (I) -> (O) {
        Neg = -I;
        O_Neg[] = >(Neg[i, j, k]);
        O = -O_Neg;
    })";
  for (const shape& s : {shape{1, 1, 1}, shape{3, 5, 7}, shape{2, 0, 3}}) {
    expect_all_agree<T>(source, {s}, [&](const auto& in) {
      if (in[0].values.empty()) return vectors{{0.0}};
      return vectors{{static_cast<double>(*std::min_element(in[0].values.begin(), in[0].values.end()))}};
    }, 1);
  }
}

TYPED_TEST(SeedExample, AverageOverAxis) {
  using T = TypeParam;
  const std::string source = R"(function (I[X, Y]) -> (O) {
        Sum[y: Y] = +(I[x, y]);
        O = Sum / X;
    })";
  for (const shape& s : {shape{1, 1}, shape{7, 11}, shape{13, 2}}) {
    expect_all_agree<T>(source, {s}, [&](const auto& in) {
      std::vector<double> o(s[1], 0.0);
      for (std::int64_t x = 0; x < s[0]; ++x)
        for (std::int64_t y = 0; y < s[1]; ++y) o[y] += at(in[0], {x, y});
      for (auto& v : o) v /= static_cast<double>(s[0]);
      return vectors{o};
    }, s[0]);
  }
}

TYPED_TEST(SeedExample, GlobalAverageInStagesAndMerged) {
  using T = TypeParam;
  const std::string staged = R"(function (I[X, Y]) -> (O) {
        Sum[] = +(I[x, y]);
        PartialMean = Sum / X;
        O = PartialMean / Y;
    })";
  const std::string merged = R"(function (I[X, Y]) -> (O) {
        Sum[] = +(I[x, y]);
        O = Sum / (X * Y);
    })";
  for (const auto* source : {&staged, &merged})
    for (const shape& s : {shape{1, 1}, shape{7, 11}, shape{5, 3}}) {
      expect_all_agree<T>(*source, {s}, [&](const auto& in) {
        double sum = 0;
        for (const auto v : in[0].values) sum += v;
        return vectors{{sum / static_cast<double>(s[0] * s[1])}};
      }, s[0] * s[1]);
    }
}

std::vector<double> max_pool(const std::vector<double>& in, std::int64_t out_size) {
  std::vector<double> o(out_size, 0.0);
  for (std::int64_t i = 0; i < out_size; ++i) {
    double m = -std::numeric_limits<double>::infinity();
    bool any = false;
    for (std::int64_t j = 0; j < 2; ++j)
      if (2 * i + j < static_cast<std::int64_t>(in.size())) {
        m = std::max(m, in[2 * i + j]);
        any = true;
      }
    o[i] = any ? m : 0.0;
  }
  return o;
}

TYPED_TEST(SeedExample, MaxPool1DRoundingDown) {
  using T = TypeParam;
  const std::string source = R"(function (I[N]) -> (O) {
        O[i: N / 2] = >(I[2 * i + j]), j < 2;
    })";
  for (const std::int64_t n : {1, 2, 7, 10, 0}) {
    expect_all_agree<T>(source, {{n}}, [&](const auto& in) {
      return vectors{max_pool({in[0].values.begin(), in[0].values.end()}, n / 2)};
    }, 1);
  }
}

TYPED_TEST(SeedExample, MaxPool1DRoundingUpUsesASmallerPoolAtTheEdge) {
  using T = TypeParam;
  const std::string source = R"(function (I[N]) -> (O) {
        O[i: (N + 1) / 2] = >(I[2 * i + j]), j < 2;
    })";
  for (const std::int64_t n : {1, 2, 7, 10, 0}) {
    expect_all_agree<T>(source, {{n}}, [&](const auto& in) {
      return vectors{max_pool({in[0].values.begin(), in[0].values.end()}, (n + 1) / 2)};
    }, 1);
  }
}

TYPED_TEST(SeedExample, MaxPoolWithoutTheConstraintTakesTheMaxOfTheWholeTail) {
  // The seed's "wrong" version: j is only limited by 0 <= 2i + j < N, so O[i] = max over all of I.
  using T = TypeParam;
  const std::string source = R"(function (I[N]) -> (O) {
        O[i: N / 2] = >(I[2 * i + j]);
    })";
  for (const std::int64_t n : {2, 9}) {
    expect_all_agree<T>(source, {{n}}, [&](const auto& in) {
      const double m = *std::max_element(in[0].values.begin(), in[0].values.end());
      return vectors{std::vector<double>(n / 2, m)};
    }, 1);
  }
}

TYPED_TEST(SeedExample, SkippingWritesOnlyEvenEntries) {
  using T = TypeParam;
  const std::string source = R"(function (I[N, M]) -> (O) {
        O[2 * i: N] = +(I[2 * i, j]);
    })";
  for (const shape& s : {shape{1, 1}, shape{7, 3}, shape{8, 5}}) {
    expect_all_agree<T>(source, {s}, [&](const auto& in) {
      std::vector<double> o(s[0], 0.0);
      for (std::int64_t i = 0; i < s[0]; i += 2)
        for (std::int64_t j = 0; j < s[1]; ++j) o[i] += at(in[0], {i, j});
      return vectors{o};
    }, s[1]);
  }
}

std::vector<double> cumulative_sum(const std::vector<double>& in) {
  std::vector<double> o(in.size());
  double s = 0;
  for (std::size_t i = 0; i < in.size(); ++i) o[i] = s += in[i];
  return o;
}

TYPED_TEST(SeedExample, CumulativeSumWithAConstraintOnADifference) {
  using T = TypeParam;
  const std::string source = "function (I[N]) -> (O) { O[i: N] = +(I[k]), i - k < N; }";
  for (const std::int64_t n : {1, 2, 17, 0}) {
    expect_all_agree<T>(source, {{n}}, [&](const auto& in) {
      return vectors{cumulative_sum({in[0].values.begin(), in[0].values.end()})};
    }, n);
  }
}

TYPED_TEST(SeedExample, CumulativeSumWithASubtractedIndex) {
  using T = TypeParam;
  const std::string source = "function (I[N]) -> (O) { O[i: N] = +(I[i - j]), j < N; }";
  for (const std::int64_t n : {1, 2, 17, 0}) {
    expect_all_agree<T>(source, {{n}}, [&](const auto& in) {
      return vectors{cumulative_sum({in[0].values.begin(), in[0].values.end()})};
    }, n);
  }
}

TYPED_TEST(SeedExample, Convolution1D) {
  using T = TypeParam;
  const std::string source = R"(function (I[N, L, CI], K[LK, CI, CO]) -> (O) {
        O[n, x, co: N, L - LK + 1, CO] = +(I[n, x + k, ci] * K[k, ci, co]);
    })";
  for (const auto& dims : std::vector<std::array<std::int64_t, 5>>{
           {1, 1, 1, 1, 1}, {2, 11, 3, 3, 5}, {3, 8, 1, 8, 2}, {1, 5, 7, 2, 9}}) {
    // Named copies, not a structured binding: the lambdas below capture them (clang 14
    // cannot capture a binding).
    const std::int64_t n = dims[0], l = dims[1], ci = dims[2], lk = dims[3], co = dims[4];
    expect_all_agree<T>(source, {{n, l, ci}, {lk, ci, co}}, [&](const auto& in) {
      const std::int64_t lx = l - lk + 1;
      std::vector<double> o(n * lx * co, 0.0);
      for (std::int64_t b = 0; b < n; ++b)
        for (std::int64_t x = 0; x < lx; ++x)
          for (std::int64_t c = 0; c < co; ++c)
            for (std::int64_t k = 0; k < lk; ++k)
              for (std::int64_t i = 0; i < ci; ++i)
                o[(b * lx + x) * co + c] += at(in[0], {b, x + k, i}) * at(in[1], {k, i, c});
      return vectors{o};
    }, lk * ci);
  }
}

TYPED_TEST(SeedExample, DilatedConvolution2D) {
  using T = TypeParam;
  const std::string source = R"(function (I[N, Lx, Ly, CI], K[LKx, LKy, CI, CO]) -> (O) {
        O[n, x, y, co: N, Lx - 2 * (LKx - 1), Ly - 3 * (LKy - 1), CO] =
                +(I[n, x + 2 * kx, y + 3 * ky, ci] * K[kx, ky, ci, co]);
    })";
  for (const auto& dims : std::vector<std::array<std::int64_t, 7>>{
           {1, 1, 1, 1, 1, 1, 1}, {2, 9, 11, 3, 3, 3, 5}, {1, 7, 13, 2, 2, 4, 3}, {3, 5, 7, 1, 3, 3, 1}}) {
    // Named copies, not a structured binding: the lambdas below capture them (clang 14
    // cannot capture a binding).
    const std::int64_t n = dims[0], lx = dims[1], ly = dims[2], ci = dims[3], kx = dims[4], ky = dims[5], co = dims[6];
    expect_all_agree<T>(source, {{n, lx, ly, ci}, {kx, ky, ci, co}}, [&](const auto& in) {
      const std::int64_t ox = lx - 2 * (kx - 1), oy = ly - 3 * (ky - 1);
      std::vector<double> o(n * ox * oy * co, 0.0);
      for (std::int64_t b = 0; b < n; ++b)
        for (std::int64_t x = 0; x < ox; ++x)
          for (std::int64_t y = 0; y < oy; ++y)
            for (std::int64_t c = 0; c < co; ++c)
              for (std::int64_t i = 0; i < kx; ++i)
                for (std::int64_t j = 0; j < ky; ++j)
                  for (std::int64_t d = 0; d < ci; ++d)
                    o[((b * ox + x) * oy + y) * co + c] +=
                        at(in[0], {b, x + 2 * i, y + 3 * j, d}) * at(in[1], {i, j, d, c});
      return vectors{o};
    }, kx * ky * ci);
  }
}

}  // namespace
}  // namespace tessera::tile
