// codegen::substitute: filling an operator's or a function's OpenCL C with its arguments.
#include <tessera/codegen/substitute.hpp>

#include <gtest/gtest.h>

using tessera::codegen::substitute;

TEST(Substitute, SingleTokensGoInAsTheyAre) {
  EXPECT_EQ(substitute("$1 + $2", "v1", "s2"), "v1 + s2");
  EXPECT_EQ(substitute("-$1", "1.5f"), "-1.5f");
  EXPECT_EQ(substitute("($1 > 0 ? $1 : 0)", "(a + b)"), "((a + b) > 0 ? (a + b) : 0)");
}

TEST(Substitute, ExpressionsArePutInParenthesesWhereTheyCouldBind) {
  EXPECT_EQ(substitute("-$1", "a + b"), "-(a + b)");
  EXPECT_EQ(substitute("(1 / (1 + exp(-$1)))", "(float)x"), "(1 / (1 + exp(-((float)x))))");
  EXPECT_EQ(substitute("$1 * $2", "(a) + (b)", "-c"), "((a) + (b)) * (-c)");
  EXPECT_EQ(substitute("($1 > 0 ? $1 : 0)", "x[i]"), "((x[i]) > 0 ? (x[i]) : 0)");
}

TEST(Substitute, AWholeFunctionArgumentNeedsNoParentheses) {
  EXPECT_EQ(substitute("exp($1)", "a + b"), "exp(a + b)");
  EXPECT_EQ(substitute("pow($1, $2)", "a + b", "c ? d : e"), "pow(a + b, c ? d : e)");
  EXPECT_EQ(substitute("fmax( $1 ,$2)", "-x", "y - 1"), "fmax( -x ,y - 1)");
}

TEST(Substitute, OtherDollarsAreKept) {
  EXPECT_EQ(substitute("$3 + $$1", "a"), "$3 + $a");
  EXPECT_EQ(substitute("trailing $", "a"), "trailing $");
}
