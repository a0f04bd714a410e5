// The loop nests of the lowering visit exactly the valid points of each output element: run
// on the host, they must reproduce the reference interpreter's points, grouped by output.
#include <gmock/gmock.h>

#include <map>
#include <random>

#include "tile_testing.hpp"

namespace tessera::tile {
namespace {

using values = std::vector<std::int64_t>;  // the integral rows' values at one point

std::int64_t evaluate(const integer_affine& a, const values& loops, const values& parameters) {
  std::int64_t v = a.constant;
  for (std::size_t i = 0; i < a.loops.size(); ++i)
    if (a.loops[i] != 0) v += a.loops[i] * loops.at(i);
  for (std::size_t j = 0; j < a.parameters.size(); ++j)
    if (a.parameters[j] != 0) v += a.parameters[j] * parameters.at(j);
  return v;
}

/// Runs nest on the host for every output element; returns, per element, the sorted list of
/// the integral row values of every point the loops visit.
std::map<values, std::vector<values>> run_nest(const loop_nest& nest, const index_space& space) {
  std::map<values, std::vector<values>> visited;
  if (nest.empty) return visited;
  values output(space.output_rows.size(), 0);
  const auto rows = space.all_rows();
  for (;;) {
    values parameters(nest.parameters, 0);
    std::copy(output.begin(), output.end(), parameters.begin());
    bool pass = true;
    for (const auto& step : nest.steps) {
      const std::int64_t v = evaluate(step.value, {}, parameters);
      switch (step.what) {
        case guard_step::kind::non_negative: pass = pass && v >= 0; break;
        case guard_step::kind::zero: pass = pass && v == 0; break;
        case guard_step::kind::divisible: pass = pass && v % step.divisor == 0; break;
        case guard_step::kind::define:
          if (pass) parameters[step.defines] = v / step.divisor;
          break;
      }
    }
    if (pass) {
      values loops(nest.loops.size(), 0);
      auto recurse = [&](auto&& self, std::size_t level) -> void {
        if (level == nest.loops.size()) {
          values point;
          for (std::size_t r = 0; r < rows.size(); ++r)
            if (nest.row_values[r]) point.push_back(evaluate(*nest.row_values[r], loops, parameters));
          visited[output].push_back(point);
          return;
        }
        std::int64_t lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
        for (const auto& b : nest.loops[level].lower) lo = std::max(lo, ceil_div(evaluate(b.numerator, loops, parameters), b.divisor));
        for (const auto& b : nest.loops[level].upper) hi = std::min(hi, floor_div(evaluate(b.numerator, loops, parameters), b.divisor));
        for (loops[level] = lo; loops[level] <= hi; ++loops[level]) self(self, level + 1);
      };
      recurse(recurse, 0);
    }
    std::size_t k = output.size();
    while (k > 0) {
      if (++output[k - 1] < space.output_rows[k - 1].bound) break;
      output[k - 1] = 0;
      --k;
    }
    if (k == 0) break;
  }
  for (auto& [o, points] : visited) std::sort(points.begin(), points.end());
  std::erase_if(visited, [](const auto& item) { return item.second.empty(); });
  return visited;
}

std::map<values, std::vector<values>> reference_points(const index_space& space) {
  std::map<values, std::vector<values>> out;
  const auto rows = space.all_rows();
  for_each_valid_point(space, [&](std::span<const std::int64_t> x) {
    values point, output;
    for (std::size_t r = 0; r < rows.size(); ++r) {
      if (!rows[r]->integral) continue;
      rational v = rows[r]->constant;
      for (std::size_t i = 0; i < x.size(); ++i) v += rows[r]->coefficients[i] * rational(x[i]);
      point.push_back(v.numerator());
      if (r < space.output_rows.size()) output.push_back(v.numerator());
    }
    out[output].push_back(point);
  });
  for (auto& [o, points] : out) std::sort(points.begin(), points.end());
  return out;
}

void expect_exact(const std::string& source, const std::vector<shape>& shapes) {
  const program p = check(std::string_view(source));
  const binding b = bind_shapes(p, shapes);
  for (std::size_t s = 0; s < p.statements.size(); ++s) {
    if (!b.spaces[s]) continue;
    const loop_nest nest = derive_loop_nest(*b.spaces[s], std::get<contraction>(p.statements[s]).index_names);
    EXPECT_EQ(run_nest(nest, *b.spaces[s]), reference_points(*b.spaces[s])) << source << "\n" << describe(nest);
  }
}

TEST(LoopNest, SeedExamplesVisitExactlyTheValidPoints) {
  expect_exact("function (I[N]) -> (O) { O[i: (N + 1) / 2] = >(I[2 * i + j]), j < 2; }", {{9}});
  expect_exact("function (I[N]) -> (O) { O[i: N / 2] = >(I[2 * i + j]); }", {{9}});
  expect_exact("function (I[N, M]) -> (O) { O[2 * i: N] = +(I[2 * i, j]); }", {{7, 3}});
  expect_exact("function (I[N]) -> (O) { O[i: N] = +(I[k]), i - k < N; }", {{8}});
  expect_exact("function (I[N]) -> (O) { O[i: N] = +(I[i - j]), j < N; }", {{8}});
  expect_exact(R"(function (I[N, Lx, Ly, CI], K[LKx, LKy, CI, CO]) -> (O) {
        O[n, x, y, co: N, Lx - 2 * (LKx - 1), Ly - 3 * (LKy - 1), CO] =
                +(I[n, x + 2 * kx, y + 3 * ky, ci] * K[kx, ky, ci, co]); })",
               {{2, 7, 8, 2}, {2, 2, 2, 3}});
}

