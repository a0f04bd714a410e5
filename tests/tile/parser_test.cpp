// The front end on valid programs: tokens, syntax trees, checked programs, bound shapes.
#include <gmock/gmock.h>

#include "tile_testing.hpp"

namespace tessera::tile {
namespace {

TEST(Lexer, TokensCarryTheirLineAndColumn) {
  const auto tokens = tokenize("function (A) # a comment\n  -> (O) { O = A >= 1.5e-3; }");
  ASSERT_GE(tokens.size(), 6u);
  EXPECT_EQ(tokens[0].kind, token_kind::keyword_function);
  EXPECT_EQ(tokens[4].kind, token_kind::arrow);
  EXPECT_EQ(tokens[4].position, (source_position{2, 3}));
  const auto ge = std::find_if(tokens.begin(), tokens.end(), [](const token& t) { return t.kind == token_kind::greater_equal; });
  ASSERT_NE(ge, tokens.end());
  EXPECT_EQ(ge->position, (source_position{2, 18}));
  EXPECT_EQ((ge + 1)->kind, token_kind::floating);
  EXPECT_DOUBLE_EQ((ge + 1)->floating, 1.5e-3);
  EXPECT_EQ(tokens.back().kind, token_kind::end_of_input);
}

TEST(Parser, ReadsTheHeader) {
  const auto f = parse("function (I0[N0, N1], I1[M0, M1, M2], I2, S[]) -> (O0, O1) { O0 = I2; O1 = I2; }");
  ASSERT_EQ(f.inputs.size(), 4u);
  EXPECT_EQ(f.inputs[1].name, "I1");
  EXPECT_EQ(f.inputs[1].dimensions.size(), 3u);
  EXPECT_FALSE(f.inputs[2].has_dimensions);
  EXPECT_TRUE(f.inputs[3].has_dimensions);
  EXPECT_TRUE(f.inputs[3].dimensions.empty());
  ASSERT_EQ(f.outputs.size(), 2u);
  EXPECT_EQ(f.outputs[1].name, "O1");
}

TEST(Parser, ReadsAContraction) {
  const auto f = parse(R"(function (I[N]) -> (O) {
        O[i: (N + 1) / 2] = >(I[2 * i + j]), j < 2;
    })");
  ASSERT_EQ(f.statements.size(), 1u);
  const auto& c = std::get<ast::contraction>(f.statements[0].body);
  EXPECT_EQ(c.output, "O");
  EXPECT_EQ(c.output_indices.size(), 1u);
  EXPECT_EQ(c.output_sizes.size(), 1u);
  EXPECT_EQ(c.aggregation, token_kind::greater);
  ASSERT_EQ(c.operands.size(), 1u);
  EXPECT_EQ(c.combination, token_kind::end_of_input);
  ASSERT_EQ(c.constraints.size(), 1u);
  EXPECT_EQ(c.constraints[0].position, (source_position{2, 46}));
}

TEST(Parser, ReadsEveryAggregationAndBothCombinations) {
  for (const char* agg : {"+", "*", ">", "<", "="})
    for (const char* comb : {"*", "+"}) {
      const auto f = parse(fmt::format("function (A[N], B[N]) -> (O) {{ O[i: N] = {}(A[i] {} B[i]); }}", agg, comb));
      const auto& c = std::get<ast::contraction>(f.statements[0].body);
      EXPECT_EQ(c.operands.size(), 2u);
      EXPECT_EQ(c.combination, *comb == '*' ? token_kind::star : token_kind::plus);
    }
}

TEST(Parser, ElementwisePrecedence) {
  const auto f = parse("function (A, B, C) -> (O) { O = A + B * C < -A ? A : B == C; }");
  const auto& e = std::get<ast::elementwise>(f.statements[0].body);
  ASSERT_EQ(e.value->kind, ast::expression_kind::conditional);
  const auto& condition = *e.value->operands[0];
  EXPECT_EQ(condition.op, token_kind::less);
  EXPECT_EQ(condition.operands[0]->op, token_kind::plus);
  EXPECT_EQ(condition.operands[0]->operands[1]->op, token_kind::star);
  EXPECT_EQ(condition.operands[1]->kind, ast::expression_kind::unary);
  EXPECT_EQ(e.value->operands[2]->op, token_kind::equal);
}

TEST(Checker, ResolvesIndicesInOrderOfAppearanceWithAffineCoefficients) {
  const program p = check(std::string_view(R"(function (I[N, Lx, Ly, CI], K[LKx, LKy, CI, CO]) -> (O) {
        O[n, x, y, co: N, Lx - 2 * (LKx - 1), Ly - 3 * (LKy - 1), CO] =
                +(I[n, x + 2 * kx, y + 3 * ky, ci] * K[kx, ky, ci, co]);
    })"));
  const auto& c = std::get<contraction>(p.statements[0]);
  EXPECT_THAT(c.index_names, ::testing::ElementsAre("n", "x", "y", "co", "kx", "ky", "ci"));
  const auto& row = c.operands[0].indices[1];  // x + 2 * kx
  EXPECT_EQ(row.coefficients[1], rational(1));
  EXPECT_EQ(row.coefficients[4], rational(2));
  EXPECT_EQ(row.constant, rational(0));
  EXPECT_EQ(c.comb, combination::multiply);
  EXPECT_EQ(p.tensors[p.inputs[0]].dimensions[3], p.tensors[p.inputs[1]].dimensions[2]);  // CI is one dimension
}

TEST(Checker, DivisionGivesRationalCoefficients) {
  const program p = check(std::string_view("function (I[N], K[M]) -> (O) { O[x: 2 * N + M - 2] = +(I[(x - k) / 2] * K[k]); }"));
  const auto& row = std::get<contraction>(p.statements[0]).operands[0].indices[0];
  EXPECT_EQ(row.coefficients[0], rational(1, 2));
  EXPECT_EQ(row.coefficients[1], rational(-1, 2));
}

TEST(Checker, KnowsRanksWhereTheHeaderDeclaresThem) {
  const program p = check(std::string_view(R"(function (I, J[A, B]) -> (O) {
        T = -I;
        U = J * 2;
        O[i: A] = +(J[i, j]);
    })"));
  EXPECT_FALSE(p.tensors[*p.find_tensor("T")].rank.has_value());
  EXPECT_EQ(p.tensors[*p.find_tensor("U")].rank, 2u);
  EXPECT_EQ(p.tensors[*p.find_tensor("O")].rank, 1u);
}

TEST(Shapes, SizesAreIntegerExpressionsThatTruncate) {
  const program p = check(std::string_view("function (I[N]) -> (O, P) { O[i: N / 2] = +(I[2 * i]); P[i: (N + 1) / 2] = +(I[2 * i]); }"));
  const std::vector<shape> inputs{{7}};
  const binding b = bind_shapes(p, inputs);
  EXPECT_EQ(b.shapes[*p.find_tensor("O")], (shape{3}));
  EXPECT_EQ(b.shapes[*p.find_tensor("P")], (shape{4}));
}

TEST(Shapes, ElementwiseShapesBroadcast) {
  const program p = check(std::string_view("function (A, B, C) -> (O) { O = C ? A : B; }"));
  const std::vector<shape> inputs{{4, 1, 3}, {5, 1}, {}};
  EXPECT_EQ(bind_shapes(p, inputs).shapes[*p.find_tensor("O")], (shape{4, 5, 3}));
}

TEST(Shapes, DimensionsInIndexExpressionsAreExact) {
  // (i + N) / 2 has the rational constant N / 2: for odd N only odd i give integer indices.
  const program p = check(std::string_view("function (I[N]) -> (O) { O[i: N] = +(I[(i + N) / 2]); }"));
  const std::vector<shape> inputs{{5}};
  const binding b = bind_shapes(p, inputs);
  EXPECT_EQ(b.spaces[0]->operand_rows[0][0].constant, rational(5, 2));
}

}  // namespace
}  // namespace tessera::tile
