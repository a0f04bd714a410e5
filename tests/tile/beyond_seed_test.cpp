// Cases beyond the seed: padding, strided pooling, transposed convolution (fractional index
// coefficients), the `=` aggregation, products, min, `+` as combination, and the elementwise
// language (builtins, comparisons, `?:`, broadcasting).
#include <gmock/gmock.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "tile_testing.hpp"

namespace tessera::tile {
namespace {

using testing::at;
using testing::expect_all_agree;
using vectors = std::vector<std::vector<double>>;

TEST(BeyondSeed, PaddedConvolution2D) {
  const std::string source = R"(function (I[N, X, Y, CI], K[KX, KY, CI, CO]) -> (O) {
        O[n, x, y, co: N, X, Y, CO] = +(I[n, x + i - 1, y + j - 1, ci] * K[i, j, ci, co]);
    })";
  for (const auto& dims : std::vector<std::array<std::int64_t, 5>>{
           {1, 1, 1, 1, 1}, {2, 7, 5, 3, 4}, {1, 2, 9, 2, 3}}) {
    // Named copies, not a structured binding: the lambdas below capture them (clang 14
    // cannot capture a binding).
    const std::int64_t n = dims[0], xs = dims[1], ys = dims[2], ci = dims[3], co = dims[4];
    expect_all_agree<float>(source, {{n, xs, ys, ci}, {3, 3, ci, co}}, [&](const auto& in) {
      std::vector<double> o(n * xs * ys * co, 0.0);
      for (std::int64_t b = 0; b < n; ++b)
        for (std::int64_t x = 0; x < xs; ++x)
          for (std::int64_t y = 0; y < ys; ++y)
            for (std::int64_t c = 0; c < co; ++c)
              for (std::int64_t i = 0; i < 3; ++i)
                for (std::int64_t j = 0; j < 3; ++j) {
                  const std::int64_t px = x + i - 1, py = y + j - 1;
                  if (px < 0 || px >= xs || py < 0 || py >= ys) continue;  // zero padding
                  for (std::int64_t d = 0; d < ci; ++d)
                    o[((b * xs + x) * ys + y) * co + c] += at(in[0], {b, px, py, d}) * at(in[1], {i, j, d, c});
                }
      return vectors{o};
    }, 9 * ci);
  }
}

// A flat sum is not nesting (issue 15: 201 terms were refused as "nested more than 200
// levels"); a long one runs on the device as on the host.
TEST(BeyondSeed, AFlatSumOfManyTermsRunsEverywhere) {
  for (const int terms : {201, max_expression_height + 1}) {
    std::string sum = "A";
    for (int t = 1; t < terms; ++t) sum += t % 2 ? " + B" : " + A";
    const std::string source = "function (A[N], B[N]) -> (O) { O = " + sum + "; }";
    for (const std::int64_t n : {1, 37}) {
      expect_all_agree<float>(source, {{n}, {n}}, [&](const auto& in) {
        std::vector<double> o(n, 0.0);
        for (std::int64_t i = 0; i < n; ++i)
          for (int t = 0; t < terms; ++t) o[i] += at(in[t % 2], {i});
        return vectors{o};
      }, terms);
    }
  }
}

TEST(BeyondSeed, MaxPool2x2Stride2) {
  const std::string source = R"(function (I[N, X, Y, C]) -> (O) {
        O[n, x, y, c: N, X / 2, Y / 2, C] = >(I[n, 2 * x + i, 2 * y + j, c]), i < 2, j < 2;
    })";
  for (const shape& s : {shape{1, 2, 2, 1}, shape{2, 7, 9, 3}, shape{1, 8, 5, 2}, shape{1, 1, 4, 2}}) {
    expect_all_agree<float>(source, {s}, [&](const auto& in) {
      const std::int64_t ox = s[1] / 2, oy = s[2] / 2;
      std::vector<double> o(s[0] * ox * oy * s[3]);
      for (std::int64_t b = 0; b < s[0]; ++b)
        for (std::int64_t x = 0; x < ox; ++x)
          for (std::int64_t y = 0; y < oy; ++y)
            for (std::int64_t c = 0; c < s[3]; ++c) {
              double m = -std::numeric_limits<double>::infinity();
              for (std::int64_t i = 0; i < 2; ++i)
                for (std::int64_t j = 0; j < 2; ++j) m = std::max(m, at(in[0], {b, 2 * x + i, 2 * y + j, c}));
              o[((b * ox + x) * oy + y) * s[3] + c] = m;
            }
      return vectors{o};
    }, 1);
  }
}

