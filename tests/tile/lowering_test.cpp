// How programs become kernels: fusion, GEMM dispatch (with the GEMM call proven on the host),
// strided inputs (matrix<T> views), caching, options, and the function API.
#include <gmock/gmock.h>

#include "tile_testing.hpp"

namespace tessera::tile {
namespace {

using ::testing::HasSubstr;
using testing::expect_all_agree;
using vectors = std::vector<std::vector<double>>;

std::vector<tensor_layout> row_major(const std::vector<shape>& shapes) {
  std::vector<tensor_layout> out;
  for (const auto& s : shapes) out.push_back(tensor_layout::row_major(s));
  return out;
}

std::size_t kernel_count(const lowered_program& lp) { return lp.steps.size(); }

TEST(Fusion, ElementwiseAfterAContractionJoinsItsStore) {
  const function f = compile("function (I[X, Y]) -> (O) { Sum[y: Y] = +(I[x, y]); O = Sum / X; }");
  const auto lp = f.lowering(row_major({{5, 3}}), element_type::float32);
  ASSERT_EQ(kernel_count(lp), 1u);
  EXPECT_FALSE(lp.materialized[*f.checked().find_tensor("Sum")]);  // never leaves registers
  EXPECT_THAT(std::get<kernel_launch>(lp.steps[0]).summary, HasSubstr("1 fused elementwise"));
}

TEST(Fusion, ConsecutiveElementwiseStatementsShareOneKernel) {
  const function f = compile("function (A, B) -> (O) { T = A * B; U = T + 1; O = sqrt(abs(U)) - T; }");
  const auto lp = f.lowering(row_major({{4, 5}, {5}}), element_type::float32);
  ASSERT_EQ(kernel_count(lp), 1u);
  EXPECT_FALSE(lp.materialized[*f.checked().find_tensor("T")]);
  EXPECT_FALSE(lp.materialized[*f.checked().find_tensor("U")]);
  expect_all_agree<float>("function (A, B) -> (O) { T = A * B; U = T + 1; O = sqrt(abs(U)) - T; }", {{4, 5}, {5}},
                          [](const auto& in) {
                            std::vector<double> o(20);
                            for (int i = 0; i < 4; ++i)
                              for (int j = 0; j < 5; ++j) {
                                const double t = double(in[0].values[i * 5 + j]) * in[1].values[j];
                                o[i * 5 + j] = std::sqrt(std::abs(t + 1)) - t;
                              }
                            return vectors{o};
                          }, 4);
}

TEST(Fusion, ElementwiseStatementsOfAnotherShapeGetTheirOwnKernel) {
  const function f = compile("function (A[N], B[M, N]) -> (O) { T = A * 2; O = T + B; }");
  const auto lp = f.lowering(row_major({{3}, {4, 3}}), element_type::float32);
  EXPECT_EQ(kernel_count(lp), 2u);
  EXPECT_TRUE(lp.materialized[*f.checked().find_tensor("T")]);
}

// Issue 15: a 0.5 MB program of elementwise statements became one kernel that took PoCL 71 s
// and 730 MB to compile (compile time grows faster than a kernel's size); fused kernels are
// bounded now, and the split ones compute what one kernel did.
TEST(Fusion, LongRunsOfElementwiseStatementsAreSplitWithinTheOperationBudget) {
  std::string source = "function (A[N], B[N]) -> (O) {\n";
  std::string previous = "A";
  // 9 operations each. sqrt(exp(t)), not sqrt(abs(t)): the step's derivative stays below 1 in
  // magnitude, so that the 40 steps do not amplify a rounding (near t = 0 sqrt(abs(t)) did, and
  // a GPU that contracts t * 0.5 + B into an fma, as OpenCL allows, failed the comparison).
  for (int s = 0; s < 40; ++s) {
    source += fmt::format("  T{} = {} * 0.5 + B - sqrt(exp({}));\n", s, previous, previous);
    previous = fmt::format("T{}", s);
  }
  source += "  O = " + previous + ";\n}\n";
  lowering_options small;
  small.max_fused_operations = 50;
  const function split = compile(source, small);
  const auto lp = split.lowering(row_major({{7}, {7}}), element_type::float32);
  EXPECT_EQ(kernel_count(lp), 8u) << "5 statements of 9 operations per kernel, the copy to O with the last";
  EXPECT_TRUE(lp.materialized[*split.checked().find_tensor("T4")]) << "an intermediate between two kernels";
  EXPECT_FALSE(lp.materialized[*split.checked().find_tensor("T3")]) << "an intermediate inside one kernel";
  EXPECT_EQ(kernel_count(compile(source).lowering(row_major({{7}, {7}}), element_type::float32)), 1u)
      << "within the default budget, one kernel";
  for (const std::int64_t n : {1, 7, 300})
    expect_all_agree<float>(source, {{n}, {n}}, [&](const auto& in) {
      std::vector<double> o(n);
      for (std::int64_t i = 0; i < n; ++i) {
        float t = in[0].values[i];
        for (int s = 0; s < 40; ++s) t = t * 0.5f + in[1].values[i] - std::sqrt(std::exp(t));
        o[i] = t;
      }
      return vectors{o};
    }, 40, &split);
}

TEST(Fusion, UnusedIntermediatesAreNotComputed) {
  const function f = compile("function (A[N]) -> (O) { Dead[i: N] = +(A[i]); O = A * 2; }");
  const auto lp = f.lowering(row_major({{3}}), element_type::float32);
  EXPECT_EQ(kernel_count(lp), 1u);
}

TEST(Fusion, GlobalMinNeedsTwoKernels) {
  const function f = compile("function (I) -> (O) { Neg = -I; O_Neg[] = >(Neg[i, j, k]); O = -O_Neg; }");
  const auto lp = f.lowering(row_major({{2, 3, 4}}), element_type::float32);
  EXPECT_EQ(kernel_count(lp), 2u);
}

// ---- GEMM dispatch ------------------------------------------------------------------

/// C = op(A) op(B) per batch, column-major with offsets, exactly as BLAS defines it.
template <typename T>
void host_gemm(const gemm_call& g, const std::vector<T>& a, const std::vector<T>& b, std::vector<T>& c) {
  for (std::int64_t batch = 0; batch < g.batch_count; ++batch)
    for (std::int64_t i = 0; i < g.m; ++i)
      for (std::int64_t j = 0; j < g.n; ++j) {
        double sum = 0;
        for (std::int64_t k = 0; k < g.k; ++k) {
          const std::int64_t ai = g.offset_a + batch * g.stride_a + (g.transpose_a ? k + i * g.lda : i + k * g.lda);
          const std::int64_t bi = g.offset_b + batch * g.stride_b + (g.transpose_b ? j + k * g.ldb : k + j * g.ldb);
          sum += double(a.at(ai)) * double(b.at(bi));
        }
        c.at(g.offset_c + batch * g.stride_c + i + j * g.ldc) = static_cast<T>(sum);
      }
}

/// Lowers source, expects one GEMM step, runs its call on the host over the inputs' storage and
/// compares with the interpreter; also runs the function on the device.
void expect_gemm(const std::string& source, const std::vector<shape>& shapes) {
  SCOPED_TRACE(source);
  const function f = compile(source);
  const auto inputs = testing::random_inputs<double>(shapes);
  const auto lp = f.lowering(row_major(shapes), element_type::float64);
  ASSERT_EQ(lp.steps.size(), 1u);
  ASSERT_TRUE(std::holds_alternative<matmul_launch>(lp.steps[0])) << "not dispatched to GEMM";
  const gemm_call& call = std::get<matmul_launch>(lp.steps[0]).call;
  SCOPED_TRACE(call.to_string());
  const auto& p = f.checked();
  auto storage_of = [&](std::size_t tensor) {
    for (std::size_t i = 0; i < p.inputs.size(); ++i)
      if (p.inputs[i] == tensor) return inputs[i].values;
    ADD_FAILURE() << "GEMM operand is not an input";
    return std::vector<double>{};
  };
  const auto reference = interpret<double>(p, inputs);
  std::vector<double> c(reference[0].values.size(), std::nan(""));
  host_gemm(call, storage_of(call.a), storage_of(call.b), c);
  testing::expect_close(host_tensor<double>(reference[0].dims, c), reference[0].dims, reference[0].values, 1e-12,
                        "host GEMM of the call");
  const auto device = testing::run_on_device<double>(f, inputs);
  testing::expect_close(device[0], reference[0].dims, reference[0].values, 1e-12, "device");
}

TEST(MatmulDispatch, PlainProduct) {
  expect_gemm("function (A[M, L], B[L, N]) -> (C) { C[i, j: M, N] = +(A[i, k] * B[k, j]); }", {{7, 5}, {5, 9}});
}

TEST(MatmulDispatch, TransposedOperands) {
  expect_gemm("function (A[L, M], B[N, L]) -> (C) { C[i, j: M, N] = +(A[k, i] * B[j, k]); }", {{5, 7}, {9, 5}});
  expect_gemm("function (A[M, L], B[N, L]) -> (C) { C[i, j: M, N] = +(A[i, k] * B[j, k]); }", {{7, 5}, {9, 5}});
}

TEST(MatmulDispatch, TransposedOutput) {
  expect_gemm("function (A[M, L], B[L, N]) -> (C) { C[j, i: N, M] = +(A[i, k] * B[k, j]); }", {{7, 5}, {5, 9}});
}

TEST(MatmulDispatch, OperandsInEitherOrder) {
  expect_gemm("function (A[M, L], B[L, N]) -> (C) { C[i, j: M, N] = +(B[k, j] * A[i, k]); }", {{7, 5}, {5, 9}});
}

TEST(MatmulDispatch, Batched) {
  expect_gemm("function (A[P, M, L], B[P, L, N]) -> (C) { C[b, i, j: P, M, N] = +(A[b, i, k] * B[b, k, j]); }",
              {{3, 4, 5}, {3, 5, 6}});
}

TEST(MatmulDispatch, GroupsOfIndicesFlatten) {
  expect_gemm("function (A[M, K1, K2], B[K1, K2, N1, N2]) -> (C) { C[i, j1, j2: M, N1, N2] = +(A[i, k1, k2] * B[k1, k2, j1, j2]); }",
              {{3, 4, 2}, {4, 2, 5, 3}});
}

TEST(MatmulDispatch, MatrixVectorProduct) {
  expect_gemm("function (A[M, L], X[L]) -> (Y) { Y[i: M] = +(A[i, k] * X[k]); }", {{6, 4}, {4}});
}

TEST(MatmulDispatch, EmptyAndUnitSizes) {
  expect_gemm("function (A[M, L], B[L, N]) -> (C) { C[i, j: M, N] = +(A[i, k] * B[k, j]); }", {{1, 1}, {1, 1}});
  expect_gemm("function (A[M, L], B[L, N]) -> (C) { C[i, j: M, N] = +(A[i, k] * B[k, j]); }", {{3, 0}, {0, 2}});
}

TEST(MatmulDispatch, NotAProductStaysAContraction) {
  for (const char* source : {
           "function (A[M, L], B[L, N]) -> (C) { C[i, j: M + 1, N] = +(A[i, k] * B[k, j]); }",      // padding
           "function (A[M, L], B[L, N]) -> (C) { C[i, j: M, N] = +(A[i, k] * B[k, j]), k < 2; }",   // constraint
           "function (A[M, L], B[L, N]) -> (C) { C[i, j: M, N] = >(A[i, k] * B[k, j]); }",          // max
           "function (A[M, L], B[L, N]) -> (C) { C[i, j: M, N] = +(A[i, k] + B[k, j]); }",          // plus
           "function (A[M, L], B[L, N]) -> (C) { C[i, j: M, N] = +(A[i, k + 1] * B[k, j]); }",      // offset
           "function (A[M, M]) -> (C) { C[i: M] = +(A[i, i] * A[i, k]); }",                          // diagonal
       }) {
    const function f = compile(source);
    std::vector<shape> shapes = {{4, 4}, {4, 4}};
    if (f.checked().inputs.size() == 1) shapes.pop_back();
    const auto lp = f.lowering(row_major(shapes), element_type::float32);
    for (const auto& step : lp.steps) EXPECT_TRUE(std::holds_alternative<kernel_launch>(step)) << source;
  }
}

TEST(MatmulDispatch, DisabledByOption) {
  const function f = compile("function (A[M, L], B[L, N]) -> (C) { C[i, j: M, N] = +(A[i, k] * B[k, j]); }",
                             lowering_options{.dispatch_matmul = false});
  const auto lp = f.lowering(row_major({{3, 3}, {3, 3}}), element_type::float32);
  EXPECT_TRUE(std::holds_alternative<kernel_launch>(lp.steps[0]));
}

// ---- inputs and the API -------------------------------------------------------------

TEST(FunctionApi, MatrixInputsAreColumnMajorViews) {
  const function f = compile("function (A[M, L], B[L, N]) -> (C) { C[i, j: M, N] = +(A[i, k] * B[k, j]); }");
  const std::int64_t m = 5, l = 3, n = 4;
  const auto a = tessera::testing::random_values<float>(m * l);  // column-major
  const auto b = tessera::testing::random_values<float>(l * n);
  const matrix<float> ma(a, m, l), mb(b, l, n);
  const auto out = f(ma, mb);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].dims(), (shape{m, n}));
  const auto c = out[0].to_host();
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double e = 0;
      for (std::int64_t k = 0; k < l; ++k) e += double(a[i + k * m]) * b[k + j * l];
      EXPECT_NEAR(c[i * n + j], e, 1e-5) << i << "," << j;
    }
  // The GEMM call reads the column-major storage directly.
  const auto lp = f.lowering({tensor<float>(ma).layout(), tensor<float>(mb).layout()}, element_type::float32);
  ASSERT_TRUE(std::holds_alternative<matmul_launch>(lp.steps[0]));
  const auto& call = std::get<matmul_launch>(lp.steps[0]).call;
  std::vector<float> host_c(m * n);
  host_gemm(call, call.a == f.checked().inputs[0] ? a : b, call.b == f.checked().inputs[0] ? a : b, host_c);
  for (std::size_t i = 0; i < host_c.size(); ++i) EXPECT_NEAR(host_c[i], c[i], 1e-5);
}

