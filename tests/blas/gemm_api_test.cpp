// The public entry points: gemm() with the defaults table, matrix<T>, strided batches, and
// bad input that must fail before anything is enqueued, naming the argument.
#include <tessera/blas/blas.hpp>
#include <tessera/runtime/context.hpp>
#include <tessera/runtime/covering_event.hpp>
#include <tessera/runtime/error.hpp>
#include <tessera/runtime/matrix.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "blas/gemm_check.hpp"

namespace blas = tessera::blas;
namespace rt = tessera::runtime;
using tessera::testing::check_gemm;
using tessera::testing::gemm_case;
using tessera::testing::random_values;
using ::testing::HasSubstr;

namespace {

template <typename T>
class GemmApi : public ::testing::Test {};
using ScalarTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(GemmApi, ScalarTypes);

TYPED_TEST(GemmApi, DefaultConfigurationMatchesOpenBlasForEveryProblemClass) {
  using T = TypeParam;
  // NN here; the other transposes in gemm_slow_test.cpp (the CPU's default kernels take
  // PoCL seconds to build). Odd leading dimensions: one kernel build per configuration.
  const auto nn = blas::transpose::none;
  tessera::testing::check_default_gemm<T>(nn, nn, 1030, 1027, 260);  // large
  tessera::testing::check_default_gemm<T>(nn, nn, 257, 257, 257);    // medium
  tessera::testing::check_default_gemm<T>(nn, nn, 7, 127, 64);       // small
  tessera::testing::check_default_gemm<T>(nn, nn, 1, 1, 1);          // small
  tessera::testing::check_default_gemm<T>(nn, nn, 64, 64, 64, 5);    // batched
}

TYPED_TEST(GemmApi, MatrixOverloadsComputeTheProduct) {
  using T = TypeParam;
  if (std::is_same_v<T, double> && !rt::context::get().device().has_fp64) GTEST_SKIP();
  const auto ha = random_values<T>(7 * 5), hb = random_values<T>(7 * 3), hc = random_values<T>(5 * 3);
  rt::matrix<T> a(ha, 7, 5), b(hb, 7, 3), c(hc, 5, 3);  // C = 2 * A^T B + 0.5 C
  blas::gemm(blas::transpose::trans, blas::transpose::none, T(2), a, b, T(0.5), c).wait();
  std::vector<T> ref = hc;
  tessera::testing::cblas_gemm<T>(true, false, 5, 3, 7, T(2), ha.data(), 7, hb.data(), 7, T(0.5), ref.data(), 5);
  const auto out = c.to_host();
  for (std::size_t i = 0; i < ref.size(); ++i) EXPECT_NEAR(out[i], ref[i], tessera::testing::tolerance<T>(9) * 8);

  rt::matrix<T> d(hc, 5, 3);
  blas::gemm(blas::transpose::trans, blas::transpose::none, 5, 3, 7, T(2), a, 7, b, 7, T(0.5), d, 5).wait();
  EXPECT_EQ(d.to_host(), out);
}

TYPED_TEST(GemmApi, StridedBatchedEntryPointComputesEachEntry) {
  using T = TypeParam;
  if (std::is_same_v<T, double> && !rt::context::get().device().has_fp64) GTEST_SKIP();
  auto& ctx = rt::context::get();
  const int m = 7, n = 5, k = 3, batch = 4, sa = m * k + 2, sb = k * n + 1, sc = m * n + 3;
  const auto ha = random_values<T>(sa * batch), hb = random_values<T>(sb * batch);
  auto hc = random_values<T>(sc * batch);
  rt::device_buffer a(ctx, ha.size() * sizeof(T)), b(ctx, hb.size() * sizeof(T)), c(ctx, hc.size() * sizeof(T));
  a.write(0, a.bytes(), ha.data()), b.write(0, b.bytes(), hb.data()), c.write(0, c.bytes(), hc.data());
  blas::gemm_strided_batched(blas::transpose::none, blas::transpose::none, m, n, k, T(1), a, 0, m, sa, b, 0, k, sb,
                             T(1), c, 0, m, sc, batch)
      .wait();
  std::vector<T> out(hc.size());
  c.read(0, c.bytes(), out.data());
  for (int e = 0; e < batch; ++e)
    tessera::testing::cblas_gemm<T>(false, false, m, n, k, T(1), ha.data() + e * sa, m, hb.data() + e * sb, k, T(1),
                                    hc.data() + e * sc, m);
  for (std::size_t i = 0; i < hc.size(); ++i) EXPECT_NEAR(out[i], hc[i], tessera::testing::tolerance<T>(5) * 8);
}

TEST(GemmApi, EmptyProblemsEnqueueNoKernelAndReturnAnEvent) {
  auto& ctx = rt::context::get();
  rt::device_buffer c(ctx, 64 * sizeof(float));
  const rt::device_buffer none;
  const auto before = blas::detail::launch_count();
  blas::gemm<float>(blas::transpose::none, blas::transpose::none, 0, 5, 3, 1.f, none, 0, 1, none, 0, 3, 0.f, c, 0, 1)
      .wait();
  blas::gemm_strided_batched<float>(blas::transpose::none, blas::transpose::none, 2, 2, 2, 1.f, c, 0, 2, 4, c, 0, 2,
                                    4, 0.f, c, 0, 2, 4, 0)
      .wait();
  EXPECT_EQ(blas::detail::launch_count(), before);
}

// A batch beyond 65535 work-groups along the batch is split into launches; the event must
// cover them all (issue 15, item 3: only the last launch's event was returned, and the tuner
// ranked a 4 x 4 x 4 batch of 65536 at 3,475 GFLOP/s on 2 cores).
TEST(GemmApi, ABatchSplitIntoSeveralLaunchesReturnsAnEventCoveringThemAll) {
  auto& ctx = rt::context::get();
  const int m = 3, n = 2, k = 5, batch = 65535 + 7;  // two launches of one batch entry per work-group
  const auto params = blas::parse_gemm_params("naive item=1x1 wg=4x2");
  ASSERT_EQ(params.wg_batch, 1);
  const auto ha = random_values<float>(m * k * batch), hb = random_values<float>(k * n * batch);
  auto hc = random_values<float>(m * n * batch);
  rt::device_buffer a(ctx, ha.size() * 4), b(ctx, hb.size() * 4), c(ctx, hc.size() * 4);
  a.write(0, a.bytes(), ha.data()), b.write(0, b.bytes(), hb.data()), c.write(0, c.bytes(), hc.data());
  blas::gemm_arguments<float> x;
  x.m = m, x.n = n, x.k = k, x.alpha = 0.5f, x.beta = 2.0f, x.batch_count = batch;
  x.a = &a, x.lda = m, x.stride_a = m * k, x.b = &b, x.ldb = k, x.stride_b = k * n, x.c = &c, x.ldc = m,
  x.stride_c = m * n;
  const auto launches_before = blas::detail::launch_count();
  const cl::Event event = blas::gemm_with(params, x);
  ASSERT_EQ(blas::detail::launch_count() - launches_before, 2u);

  const cl::Event first = rt::first_command(event);
  ASSERT_NE(first(), event()) << "the event is one launch's, not the call's";
  EXPECT_EQ(first.getInfo<CL_EVENT_COMMAND_TYPE>(), CL_COMMAND_NDRANGE_KERNEL);
  const rt::device_interval span = rt::profiled_interval(event);
  cl_ulong first_start = 0, first_end = 0;
  first.wait();
  first.getProfilingInfo(CL_PROFILING_COMMAND_START, &first_start);
  first.getProfilingInfo(CL_PROFILING_COMMAND_END, &first_end);
  EXPECT_EQ(span.start_ns, first_start);
  EXPECT_GT(span.end_ns, first_end) << "the span ends after the second launch, which runs after the first";

  // Every entry is computed, the first launch's and the last one's.
  std::vector<float> out(hc.size());
  c.read(0, c.bytes(), out.data());
  for (int e = 0; e < batch; ++e)
    tessera::testing::cblas_gemm<float>(false, false, m, n, k, 0.5f, ha.data() + e * m * k, m,
                                        hb.data() + e * k * n, k, 2.0f, hc.data() + e * m * n, m);
  for (std::size_t i = 0; i < hc.size(); ++i)
    ASSERT_NEAR(out[i], hc[i], tessera::testing::tolerance<float>(k) * 16) << "entry " << i / (m * n);
}

// gemm_arguments::event = none: no event is made (an empty one returns), and C is written all the
// same, by one launch, by split-K's two, by a batch split into several launches, and not at all
// for an empty product (nothing enqueued).
TEST(GemmApi, WithoutAnEventTheCallStillWritesC) {
  gemm_case plain;
  plain.m = 37, plain.n = 29, plain.k = 41, plain.event = rt::launch_event::none;
  check_gemm<float>(std::nullopt, plain);
  gemm_case split = plain;
  split.m = 13, split.n = 7, split.k = 1003, split.trans_a = blas::transpose::trans;
  check_gemm<float>(blas::parse_gemm_params("local vector_width=2 item=2x2 wg=4x4 split_k=4"), split);
  gemm_case batched = plain;
  batched.m = 3, batched.n = 2, batched.k = 5, batched.batch = 65535 + 3;
  const auto launches_before = blas::detail::launch_count();
  check_gemm<float>(blas::parse_gemm_params("naive item=1x1 wg=4x2"), batched);
  EXPECT_EQ(blas::detail::launch_count() - launches_before, 2u);
  gemm_case empty = plain;
  empty.n = 0;
  const auto enqueued_before = rt::kernels_enqueued();
  check_gemm<float>(std::nullopt, empty);
  EXPECT_EQ(rt::kernels_enqueued(), enqueued_before);
}

// ---- bad input ------------------------------------------------------------------------------

class GemmBadInput : public ::testing::Test {
 protected:
  rt::context& ctx = rt::context::get();
  rt::device_buffer a{ctx, 100 * sizeof(float)}, b{ctx, 100 * sizeof(float)}, c{ctx, 100 * sizeof(float)};
  blas::gemm_arguments<float> args() {
    blas::gemm_arguments<float> x;
    x.m = 10, x.n = 10, x.k = 10, x.a = &a, x.lda = 10, x.b = &b, x.ldb = 10, x.c = &c, x.ldc = 10;
    return x;
  }
  // The call must throw argument_error mentioning each of the words, and enqueue nothing.
  template <typename Call>
  void expect_rejected(Call call, std::vector<std::string> words) {
    const auto before = blas::detail::launch_count();
    try {
      call();
      ADD_FAILURE() << "no error for a bad call";
    } catch (const tessera::argument_error& e) {
      for (const auto& w : words) EXPECT_THAT(e.what(), HasSubstr(w));
    }
    EXPECT_EQ(blas::detail::launch_count(), before) << "a kernel was enqueued";
  }
  void expect_rejected_args(blas::gemm_arguments<float> x, std::vector<std::string> words) {
    expect_rejected([&] { blas::gemm(x); }, std::move(words));
  }
};

TEST_F(GemmBadInput, NegativeSizesAreNamed) {
  auto x = args();
  x.m = -1;
  expect_rejected_args(x, {"m = -1", "negative"});
  x = args(), x.n = -2;
  expect_rejected_args(x, {"n = -2"});
  x = args(), x.k = -3;
  expect_rejected_args(x, {"k = -3"});
  x = args(), x.batch_count = -1;
  expect_rejected_args(x, {"batch_count = -1"});
}

TEST_F(GemmBadInput, LeadingDimensionsBelowTheRowsAreNamed) {
  auto x = args();
  x.m = 5, x.k = 10, x.lda = 4;
  expect_rejected_args(x, {"lda = 4", "5 rows of A", "trans_a = N"});
  x = args(), x.trans_a = blas::transpose::trans, x.m = 5, x.k = 8, x.lda = 7;
  expect_rejected_args(x, {"lda = 7", "8 rows of A", "trans_a = T"});
  x = args(), x.ldb = 9;
  expect_rejected_args(x, {"ldb = 9", "rows of B"});
  x = args(), x.trans_b = blas::transpose::trans, x.n = 6, x.k = 2, x.ldb = 5;
  expect_rejected_args(x, {"ldb = 5", "trans_b = T"});
  x = args(), x.ldc = 3;
  expect_rejected_args(x, {"ldc = 3", "rows of C"});
}

TEST_F(GemmBadInput, BuffersTooSmallForSizesOffsetsAndStridesAreNamed) {
  auto x = args();
  x.k = 11;  // A: 10 x 11 > 100 elements (checked before B)
  x.ldb = 11;
  expect_rejected_args(x, {"buffer A", "holds 100 float elements", "need 110"});
  x = args(), x.b_offset = 1;
  expect_rejected_args(x, {"buffer B", "b_offset = 1", "need 101"});
  x = args(), x.c_offset = 50;
  expect_rejected_args(x, {"buffer C", "c_offset = 50"});
  x = args(), x.m = 2, x.n = 2, x.k = 2, x.lda = 2, x.ldb = 2, x.ldc = 2, x.batch_count = 3, x.stride_a = 49,
  x.stride_c = 4;
  expect_rejected_args(x, {"buffer A", "stride_a = 49", "batch_count = 3"});
  x = args(), x.a = nullptr;
  expect_rejected_args(x, {"A is missing"});
}

// Offsets, strides and spans that do not fit 64 bits were once wrapped around and passed the
// bounds check (issue 15, item 2): c_offset = SIZE_MAX - 15 ended in "double free or corruption".
TEST_F(GemmBadInput, OffsetsOf2To63OrMoreAreNamed) {
  auto x = args();
  x.a_offset = std::size_t{1} << 63;
  expect_rejected_args(x, {"a_offset = 9223372036854775808", "2^63 or more"});
  x = args(), x.c_offset = SIZE_MAX - 15;
  expect_rejected_args(x, {"c_offset = 18446744073709551600", "2^63 or more"});
  x = args(), x.k = 0, x.b_offset = SIZE_MAX;  // refused even where B is not read
  expect_rejected_args(x, {"b_offset = 18446744073709551615"});
}

TEST_F(GemmBadInput, StrideTimesBatchThatOverflowsIsNamed) {
  auto x = args();
  // 4 * 2^62 wraps to 0: the span would have looked like one matrix's.
  x.m = 2, x.n = 2, x.k = 2, x.lda = 2, x.ldb = 2, x.ldc = 2, x.batch_count = 5, x.stride_a = std::int64_t{1} << 62,
  x.stride_b = 4, x.stride_c = 4;
  expect_rejected_args(x, {"(batch_count - 1) * stride_a", "overflows"});
  x.stride_a = 4, x.stride_c = std::int64_t{1} << 62;
  expect_rejected_args(x, {"(batch_count - 1) * stride_c", "overflows"});
}

TEST_F(GemmBadInput, SpansThatOverflowAreNamed) {
  auto x = args();
  x.b_offset = (std::size_t{1} << 63) - 10;  // a size, but the span past it is not
  expect_rejected_args(x, {"the elements B spans", "b_offset", "overflows"});
  x = args(), x.m = 2, x.n = 2, x.k = 2, x.lda = 2, x.ldb = 2, x.ldc = 2, x.batch_count = 2,
  x.stride_a = INT64_MAX - 2, x.stride_c = 4;
  expect_rejected_args(x, {"the elements A spans", "overflows"});
}

TEST_F(GemmBadInput, StridesMustNotBeNegativeNorOverlapC) {
  auto x = args();
  x.m = 2, x.n = 2, x.k = 2, x.lda = 2, x.ldb = 2, x.ldc = 2, x.batch_count = 2, x.stride_b = -4;
  expect_rejected_args(x, {"stride_b = -4", "negative"});
  x.stride_b = 4, x.stride_c = 3;
  expect_rejected_args(x, {"stride_c = 3", "overlap", "at least"});
}

TEST_F(GemmBadInput, COverlappingAnOperandIsRejected) {
  auto x = args();
  x.m = 5, x.n = 5, x.k = 5, x.lda = 5, x.ldb = 5, x.ldc = 5, x.c = &a, x.c_offset = 10;
  expect_rejected_args(x, {"C overlaps A"});
}

TEST_F(GemmBadInput, MatrixShapesThatDisagreeWithMNKAreNamed) {
  rt::matrix<float> ma(4, 3), mb(3, 5), mc(4, 5);
  const auto call = [&](rt::index_t m, rt::index_t n, rt::index_t k, rt::index_t lda) {
    return [&, m, n, k, lda] {
      blas::gemm(blas::transpose::none, blas::transpose::none, m, n, k, 1.f, ma, lda, mb, 3, 0.f, mc, m);
    };
  };
  expect_rejected(call(4, 5, 2, 4), {"A is 4x3", "trans_a = N, m = 4, k = 2", "4x2"});
  expect_rejected(call(4, 6, 3, 4), {"B is 3x5"});
  expect_rejected(call(4, 5, 3, 6), {"lda = 6", "leading dimension of matrix A"});
  expect_rejected([&] { blas::gemm(blas::transpose::trans, blas::transpose::none, 1.f, ma, mb, 0.f, mc); },
                  {"inner dimensions differ"});
  expect_rejected([&] { blas::gemm(blas::transpose::none, blas::transpose::none, 1.f, ma, mb, 0.f, ma); },
                  {"C is 4x3", "4x5"});
}

TEST_F(GemmBadInput, ConfigurationsThatDoNotFitTheDeviceNameTheRule) {
  auto x = args();
  const auto before = blas::detail::launch_count();
  const auto local_bytes = ctx.device().local_memory_bytes;
  // A K tile of local_bytes / 256 floats staged for 64 + 64 columns needs twice the local memory.
  const auto cls = static_cast<int>(local_bytes / 64 * 2);
  const auto too_big =
      blas::parse_gemm_params(fmt::format("local vector_width=1 cache_line_bytes={} item=8x8 wg=8x8", cls));
  try {
    blas::gemm_with(too_big, x);
    ADD_FAILURE() << "no error";
  } catch (const tessera::unsupported_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("rule 'local_memory_limit'"));
  }
  const auto bad = blas::parse_gemm_params("naive item=2x2 wg=8x8");
  try {
    blas::gemm_with(bad, x);
    ADD_FAILURE() << "no error";
  } catch (const tessera::unsupported_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("rule 'item_applies'"));
  }
  EXPECT_EQ(blas::detail::launch_count(), before);
}