TEST(BeyondSeed, TransposedConvolutionWithFractionalIndexCoefficients) {
  // Output position x receives input position i through kernel tap k when x = s*i + k, written
  // with the rational index (x - k) / s: only integer values of it are valid.
  for (const std::int64_t stride : {2, 3}) {
    const std::string source = fmt::format(R"(function (I[N, L, CI], K[LK, CI, CO]) -> (O) {{
        O[n, x, co: N, {0} * (L - 1) + LK, CO] = +(I[n, (x - k) / {0}, ci] * K[k, ci, co]);
    }})",
                                           stride);
    for (const auto& dims : std::vector<std::array<std::int64_t, 5>>{
             {1, 1, 1, 1, 1}, {2, 5, 3, 3, 2}, {1, 7, 2, 4, 3}, {1, 3, 1, 5, 1}}) {
      // Named copies, not a structured binding: the lambdas below capture them (clang 14
      // cannot capture a binding).
      const std::int64_t n = dims[0], l = dims[1], ci = dims[2], lk = dims[3], co = dims[4];
      expect_all_agree<float>(source, {{n, l, ci}, {lk, ci, co}}, [&](const auto& in) {
        const std::int64_t lo = stride * (l - 1) + lk;
        std::vector<double> o(n * lo * co, 0.0);
        for (std::int64_t b = 0; b < n; ++b)
          for (std::int64_t i = 0; i < l; ++i)
            for (std::int64_t k = 0; k < lk; ++k)
              for (std::int64_t c = 0; c < co; ++c)
                for (std::int64_t d = 0; d < ci; ++d)
                  o[(b * lo + stride * i + k) * co + c] += at(in[0], {b, i, d}) * at(in[1], {k, d, c});
        return vectors{o};
      }, lk * ci);
    }
  }
}

TEST(BeyondSeed, TransposedConvolution2DWithStride2) {
  const std::string source = R"(function (I[N, X, Y, CI], K[KX, KY, CI, CO]) -> (O) {
        O[n, x, y, co: N, 2 * (X - 1) + KX, 2 * (Y - 1) + KY, CO] =
            +(I[n, (x - i) / 2, (y - j) / 2, ci] * K[i, j, ci, co]);
    })";
  const std::int64_t n = 1, xs = 4, ys = 3, ci = 2, kx = 3, ky = 2, co = 3;
  expect_all_agree<float>(source, {{n, xs, ys, ci}, {kx, ky, ci, co}}, [&](const auto& in) {
    const std::int64_t ox = 2 * (xs - 1) + kx, oy = 2 * (ys - 1) + ky;
    std::vector<double> o(n * ox * oy * co, 0.0);
    for (std::int64_t x = 0; x < xs; ++x)
      for (std::int64_t y = 0; y < ys; ++y)
        for (std::int64_t i = 0; i < kx; ++i)
          for (std::int64_t j = 0; j < ky; ++j)
            for (std::int64_t c = 0; c < co; ++c)
              for (std::int64_t d = 0; d < ci; ++d)
                o[((2 * x + i) * oy + 2 * y + j) * co + c] += at(in[0], {0, x, y, d}) * at(in[1], {i, j, d, c});
    return vectors{o};
  }, kx * ky * ci);
}