TEST(FunctionApi, MatrixViewsInAGeneralContraction) {
  const function f = compile("function (A[M, N]) -> (O) { O[j: N] = >(A[i, j]), i < 2; }");
  const auto a = tessera::testing::random_values<float>(4 * 3);
  const auto out = f(matrix<float>(a, 4, 3));
  const auto o = out[0].to_host();
  for (int j = 0; j < 3; ++j) EXPECT_FLOAT_EQ(o[j], std::max(a[0 + j * 4], a[1 + j * 4]));
  EXPECT_EQ(to_matrix(out[0]).rows(), 3);
}

TEST(FunctionApi, KernelsAreCachedPerShape) {
  const function f = compile("function (A, B) -> (O) { O = A + B; }");
  const tensor<float> a(shape{3}, std::vector<float>{1, 2, 3}), b(shape{3}, std::vector<float>{4, 5, 6});
  f(a, b);
  f(a, b);
  EXPECT_EQ(f.cached_plans(), 1u);
  const tensor<float> c(shape{2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6});
  const auto out = f(c, b);
  EXPECT_EQ(f.cached_plans(), 2u);
  EXPECT_THAT(out[0].to_host(), ::testing::ElementsAre(5, 7, 9, 8, 10, 12));
}

// An intermediate (T, read by S) and two outputs: what run(inputs, outputs) must get right
// across calls, where the intermediate's buffer is reused and the outputs are the caller's.
const char* const two_outputs_with_an_intermediate = R"(function (A[M, L], B[L, N]) -> (O, S) {
    T[i, j: M, N] = +(A[i, k] * B[k, j]);
    O = relu(T);
    S[i: M] = +(T[i, j]);
})";