TEST(GemmTyped, TypedConfigurationRunsWhenTransposesAgree) {
  using config = blas::gemm_kernel_config<blas::gemm_params{.family = blas::gemm_family::local, .sg_rows = 2,
                                                            .sg_cols = 4, .double_buffer = true,
                                                            .no_bank_conflict_a = true, .vector_width = 4},
                                          false, true, float>;
  static_assert(config::params.double_buffer && config::params.sg_cols == 4);
  auto& ctx = rt::context::get();
  const auto ha = random_values<float>(33 * 17), hb = random_values<float>(29 * 17);
  rt::device_buffer a(ctx, ha.size() * 4), b(ctx, hb.size() * 4), c(ctx, 33 * 29 * 4);
  a.write(0, a.bytes(), ha.data()), b.write(0, b.bytes(), hb.data());
  blas::gemm_arguments<float> x;
  x.trans_b = blas::transpose::trans, x.m = 33, x.n = 29, x.k = 17;
  x.a = &a, x.lda = 33, x.b = &b, x.ldb = 29, x.c = &c, x.ldc = 33;
  blas::gemm_with<config>(x).wait();
  std::vector<float> out(33 * 29), ref(33 * 29, 0.f);
  c.read(0, c.bytes(), out.data());
  tessera::testing::cblas_gemm<float>(false, true, 33, 29, 17, 1.f, ha.data(), 33, hb.data(), 29, 0.f, ref.data(), 33);
  for (std::size_t i = 0; i < ref.size(); ++i) EXPECT_NEAR(out[i], ref[i], 1e-4f);
  x.trans_b = blas::transpose::none;
  x.ldb = 17;
  EXPECT_THROW(blas::gemm_with<config>(x), tessera::argument_error);
}

}  // namespace