TEST(BeyondSeed, AssignmentThatWritesEachElementOnceIsAccepted) {
  const std::string source = "function (I[M, N]) -> (O) { O[j, i: N, M] = =(I[i, j]); }";
  for (const shape& s : {shape{1, 1}, shape{5, 7}}) {
    expect_all_agree<float>(source, {s}, [&](const auto& in) {
      std::vector<double> o(s[0] * s[1]);
      for (std::int64_t i = 0; i < s[0]; ++i)
        for (std::int64_t j = 0; j < s[1]; ++j) o[j * s[0] + i] = at(in[0], {i, j});
      return vectors{o};
    }, 1);
  }
}

TEST(BeyondSeed, AssignmentThatMayWriteAnElementTwiceIsRejected) {
  try {
    compile("function (I[M, N]) -> (O) {\n  O[i: M] = =(I[i, j]);\n}");
    FAIL() << "expected a check_error";
  } catch (const check_error& e) {
    EXPECT_EQ(e.position(), (source_position{2, 13}));
    EXPECT_THAT(e.message(), ::testing::HasSubstr("may write an element of 'O' more than once"));
    EXPECT_THAT(e.message(), ::testing::HasSubstr("'j'"));
  }
}

TEST(BeyondSeed, ProductAggregation) {
  const std::string source = "function (I[M, N]) -> (O) { O[n: N] = *(I[m, n]); }";
  for (const shape& s : {shape{1, 1}, shape{6, 5}, shape{0, 3}}) {
    expect_all_agree<double>(source, {s}, [&](const auto& in) {
      std::vector<double> o(s[1], s[0] == 0 ? 0.0 : 1.0);  // no value at all: zero
      for (std::int64_t m = 0; m < s[0]; ++m)
        for (std::int64_t n = 0; n < s[1]; ++n) o[n] *= at(in[0], {m, n});
      return vectors{o};
    }, s[0]);
  }
}

TEST(BeyondSeed, ProductOverAWindowWithTwoTensors) {
  const std::string source = "function (A[N], B[N]) -> (O) { O[i: N] = *(A[i + j] * B[i]), j < 3; }";
  expect_all_agree<float>(source, {{7}, {7}}, [&](const auto& in) {
    std::vector<double> o(7);
    for (std::int64_t i = 0; i < 7; ++i) {
      double p = 1;
      for (std::int64_t j = 0; j < 3 && i + j < 7; ++j) p *= at(in[0], {i + j}) * at(in[1], {i});
      o[i] = p;
    }
    return vectors{o};
  }, 6);
}

TEST(BeyondSeed, MinAggregationWithPlusCombination) {
  // A (min, +) matrix product: shortest paths through one intermediate node.
  const std::string source = "function (A[M, L], B[L, N]) -> (C) { C[i, j: M, N] = <(A[i, k] + B[k, j]); }";
  expect_all_agree<float>(source, {{5, 7}, {7, 3}}, [&](const auto& in) {
    std::vector<double> c(15, std::numeric_limits<double>::infinity());
    for (std::int64_t i = 0; i < 5; ++i)
      for (std::int64_t j = 0; j < 3; ++j)
        for (std::int64_t k = 0; k < 7; ++k) c[i * 3 + j] = std::min(c[i * 3 + j], at(in[0], {i, k}) + at(in[1], {k, j}));
    return vectors{c};
  }, 2);
}

TEST(BeyondSeed, DiagonalOutputLeavesTheRestZero) {
  const std::string source = "function (I[N]) -> (O) { O[i, i: N, N] = +(I[i]); }";
  expect_all_agree<float>(source, {{6}}, [&](const auto& in) {
    std::vector<double> o(36, 0.0);
    for (std::int64_t i = 0; i < 6; ++i) o[i * 6 + i] = at(in[0], {i});
    return vectors{o};
  }, 1);
}

TEST(BeyondSeed, ScalarOperandsAndConstantIndices) {
  const std::string source = "function (S[], I[N]) -> (O) { O[i: N - 1] = +(I[i + 1] * S[]); }";
  expect_all_agree<float>(source, {{}, {9}}, [&](const auto& in) {
    std::vector<double> o(8);
    for (std::int64_t i = 0; i < 8; ++i) o[i] = at(in[1], {i + 1}) * in[0].values[0];
    return vectors{o};
  }, 1);
}