TEST(FunctionApi, GivenOutputsReceiveWhatFreshOutputsWould) {
  const function f = compile(two_outputs_with_an_intermediate);
  const std::int64_t m = 7, l = 5, n = 3;
  tensor<float> o(shape{m, n}), s(shape{m});
  for (int call = 0; call < 3; ++call) {  // fresh data each time: a stale intermediate would show
    const tensor<float> a(testing::random_tensor<float>({m, l})), b(testing::random_tensor<float>({l, n}));
    f.run<float>({a, b}, {o, s});
    const auto fresh = f(a, b);
    EXPECT_EQ(o.to_host(), fresh[0].to_host()) << "call " << call;
    EXPECT_EQ(s.to_host(), fresh[1].to_host()) << "call " << call;
    // and both agree with the host
    const auto ha = a.to_host(), hb = b.to_host(), ho = o.to_host(), hs = s.to_host();
    for (std::int64_t i = 0; i < m; ++i) {
      double row = 0;
      for (std::int64_t j = 0; j < n; ++j) {
        double t = 0;
        for (std::int64_t k = 0; k < l; ++k) t += double(ha[i * l + k]) * hb[k * n + j];
        row += t;
        EXPECT_NEAR(ho[i * n + j], std::max(t, 0.0), 1e-5);
      }
      EXPECT_NEAR(hs[i], row, 1e-4);
    }
  }
  EXPECT_EQ(f.cached_plans(), 1u);
}

