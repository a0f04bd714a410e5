// One test per check of the language: each asserts the error type, the message and the
// line:column it names.
#include <gmock/gmock.h>

#include "tile_testing.hpp"

namespace tessera::tile {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

template <typename Error>
void expect_compile_error(const std::string& source, source_position where, const std::string& message) {
  try {
    compile(source);
    ADD_FAILURE() << "no error for:\n" << source;
  } catch (const Error& e) {
    EXPECT_EQ(to_string(e.position()), to_string(where)) << e.what();
    EXPECT_THAT(e.message(), HasSubstr(message));
    EXPECT_THAT(std::string(e.what()), StartsWith(to_string(where) + ": "));
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong error type: " << e.what();
  }
}

/// Errors raised when the shapes are bound: the same from the interpreter and the device.
void expect_call_error(const std::string& source, const std::vector<shape>& shapes, source_position where,
                       const std::string& message) {
  const function f = compile(source);
  std::vector<host_tensor<float>> host;
  std::vector<tensor<float>> device;
  for (const auto& s : shapes) {
    host.push_back(testing::random_tensor<float>(s));
    device.emplace_back(host.back());
  }
  for (const bool on_device : {false, true}) {
    try {
      if (on_device) f.run<float>(device);
      else interpret<float>(f.checked(), host);
      ADD_FAILURE() << "no error " << (on_device ? "on the device" : "in the interpreter") << " for:\n" << source;
    } catch (const shape_error& e) {
      EXPECT_EQ(to_string(e.position()), to_string(where)) << e.what();
      EXPECT_THAT(e.message(), HasSubstr(message));
    }
  }
}

// ---- syntax ----------------------------------------------------------------------------

TEST(SyntaxError, UnexpectedCharacter) {
  expect_compile_error<syntax_error>("function (I) -> (O) {\n  O = I $ 2;\n}", {2, 9}, "unexpected character '$'");
}

TEST(SyntaxError, MalformedNumber) {
  expect_compile_error<syntax_error>("function (I) -> (O) {\n  O = I * 1e+;\n}", {2, 11}, "malformed number");
}

TEST(SyntaxError, IntegerTooLarge) {
  expect_compile_error<syntax_error>("function (I) -> (O) {\n  O = I * 99999999999999999999;\n}", {2, 11},
                                     "too large");
}

TEST(SyntaxError, MissingSemicolon) {
  expect_compile_error<syntax_error>("function (I) -> (O) {\n  O = I\n}", {3, 1}, "expected ';'");
}

TEST(SyntaxError, MissingFunctionKeyword) {
  expect_compile_error<syntax_error>("  (I) -> (O) { O = I; }", {1, 3}, "starts with 'function'");
}

TEST(SyntaxError, ContractionOutputWithoutSizes) {
  expect_compile_error<syntax_error>("function (I[N]) -> (O) {\n  O[i] = +(I[i]);\n}", {2, 6}, "expected ':'");
}

TEST(SyntaxError, OutputWithDimensionsInTheHeader) {
  expect_compile_error<syntax_error>("function (I[N]) -> (O[N]) { O = I; }", {1, 22}, "takes no dimensions");
}

TEST(SyntaxError, ConstraintWithoutLessThan) {
  expect_compile_error<syntax_error>("function (I[N]) -> (O) {\n  O[i: N] = +(I[i + j]), j > 2;\n}", {2, 28},
                                     "expected '<' in the constraint");
}

TEST(SyntaxError, NestingTooDeep) {
  const std::string deep = std::string(300, '(') + "I" + std::string(300, ')');
  try {
    compile("function (I) -> (O) { O = " + deep + "; }");
    FAIL();
  } catch (const syntax_error& e) {
    EXPECT_THAT(e.message(), HasSubstr("nested more than"));
    EXPECT_EQ(e.position().line, 1u);
  }
}

// A flat chain is not nesting (issue 15: 201 terms were refused as "nested more than 200
// levels"), but its tree's height is bounded: later walks recurse along it.
TEST(SyntaxError, FlatChainsAreNotNestingButTheirLengthIsBounded) {
  const auto chain = [](int terms) {
    std::string out = "I";
    for (int i = 1; i < terms; ++i) out += " + I";
    return "function (I) -> (O) { O = " + out + "; }";
  };
  EXPECT_NO_THROW(compile(chain(201)));
  EXPECT_NO_THROW(compile(chain(max_expression_height + 1)));
  try {
    compile(chain(max_expression_height + 2));
    FAIL();
  } catch (const syntax_error& e) {
    EXPECT_THAT(e.message(), HasSubstr("more than 1000 operations tall"));
  }
}

// ---- names: case rules ---------------------------------------------------------------

TEST(NameCase, InputTensorMustBeCapitalised) {
  expect_compile_error<check_error>("function (a[N]) -> (O) { O = a; }", {1, 11},
                                    "tensor name 'a' must begin with a capital letter");
}

TEST(NameCase, DimensionMustBeCapitalised) {
  expect_compile_error<check_error>("function (A[n]) -> (O) { O = A; }", {1, 13},
                                    "dimension name 'n' must begin with a capital letter");
}

TEST(NameCase, OutputMustBeCapitalised) {
  expect_compile_error<check_error>("function (A) -> (o) {\n  o = A;\n}", {1, 18},
                                    "tensor name 'o' must begin with a capital letter");
}

TEST(NameCase, AssignedTensorMustBeCapitalised) {
  expect_compile_error<check_error>("function (A) -> (O) {\n  t = A;\n  O = A;\n}", {2, 3},
                                    "tensor name 't' must begin with a capital letter");
}

TEST(NameCase, IndexMustBeLowercase) {
  expect_compile_error<check_error>("function (A[N]) -> (O) {\n  O[I: N] = +(A[I]);\n}", {2, 5},
                                    "index names begin with a lowercase letter");
}

TEST(NameCase, LowercaseNameInAnElementwiseStatement) {
  expect_compile_error<check_error>("function (A) -> (O) {\n  O = A + x;\n}", {2, 11},
                                    "'x' is not a tensor or a dimension");
}

TEST(NameCase, LowercaseTensorInAContraction) {
  expect_compile_error<check_error>("function (A[N]) -> (O) {\n  O[i: N] = +(a[i]);\n}", {2, 15},
                                    "tensor names begin with a capital letter");
}

// ---- names: reuse --------------------------------------------------------------------

TEST(NameReuse, InputDeclaredTwice) {
  expect_compile_error<check_error>("function (A, A) -> (O) { O = A; }", {1, 14}, "name 'A' is already used at 1:11");
}

TEST(NameReuse, DimensionNamedLikeATensor) {
  expect_compile_error<check_error>("function (N[N]) -> (O) { O = N; }", {1, 13}, "name 'N' is already used at 1:11");
}

TEST(NameReuse, OutputNamedLikeAnInput) {
  expect_compile_error<check_error>("function (A) -> (A) { A = A; }", {1, 18}, "name 'A' is already used at 1:11");
}

TEST(NameReuse, OutputDeclaredTwice) {
  expect_compile_error<check_error>("function (A) -> (O, O) { O = A; }", {1, 21}, "name 'O' is already used at 1:18");
}

TEST(NameReuse, TensorAssignedTwice) {
  expect_compile_error<check_error>("function (A) -> (O) {\n  T = A;\n  T = -A;\n  O = T;\n}", {3, 3},
                                    "tensor 'T' is already defined at 2:3");
}

TEST(NameReuse, AssigningAnInput) {
  expect_compile_error<check_error>("function (A) -> (O) {\n  A = -A;\n  O = A;\n}", {2, 3},
                                    "tensor 'A' is already defined at 1:11");
}

TEST(NameReuse, AssigningADimension) {
  expect_compile_error<check_error>("function (A[N]) -> (O) {\n  N = -A;\n  O = A;\n}", {2, 3},
                                    "name 'N' is already used at 1:13");
}

// ---- names: undefined ----------------------------------------------------------------

TEST(UndefinedName, Tensor) {
  expect_compile_error<check_error>("function (A) -> (O) {\n  O = A + B;\n}", {2, 11}, "undefined tensor 'B'");
}

TEST(UndefinedName, TensorInAContraction) {
  expect_compile_error<check_error>("function (A[N]) -> (O) {\n  O[i: N] = +(B[i]);\n}", {2, 15},
                                    "undefined tensor 'B'");
}

TEST(UndefinedName, DimensionInASize) {
  expect_compile_error<check_error>("function (A[N]) -> (O) {\n  O[i: Q] = +(A[i]);\n}", {2, 8},
                                    "undefined dimension 'Q'");
}

TEST(UndefinedName, DimensionInAnIndex) {
  expect_compile_error<check_error>("function (A[N]) -> (O) {\n  O[i: N] = +(A[i + Q]);\n}", {2, 21},
                                    "undefined dimension 'Q'");
}

TEST(UndefinedName, Function) {
  expect_compile_error<check_error>("function (A) -> (O) {\n  O = erfcx(A);\n}", {2, 7}, "unknown function 'erfcx'");
}

TEST(UndefinedName, OutputUsedBeforeItIsAssigned) {
  expect_compile_error<check_error>("function (A) -> (O, P) {\n  P = O + A;\n  O = A;\n}", {2, 7},
                                    "tensor 'O' is used before it is assigned");
}

TEST(UndefinedName, TensorReadByItsOwnContraction) {
  expect_compile_error<check_error>("function (A[N]) -> (O) {\n  O[i: N] = +(O[i]);\n}", {2, 15},
                                    "used in the statement that defines it");
}

TEST(UndefinedName, OutputNeverAssigned) {
  expect_compile_error<check_error>("function (A) -> (O, P) {\n  O = A;\n}", {1, 21}, "output 'P' is never assigned");
}

// ---- contractions --------------------------------------------------------------------

TEST(Unbounded, IndicesThatMoveTogether) {
  expect_compile_error<check_error>("function (I) -> (O) {\n  O[] = +(I[i + j]);\n}", {2, 9},
                                    "the set of valid indices is unbounded");
}

TEST(Unbounded, AnIndexNothingLimits) {
  expect_compile_error<check_error>("function (I[N]) -> (O) {\n  O[i: N] = +(I[i + 0 * j]);\n}", {2, 13},
                                    "no tensor index or constraint limits index 'j'");
}

TEST(Unbounded, AConstraintMakesItBounded) {
  EXPECT_NO_THROW(compile("function (I) -> (O) { O[] = +(I[i + j]), j < 3; }"));
}

TEST(RankMismatch, DeclaredRank) {
  expect_compile_error<check_error>("function (I[M, N]) -> (O) {\n  O[i: M] = +(I[i]);\n}", {2, 15},
                                    "rank mismatch: tensor 'I' has 2 dimension(s)");
}

TEST(RankMismatch, RankOfAContractionOutput) {
  expect_compile_error<check_error>("function (I[N]) -> (O) {\n  T[i: N] = +(I[i]);\n  O[] = +(T[i, j]);\n}", {3, 11},
                                    "rank mismatch: tensor 'T' has 1 dimension(s)");
}

TEST(RankMismatch, SizesAndIndicesDisagree) {
  expect_compile_error<check_error>("function (I[N]) -> (O) {\n  O[i, j: N] = +(I[i]);\n}", {2, 3},
                                    "2 index expression(s) but 1 size(s)");
}

TEST(RankMismatch, UndeclaredRankAtCallTime) {
  expect_call_error("function (I) -> (O) {\n  O[i: 3] = +(I[i]);\n}", {{3, 2}}, {2, 15},
                    "rank mismatch: tensor 'I' has shape (3, 2) but is indexed with 1");
}

TEST(RankMismatch, InputOfTheWrongRankAtCallTime) {
  expect_call_error("function (I[M, N]) -> (O) {\n  O = I;\n}", {{3}}, {1, 11},
                    "input 'I' is declared with 2 dimension(s) but given shape (3,)");
}

TEST(RepeatedDimensions, ContradictingSizesNameTheDimensionAndBothSizes) {
  expect_call_error("function (A[N, M], B[M, N]) -> (O) {\n  O = A;\n}", {{3, 4}, {4, 5}}, {1, 25},
                    "dimension 'N' is 3 from axis 0 of 'A' (declared at 1:13) but 5 from axis 1 of 'B'");
}

TEST(RepeatedDimensions, WithinOneTensor) {
  expect_call_error("function (A[N, N]) -> (O) {\n  O = A;\n}", {{3, 4}}, {1, 16},
                    "dimension 'N' is 3 from axis 0 of 'A'");
}

TEST(Broadcasting, IncompatibleShapes) {
  expect_call_error("function (A, B) -> (O) {\n  O = A + B;\n}", {{3, 4}, {5}}, {2, 9},
                    "cannot broadcast shapes (3, 4) and (5,)");
}

TEST(Broadcasting, IncompatibleShapesInAFunctionCall) {
  expect_call_error("function (A, B) -> (O) {\n  O = max(A, B);\n}", {{2, 3}, {2, 2}}, {2, 7},
                    "cannot broadcast shapes (2, 3) and (2, 2)");
}

TEST(Assignment, MayWriteTwice) {
  expect_compile_error<check_error>("function (I[N]) -> (O) {\n  O[i: N] = =(I[i + j]), j < 2;\n}", {2, 13},
                                    "aggregation '=' may write an element of 'O' more than once");
}

TEST(Assignment, WrittenWithoutSpaceIsStillAssignment) {
  expect_compile_error<check_error>("function (I[N]) -> (O) {\n  O[i: N] ==(I[i + j]), j < 2;\n}", {2, 12},
                                    "aggregation '='");
}

TEST(IndexDivision, ByADimension) {
  expect_compile_error<check_error>("function (I[N]) -> (O) {\n  O[i: N] = +(I[i / N]);\n}", {2, 19},
                                    "division of indices by a non-constant");
}

TEST(IndexDivision, ByAnIndex) {
  expect_compile_error<check_error>("function (I[N]) -> (O) {\n  O[i: N] = +(I[N / (i + 1)]);\n}", {2, 19},
                                    "division by an expression of indices");
}

TEST(IndexDivision, ByZero) {
  expect_compile_error<check_error>("function (I[N]) -> (O) {\n  O[i: N] = +(I[i / 0]);\n}", {2, 19},
                                    "division by zero");
}

TEST(IndexExpression, ProductOfIndices) {
  expect_compile_error<check_error>("function (I[N]) -> (O) {\n  O[i: N] = +(I[i * j]), j < 2;\n}", {2, 19},
                                    "not affine");
}

TEST(IndexExpression, IndexTimesDimension) {
  expect_compile_error<check_error>("function (I[N]) -> (O) {\n  O[i: N] = +(I[N * i]);\n}", {2, 19},
                                    "coefficients of indices are numbers");
}

TEST(IndexExpression, FractionalLiteral) {
  expect_compile_error<check_error>("function (I[N]) -> (O) {\n  O[i: N] = +(I[0.5 * i]);\n}", {2, 17},
                                    "index expressions use integers");
}

TEST(IndexExpression, TensorAsIndex) {
  expect_compile_error<check_error>("function (I[N], J[N]) -> (O) {\n  O[i: N] = +(I[J]);\n}", {2, 17},
                                    "'J' is a tensor");
}

TEST(SizeExpression, IndexInASize) {
  expect_compile_error<check_error>("function (I[N]) -> (O) {\n  O[i: i] = +(I[i]);\n}", {2, 8},
                                    "index 'i' cannot appear in a size");
}

TEST(SizeExpression, IndexInAConstraintBound) {
  expect_compile_error<check_error>("function (I[N]) -> (O) {\n  O[i: N] = +(I[j]), j < i;\n}", {2, 26},
                                    "index 'i' cannot appear in a constraint bound");
}

TEST(SizeExpression, NegativeSizeAtCallTime) {
  expect_call_error("function (I[N]) -> (O) {\n  O[i: N - 5] = +(I[i]);\n}", {{3}}, {2, 8},
                    "size 0 of output 'O' is -2");
}

TEST(SizeExpression, DivisionByZeroAtCallTime) {
  expect_call_error("function (I[N]) -> (O) {\n  O[i: N / (N - 3)] = +(I[i]);\n}", {{3}}, {2, 13},
                    "division by zero");
}

TEST(Elementwise, IndexingIsForContractions) {
  expect_compile_error<check_error>("function (I[N]) -> (O) {\n  O = I[0] + 1;\n}", {2, 7},
                                    "elementwise statements do not index tensors");
}

TEST(Elementwise, WrongNumberOfArguments) {
  expect_compile_error<check_error>("function (I) -> (O) {\n  O = pow(I);\n}", {2, 7},
                                    "function 'pow' takes 2 argument(s), given 1");
}

TEST(Call, WrongNumberOfInputs) {
  expect_call_error("function (A, B) -> (O) {\n  O = A + B;\n}", {{3}}, {1, 1}, "takes 2 input(s), given 1");
}

}  // namespace
}  // namespace tessera::tile

namespace tessera::tile {
namespace {

using ::testing::HasSubstr;

TEST(Lowering, RunawayLoopBoundsAreRefusedNotComputedForever) {
  // Eight indices bound pairwise: Fourier-Motzkin elimination would need a huge system.
  std::string source = "function (A[N]) -> (O) {\n  O[] = +(A[a]), b < N, c < N, d < N, e < N, f < N, g < N, h < N";
  const std::string names = "abcdefgh";
  for (std::size_t i = 0; i < names.size(); ++i)
    for (std::size_t j = i + 1; j < names.size(); ++j) source += fmt::format(", {} - {} + N < 2 * N", names[i], names[j]);
  source += ", a + b + c + d + e + f + g + h < N;\n}";
  const function f = compile(source);
  try {
    f.lowering({tensor_layout::row_major({5})}, element_type::float32);
    FAIL() << "expected a lowering_error";
  } catch (const lowering_error& e) {
    EXPECT_EQ(e.position(), (source_position{2, 3}));
    EXPECT_THAT(e.message(), HasSubstr("needs more than 4096 inequalities"));
  }
}

}  // namespace
}  // namespace tessera::tile