TEST(LoopNest, FractionalCoefficientsBecomeStridesNotTests) {
  const program p = check(std::string_view("function (I[N], K[M]) -> (O) { O[x: 2 * N + M - 2] = +(I[(x - k) / 2] * K[k]); }"));
  const std::vector<shape> shapes{{5}, {3}};
  const binding b = bind_shapes(p, shapes);
  const loop_nest nest = derive_loop_nest(*b.spaces[0], {"x", "k"});
  // One loop over the input position, no divisibility test: k = x - 2 r steps by 2 implicitly.
  ASSERT_EQ(nest.loops.size(), 1u);
  EXPECT_TRUE(std::none_of(nest.steps.begin(), nest.steps.end(),
                           [](const guard_step& s) { return s.what == guard_step::kind::divisible; }));
  expect_exact("function (I[N], K[M]) -> (O) { O[x: 2 * N + M - 2] = +(I[(x - k) / 2] * K[k]); }", {{5}, {3}});
  expect_exact("function (I[N], K[M]) -> (O) { O[x: 3 * N + M - 3] = +(I[(x - k) / 3] * K[k]); }", {{4}, {5}});
}

TEST(LoopNest, ConstantBoundsForAConvolution) {
  const program p = check(std::string_view(R"(function (I[N, X, C], K[KX, C, D]) -> (O) {
        O[n, x, d: N, X - KX + 1, D] = +(I[n, x + k, c] * K[k, c, d]); })"));
  const std::vector<shape> shapes{{2, 10, 3}, {3, 3, 4}};
  const binding b = bind_shapes(p, shapes);
  const loop_nest nest = derive_loop_nest(*b.spaces[0], std::get<contraction>(p.statements[0]).index_names);
  EXPECT_TRUE(nest.steps.empty());
  ASSERT_EQ(nest.loops.size(), 2u);
  for (const auto& level : nest.loops) {
    // The redundant bounds from the image (x + k < X) are pruned: one constant bound each way.
    ASSERT_EQ(level.lower.size(), 1u);
    ASSERT_EQ(level.upper.size(), 1u);
    EXPECT_FALSE(level.lower[0].numerator.uses_parameters());
    EXPECT_FALSE(level.upper[0].numerator.uses_parameters());
  }
}

TEST(LoopNest, EmptyWhenNoPointCanBeValid) {
  const program p = check(std::string_view("function (I[N]) -> (O) { O[i: N] = +(I[i + 1/2]); }"));
  const std::vector<shape> shapes{{4}};
  EXPECT_TRUE(derive_loop_nest(*bind_shapes(p, shapes).spaces[0], {"i"}).empty);
}

TEST(LoopNest, RandomContractionsVisitExactlyTheValidPoints) {
  std::mt19937_64 rng(tessera::testing::fresh_seed());
  std::uniform_int_distribution<int> coefficient(-2, 2), offset(-2, 2), pick(0, 3), size(1, 5), divisor(2, 3);
  const char* names[] = {"i", "j", "k"};
  int compared = 0;
  for (int attempt = 0; attempt < 300 && compared < 100; ++attempt) {
    // Random affine index expressions over i, j, k, sometimes divided by 2 or 3.
    auto expression = [&] {
      std::string e;
      for (const char* n : names) {
        const int c = coefficient(rng);
        if (c != 0) e += fmt::format(" + {} * {}", c, n);
      }
      e += fmt::format(" + {}", offset(rng));
      e = e.substr(3);
      if (pick(rng) == 0) e = fmt::format("({}) / {}", e, divisor(rng));
      return e;
    };
    const std::string source =
        fmt::format("function (A[P, Q], B[R]) -> (O) {{ O[{}, {}: {}, {}] = +(A[{}, {}] * B[{}]), {} < {}; }}",
                    expression(), expression(), size(rng), size(rng), expression(), expression(), expression(),
                    expression(), size(rng));
    try {
      check(std::string_view(source));
    } catch (const check_error&) {
      continue;  // unbounded ones are refused
    }
    expect_exact(source, {{size(rng), size(rng)}, {size(rng)}});
    ++compared;
  }
  EXPECT_GT(compared, 30);
}

}  // namespace
}  // namespace tessera::tile