TEST(FunctionApi, GivenOutputsThatCannotBeWrittenAreRefused) {
  const function f = compile(two_outputs_with_an_intermediate);
  const tensor<float> a(testing::random_tensor<float>({4, 3})), b(testing::random_tensor<float>({3, 2}));
  const tensor<float> o(shape{4, 2}), s(shape{4});
  auto message_of = [&](const std::vector<tensor<float>>& outputs) -> std::string {
    try {
      f.run<float>({a, b}, outputs);
    } catch (const tessera::error& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_THAT(message_of({o}), HasSubstr("1 outputs given, the function has 2"));
  EXPECT_THROW(f.run<float>({a, b}, {tensor<float>(shape{2, 4}), s}), shape_error);
  EXPECT_THAT(message_of({tensor<float>(shape{2, 4}), s}), HasSubstr("output O has shape (2, 4), the call produces (4, 2)"));
  EXPECT_THAT(message_of({o, tensor<float>(shape{4, 1})}), HasSubstr("output S has shape (4, 1)"));
  // A column-major matrix of the right shape is a strided view: not where the kernels write.
  const matrix<float> column_major(tessera::testing::random_values<float>(8), 4, 2);
  EXPECT_THAT(message_of({tensor<float>(column_major), s}), HasSubstr("output O must be a dense row-major tensor"));
  // Memory shared with an input, or between outputs, would be read while written.
  const tensor<float> square(testing::random_tensor<float>({2, 2}));
  const tensor<float> s2(shape{2});
  try {
    f.run<float>({square, square}, {square, s2});
    ADD_FAILURE() << "no error";
  } catch (const argument_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("output O shares memory with input A"));
  }
  const tensor<float> flat(shape{4});
  const tensor<float> same_as_s(flat.storage(), tensor_layout::row_major({4}), flat.ctx());
  const function g = compile("function (A) -> (X, Y) { X = A + 1; Y = A * 2; }");
  try {
    g.run<float>({tensor<float>(testing::random_tensor<float>({4}))}, {flat, same_as_s});
    ADD_FAILURE() << "no error";
  } catch (const argument_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("outputs X and Y share memory"));
  }
}