TEST(BeyondSeed, ElementwiseBuiltinsComparisonsAndConditionals) {
  const std::string source = R"(function (A[N, M], B[M], C[]) -> (O, P) {
        # broadcasting: B along rows, C everywhere
        X = A * B + C;
        O = X > 0 ? sqrt(abs(X)) + exp(-X) : tanh(X) - sigmoid(B);
        P = max(A, B) - min(A, C) + pow(abs(A), 1.5) + relu(A - 0.25) + floor(A * 3) + ceil(B * 2)
            + log(abs(A) + 1) + sin(A) * cos(B) + tan(A / 2) + (A == A) + (A != B) + (A <= B) + (A >= C) + (A < 0) + N;
    })";
  const std::int64_t n = 5, m = 7;
  expect_all_agree<double>(source, {{n, m}, {m}, {}}, [&](const auto& in) {
    std::vector<double> o(n * m), p(n * m);
    const double c = in[2].values[0];
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < m; ++j) {
        const double a = at(in[0], {i, j}), b = at(in[1], {j});
        const double x = a * b + c;
        o[i * m + j] = x > 0 ? std::sqrt(std::abs(x)) + std::exp(-x) : std::tanh(x) - 1 / (1 + std::exp(-b));
        p[i * m + j] = std::max(a, b) - std::min(a, c) + std::pow(std::abs(a), 1.5) + std::max(a - 0.25, 0.0) +
                       std::floor(a * 3) + std::ceil(b * 2) + std::log(std::abs(a) + 1) + std::sin(a) * std::cos(b) +
                       std::tan(a / 2) + 1.0 + (a != b) + (a <= b) + (a >= c) + (a < 0) + double(n);
      }
    return vectors{o, p};
  }, 16);
}

TEST(BeyondSeed, BroadcastingAlignsTrailingAxes) {
  const std::string source = "function (A[N, One, M], B[K, M]) -> (O) { O = A - B; }";
  expect_all_agree<float>(source, {{3, 1, 4}, {5, 4}}, [&](const auto& in) {
    std::vector<double> o(3 * 5 * 4);
    for (std::int64_t i = 0; i < 3; ++i)
      for (std::int64_t k = 0; k < 5; ++k)
        for (std::int64_t j = 0; j < 4; ++j) o[(i * 5 + k) * 4 + j] = at(in[0], {i, 0, j}) - at(in[1], {k, j});
    return vectors{o};
  }, 1);
}

TEST(BeyondSeed, MultipleOutputsAndIntermediates) {
  const std::string source = R"(function (A[M, L], B[L, N]) -> (C, Rowsum, Scaled) {
        C[i, j: M, N] = +(A[i, k] * B[k, j]);
        Rowsum[i: M] = +(C[i, j]);
        Scaled = C / Rowsum[];
    })";
  // Rowsum[] indexes a rank-1 tensor with no index: rejected; the test below uses the right form.
  EXPECT_THROW(compile(source), check_error);
  const std::string fixed = R"(function (A[M, L], B[L, N]) -> (C, Rowsum, Total) {
        C[i, j: M, N] = +(A[i, k] * B[k, j]);
        Rowsum[i: M] = +(C[i, j]);
        Sum[] = +(Rowsum[i]);
        Total = Sum * 2 + M;
    })";
  expect_all_agree<float>(fixed, {{4, 3}, {3, 5}}, [&](const auto& in) {
    std::vector<double> c(20, 0.0), r(4, 0.0);
    double total = 0;
    for (std::int64_t i = 0; i < 4; ++i)
      for (std::int64_t j = 0; j < 5; ++j) {
        for (std::int64_t k = 0; k < 3; ++k) c[i * 5 + j] += at(in[0], {i, k}) * at(in[1], {k, j});
        r[i] += c[i * 5 + j];
        total += c[i * 5 + j];
      }
    return vectors{c, r, {total * 2 + 4}};
  }, 15);
}

}  // namespace
}  // namespace tessera::tile
