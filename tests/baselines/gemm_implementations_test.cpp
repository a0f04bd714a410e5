// The baselines verified like tessera's GEMM, on the default device (PoCL in CI): CLBlast (float,
// double, strided-batched), OpenBLAS and tessera at odd sizes against the host reference; and a
// failing or wrong baseline recorded as failed with its reason.
#include <tessera/baselines/device_peak.hpp>
#include <tessera/baselines/gemm_implementations.hpp>

#include <limits>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tessera/blas/gemm.hpp>
#include <tessera/runtime/context.hpp>

#include "support/test_data.hpp"

namespace bl = tessera::baselines;
namespace rt = tessera::runtime;
using ::testing::HasSubstr;

namespace {

bl::timing_options quick() {
  bl::timing_options options;
  options.warmups = 0;
  options.repetitions = 1;
  return options;
}

template <typename T>
class Baselines : public ::testing::Test {};
using element_types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Baselines, element_types);

// 1, primes, sizes that are no multiple of any tile, all four transposes, batched and not.
const std::vector<bl::gemm_shape> odd_shapes{{false, false, 1, 1, 1, 1},
                                             {false, true, 17, 5, 3, 1},
                                             {true, false, 31, 29, 37, 3},
                                             {true, true, 64, 33, 7, 2}};

template <typename T>
void expect_verified(bl::gemm_implementation<T>& gemm, const bl::gemm_operands<T>& p) {
  const auto m = bl::verify_and_time(gemm, p.reference, bl::gemm_tolerance<T>(p.shape.k), quick());
  EXPECT_EQ(m.outcome, bl::status::ok) << gemm.name() << " " << p.shape.name() << ": " << m.reason;
  ASSERT_TRUE(m.time.has_value());
  EXPECT_GT(m.time->median_seconds, 0.0);
}

// C filled from the reference except one element: an element a call never writes.
class leaves_one_element : public bl::gemm_implementation<float> {
 public:
  leaves_one_element(const std::vector<float>& reference, std::size_t skipped)
      : gemm_implementation("leaves one element", bl::processor::host), reference_(reference), skipped_(skipped) {}
  void enqueue() override {
    for (std::size_t i = 0; i < c_.size(); ++i)
      if (i != skipped_) c_[i] = reference_[i];
  }
  void finish() override {}
  void poison() override { c_.assign(reference_.size(), std::numeric_limits<float>::quiet_NaN()); }
  std::vector<float> result() override { return c_; }

 private:
  const std::vector<float>& reference_;
  std::size_t skipped_;
  std::vector<float> c_;
};

class throws_on_call : public bl::gemm_implementation<float> {
 public:
  throws_on_call() : gemm_implementation("throws", bl::processor::opencl_device) {}
  void enqueue() override { throw bl::baseline_error("CLBlastSgemm (nn 3x3x3): CLBlastInvalidLeadDimA"); }
  void finish() override {}
  void poison() override {}
  std::vector<float> result() override { return {}; }
};

}  // namespace

TYPED_TEST(Baselines, CLBlastAgreesWithTheHostReferenceAtOddSizes) {
  auto& ctx = rt::context::get();
  if (std::is_same_v<TypeParam, double> && !ctx.device().has_fp64) GTEST_SKIP() << "no fp64";
  for (const auto& shape : odd_shapes) {
    const bl::gemm_operands<TypeParam> p(ctx, shape, tessera::testing::fresh_seed());
    expect_verified(*bl::clblast_gemm<TypeParam>(ctx, shape, p.a, p.b, p.c), p);
  }
}

TYPED_TEST(Baselines, OpenBLASAndTesseraAgreeWithTheHostReference) {
  auto& ctx = rt::context::get();
  if (std::is_same_v<TypeParam, double> && !ctx.device().has_fp64) GTEST_SKIP() << "no fp64";
  for (const auto& shape : odd_shapes) {
    const bl::gemm_operands<TypeParam> p(ctx, shape, tessera::testing::fresh_seed());
    expect_verified(*bl::openblas_gemm<TypeParam>(shape, p.host_a, p.host_b), p);
    tessera::blas::gemm_arguments<TypeParam> args;
    args.m = shape.m, args.n = shape.n, args.k = shape.k, args.batch_count = shape.batch;
    const auto params = tessera::blas::default_params_for(args, ctx);
    expect_verified(*bl::tessera_gemm<TypeParam>("tessera", ctx, params, shape, p.a, p.b, p.c), p);
  }
}