TEST(FunctionApi, GivenEmptyOutputs) {
  const function f = compile(two_outputs_with_an_intermediate);
  const tensor<float> a(shape{0, 3}), b(testing::random_tensor<float>({3, 2}));
  tensor<float> o(shape{0, 2}), s(shape{0});
  f.run<float>({a, b}, {o, s});
  EXPECT_TRUE(o.to_host().empty());
}

TEST(FunctionApi, NoInputs) {
  const function f = compile("function () -> (O) { O = 3 * 2 + 1; }");
  const auto out = f.run<float>({});
  EXPECT_EQ(out[0].dims(), shape{});
  EXPECT_THAT(out[0].to_host(), ::testing::ElementsAre(7.0f));
}

TEST(FunctionApi, CopyOfAnInput) {
  expect_all_agree<float>("function (I) -> (O) { O = I; }", {{3, 5}}, [](const auto& in) {
    return vectors{{in[0].values.begin(), in[0].values.end()}};
  }, 1);
}

TEST(LoweringOptions, RegisterBlockingOffGivesTheSameResults) {
  const std::string source = R"(function (I[N, X, CI], K[KX, CI, CO]) -> (O) {
        O[n, x, co: N, X - KX + 1, CO] = +(I[n, x + k, ci] * K[k, ci, co]); })";
  for (const int block : {1, 3, 8}) {
    const function f = compile(source, lowering_options{.register_block = block});
    expect_all_agree<float>(source, {{2, 9, 3}, {3, 3, 7}}, [&](const auto& in) {
      std::vector<double> o(2 * 7 * 7, 0.0);
      for (int n = 0; n < 2; ++n)
        for (int x = 0; x < 7; ++x)
          for (int co = 0; co < 7; ++co)
            for (int k = 0; k < 3; ++k)
              for (int ci = 0; ci < 3; ++ci)
                o[(n * 7 + x) * 7 + co] += testing::at(in[0], {n, x + k, ci}) * testing::at(in[1], {k, ci, co});
      return vectors{o};
    }, 9, &f);
  }
}

