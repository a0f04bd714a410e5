// The reference interpreter implements the seed's valid indices exactly: checked by hand on
// small cases and against brute force over a large box on random index spaces.
#include <gmock/gmock.h>

#include <map>
#include <random>
#include <set>

#include "tile_testing.hpp"

namespace tessera::tile {
namespace {

using point = std::vector<std::int64_t>;

std::set<point> valid_points(const index_space& space) {
  std::set<point> out;
  for_each_valid_point(space, [&](std::span<const std::int64_t> x) { out.insert(point(x.begin(), x.end())); });
  return out;
}

index_row row(std::vector<rational> coefficients, rational constant, std::int64_t bound, bool integral = true) {
  return index_row{std::move(coefficients), constant, bound, integral};
}

TEST(ValidIndices, SkippingNeedsIntegerIndices) {
  // O[2 * i: 5] = +(I[2 * i]): i = 1/2 gives in-range indices but is not an integer.
  index_space s;
  s.variables = 1;
  s.output_rows = {row({2}, 0, 5)};
  s.operand_rows = {{row({2}, 0, 5)}};
  EXPECT_EQ(valid_points(s), (std::set<point>{{0}, {1}, {2}}));
}

TEST(ValidIndices, EveryTensorIndexMustBeAnIntegerInRange) {
  // I[i / 2] with i in [0, 6): only even i give integer indices.
  index_space s;
  s.variables = 1;
  s.output_rows = {row({1}, 0, 6)};
  s.operand_rows = {{row({rational(1, 2)}, 0, 3)}};
  EXPECT_EQ(valid_points(s), (std::set<point>{{0}, {2}, {4}}));
}

TEST(ValidIndices, ConstraintsNeedNotBeIntegers) {
  // j / 2 < 2 means 0 <= j / 2 < 2: j in {0, 1, 2, 3}.
  index_space s;
  s.variables = 1;
  s.output_rows = {row({0}, 0, 1)};
  s.constraint_rows = {row({rational(1, 2)}, 0, 2, false)};
  EXPECT_EQ(valid_points(s), (std::set<point>{{0}, {1}, {2}, {3}}));
}

TEST(ValidIndices, IndicesMayBeNegativeWithoutAConstraint) {
  // The seed's max pool without `j < 2`: i = 1, j = -1 is valid.
  const program p = check(std::string_view("function (I[N]) -> (O) { O[i: N / 2] = >(I[2 * i + j]); }"));
  const std::vector<shape> shapes{{6}};
  const auto points = valid_points(*bind_shapes(p, shapes).spaces[0]);
  EXPECT_TRUE(points.count({1, -1}));
  EXPECT_EQ(points.size(), 3u * 6u);
}

TEST(Interpreter, UnwrittenOutputsAreZeroForEveryAggregation) {
  for (const char* agg : {"+", "*", ">", "<"}) {
    const function f = compile(fmt::format("function (I[N]) -> (O) {{ O[i: N + 2] = {}(I[i]); }}", agg));
    const auto out = interpret<double>(f.checked(), {host_tensor<double>({2}, {-3.0, -5.0})});
    EXPECT_THAT(out[0].values, ::testing::ElementsAre(-3.0, -5.0, 0.0, 0.0)) << agg;
  }
}

TEST(Interpreter, AggregatesEveryValidPoint) {
  const function f = compile("function (I[N]) -> (S, P, X, M) { S[] = +(I[i]); P[] = *(I[i]); X[] = >(I[i]); M[] = <(I[i]); }");
  const auto out = interpret<double>(f.checked(), {host_tensor<double>({4}, {2.0, -1.0, 3.0, 0.5})});
  EXPECT_DOUBLE_EQ(out[0].values[0], 4.5);
  EXPECT_DOUBLE_EQ(out[1].values[0], -3.0);
  EXPECT_DOUBLE_EQ(out[2].values[0], 3.0);
  EXPECT_DOUBLE_EQ(out[3].values[0], -1.0);
}

// ---- random index spaces against brute force --------------------------------------------

struct random_space {
  index_space space;
  bool ok = false;
};

/// A random bounded space of 1-3 variables with small (sometimes rational) coefficients.
random_space make_random_space(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> vars(1, 3), coefficient(-2, 2), constant(-3, 3), bound(1, 6), count(0, 2),
      denominator(1, 3), coin(0, 3);
  random_space r;
  index_space& s = r.space;
  s.variables = static_cast<std::size_t>(vars(rng));
  auto random_row = [&](bool integral) {
    index_row x;
    const int d = coin(rng) == 0 ? denominator(rng) : 1;
    for (std::size_t v = 0; v < s.variables; ++v) x.coefficients.push_back(rational(coefficient(rng), d));
    x.constant = rational(constant(rng), coin(rng) == 0 ? denominator(rng) : 1);
    x.bound = bound(rng);
    x.integral = integral;
    return x;
  };
  for (int i = count(rng); i > 0; --i) s.output_rows.push_back(random_row(true));
  s.operand_rows.emplace_back();
  for (int i = count(rng) + 1; i > 0; --i) s.operand_rows[0].push_back(random_row(true));
  for (int i = count(rng); i > 0; --i) s.constraint_rows.push_back(random_row(false));
  // Bounded only with full column rank: the checker refuses the rest.
  std::vector<std::vector<rational>> m;
  for (const auto* x : s.all_rows()) m.push_back(x->coefficients);
  std::size_t rank = 0;
  for (std::size_t c = 0; c < s.variables && rank < m.size(); ++c) {
    std::size_t p = rank;
    while (p < m.size() && m[p][c].is_zero()) ++p;
    if (p == m.size()) continue;
    std::swap(m[p], m[rank]);
    for (std::size_t i = 0; i < m.size(); ++i)
      if (i != rank && !m[i][c].is_zero()) {
        const rational f = m[i][c] / m[rank][c];
        for (std::size_t k = 0; k < s.variables; ++k) m[i][k] -= f * m[rank][k];
      }
    ++rank;
  }
  r.ok = rank == s.variables;
  return r;
}

bool satisfies(const index_row& x, const point& p) {
  rational v = x.constant;
  for (std::size_t i = 0; i < p.size(); ++i) v += x.coefficients[i] * rational(p[i]);
  if (x.integral && !v.is_integer()) return false;
  return v >= rational(0) && v < rational(x.bound);
}

/// Every valid point with all coordinates in [-radius, radius]; false if one lies on the edge.
bool brute_force(const index_space& s, std::int64_t radius, std::set<point>& out) {
  point p(s.variables, -radius);
  const auto rows = s.all_rows();
  for (;;) {
    if (std::all_of(rows.begin(), rows.end(), [&](const index_row* x) { return satisfies(*x, p); })) {
      for (const auto c : p)
        if (c == radius || c == -radius) return false;
      out.insert(p);
    }
    std::size_t k = 0;
    while (k < p.size() && ++p[k] > radius) p[k++] = -radius;
    if (k == p.size()) return true;
  }
}

TEST(ValidIndices, MatchBruteForceOnRandomSpaces) {
  std::mt19937_64 rng(tessera::testing::fresh_seed());
  int compared = 0;
  for (int attempt = 0; attempt < 400 && compared < 120; ++attempt) {
    auto r = make_random_space(rng);
    if (!r.ok) continue;
    std::set<point> expected;
    if (!brute_force(r.space, 30, expected)) continue;
    // Inside the box: exactly the brute-force points; outside it: only valid points.
    std::set<point> inside;
    const auto rows = r.space.all_rows();
    for (const auto& p : valid_points(r.space)) {
      EXPECT_TRUE(std::all_of(rows.begin(), rows.end(), [&](const index_row* x) { return satisfies(*x, p); }));
      if (std::all_of(p.begin(), p.end(), [](std::int64_t c) { return c > -30 && c < 30; })) inside.insert(p);
    }
    EXPECT_EQ(inside, expected) << "attempt " << attempt;
    ++compared;
  }
  EXPECT_GT(compared, 50);
}

}  // namespace
}  // namespace tessera::tile