TEST(Baselines, ABaselineThatFailsIsRecordedWithItsReason) {
  const std::vector<float> reference{1.f, 2.f};
  throws_on_call gemm;
  const auto m = bl::verify_and_time(gemm, reference, 1e-6, quick());
  EXPECT_EQ(m.outcome, bl::status::launch_failed);
  EXPECT_THAT(m.reason, HasSubstr("CLBlastSgemm (nn 3x3x3): CLBlastInvalidLeadDimA"));
  EXPECT_FALSE(m.time.has_value()) << "a failed baseline is never timed, so never ranked";
}

TEST(Baselines, AnElementNeverWrittenIsAWrongResult) {
  const auto reference = tessera::testing::random_values<float>(12);
  leaves_one_element gemm(reference, 7);
  const auto m = bl::verify_and_time(gemm, reference, 1e-6, quick());
  EXPECT_EQ(m.outcome, bl::status::wrong_result);
  EXPECT_THAT(m.reason, HasSubstr("element 7 is nan"));
  EXPECT_FALSE(m.time.has_value());
}

TEST(Baselines, ACLBlastErrorNamesTheRoutineAndItsStatus) {
  auto& ctx = rt::context::get();
  const bl::gemm_shape shape{false, false, 8, 8, 8, 1};
  const bl::gemm_operands<float> p(ctx, shape, tessera::testing::fresh_seed());
  const rt::device_buffer small_c(ctx, 4 * sizeof(float));
  try {
    bl::enqueue_clblast_gemm<float>(shape, p.a.handle()(), p.b.handle()(), small_c.handle()(), ctx.queue()());
    FAIL() << "expected baseline_error";
  } catch (const bl::baseline_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("CLBlastSgemm (nn 8x8x8): CLBlastInsufficientMemoryC"));
  }
}

TEST(Baselines, ExceptionsBecomeTheirStatus) {
  const auto built = bl::failure_of(rt::build_error("gemm", "device", "-DX", "line 1: error\nline 2\nline 3\nline 4"));
  EXPECT_EQ(built.outcome, bl::status::build_failed);
  EXPECT_EQ(built.reason, "line 1: error line 2 line 3");
  EXPECT_EQ(bl::failure_of(tessera::unsupported_error("no fp64")).outcome, bl::status::unsupported);
  EXPECT_EQ(bl::failure_of(std::runtime_error("x")).outcome, bl::status::launch_failed);
}

TEST(GemmProblem, SizesBelowOneOrBeyondBlasAreRefusedNamingTheShape) {
  EXPECT_THROW(bl::footprint({false, false, 0, 5, 5, 1}, 4), tessera::argument_error);
  try {
    bl::footprint({false, true, std::int64_t(1) << 31, 5, 5, 1}, 4);
    FAIL() << "expected argument_error";
  } catch (const tessera::argument_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("nt 2147483648x5x5: sizes and the batch count are at most 2147483647"));
  }
  try {
    bl::footprint({false, false, 2000000000, 2000000000, 2000000000, 2000000000}, 8);
    FAIL() << "expected argument_error";
  } catch (const tessera::argument_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("overflows 64 bits"));
  }
}

TEST(GemmProblem, TheFootprintCountsEveryBatchEntry) {
  const auto bytes = bl::footprint({true, false, 3, 5, 7, 2}, 8);
  EXPECT_EQ(bytes.a, 3u * 7 * 2 * 8);
  EXPECT_EQ(bytes.b, 7u * 5 * 2 * 8);
  EXPECT_EQ(bytes.c, 3u * 5 * 2 * 8);
  EXPECT_EQ(bytes.largest(), bytes.b);
}

TEST(DevicePeak, ComesFromComputeUnitsClockAndLanes) {
  const auto cpu = bl::estimate_peak(rt::device_type::cpu, 2, 2600, 16);
  ASSERT_TRUE(cpu.has_value());
  EXPECT_DOUBLE_EQ(cpu->gflops, 2 * 2.6 * 16 * 2 * 2);
  EXPECT_THAT(cpu->derivation, HasSubstr("2 compute units x 2600 MHz x 32 lanes"));
  const auto h200 = bl::estimate_peak(rt::device_type::gpu, 132, 1980, 1);
  ASSERT_TRUE(h200.has_value());
  EXPECT_NEAR(h200->gflops, 133816.3, 0.1);
  EXPECT_GT(h200->gflops, 51300.0) << "cuBLAS's FP32 GEMM on the H200 must stay plausible";
  EXPECT_LT(h200->gflops, 800266.0) << "CLBlast's mistimed 800,266 GFLOP/s must not";
  EXPECT_FALSE(bl::estimate_peak(rt::device_type::gpu, 132, 0, 1).has_value());
}

TEST(DevicePeak, IsKnownForTheTestDevice) {
  const auto peak = bl::estimate_peak(rt::context::get().device(), sizeof(float));
  ASSERT_TRUE(peak.has_value());
  EXPECT_GT(peak->gflops, 0.0);
}