TEST(Kernels, GoThroughTheKernelBuilder) {
  const function f = compile("function (I[N]) -> (O) { O[i: N / 2] = >(I[2 * i + j]), j < 2; }");
  const auto lp = f.lowering(row_major({{9}}), element_type::float64);
  const auto& k = std::get<kernel_launch>(lp.steps[0]);
  EXPECT_THAT(k.source, HasSubstr("#pragma OPENCL EXTENSION cl_khr_fp64 : enable"));
  EXPECT_THAT(k.source, HasSubstr("kernel void " + k.name + "("));
  // The loop over j has exact bounds: no test inside it.
  EXPECT_THAT(k.source, HasSubstr("for (int j_"));
  EXPECT_THAT(k.source, ::testing::Not(HasSubstr("%")));
}

TEST(Kernels, EveryLaunchGoesThroughTheRuntimeAndIsCounted) {
  // A contraction kernel and an elementwise kernel of another shape: two launches per call.
  const function f = compile("function (A[N, M], B[M]) -> (S, O) { S[i: N] = +(A[i, j]); O = B * 2; }");
  const auto lp = f.lowering(row_major({{7, 5}, {5}}), element_type::float32);
  ASSERT_EQ(kernel_count(lp), 2u);
  const tensor<float> a({7, 5}, tessera::testing::random_values<float>(35));
  const tensor<float> b({5}, tessera::testing::random_values<float>(5));
  for (int call = 0; call < 3; ++call) {
    const auto before = runtime::kernels_enqueued();
    const auto outputs = f(a, b);
    EXPECT_EQ(runtime::kernels_enqueued() - before, 2u) << "call " << call;
    const auto s = outputs[0].to_host(), o = outputs[1].to_host(), av = a.to_host(), bv = b.to_host();
    for (int i = 0; i < 7; ++i) {
      double sum = 0;
      for (int j = 0; j < 5; ++j) sum += av[i * 5 + j];
      EXPECT_NEAR(s[i], sum, 1e-5);
    }
    for (int j = 0; j < 5; ++j) EXPECT_EQ(o[j], 2 * bv[j]);
  }
}

}  // namespace
}  // namespace tessera::tile
