// The tuner's conclusions without a device: which rows are implausible, which are the finalists,
// and when BEST is named.
#include "ranking.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace at = tessera::auto_tuner;
namespace bl = tessera::baselines;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

// A row that took `seconds` per call of a 1-GFLOP problem: its GFLOP/s are 1 / seconds.
at::tune_result row(std::string name, std::string kind, double seconds,
                    bl::processor where = bl::processor::opencl_device) {
  at::tune_result r;
  r.name = std::move(name);
  r.kind = std::move(kind);
  r.status = at::tune_status::ok;
  r.flops = 1e9;
  r.where = where;
  r.time = bl::summarize({seconds});
  return r;
}

at::tune_result config(std::string name, double seconds, tessera::blas::gemm_params params = {}) {
  auto r = row(std::move(name), "config", seconds);
  r.params = params;
  return r;
}

tessera::blas::gemm_params params_with_vector_width(int width) {
  tessera::blas::gemm_params p;
  p.vector_width = width;
  return p;
}

at::finalist final(std::string name, std::string kind, double median, double spread) {
  bl::timing t;
  t.median_seconds = t.min_seconds = t.max_seconds = median;
  t.spread_seconds = spread;
  return {std::move(name), std::move(kind), "", t, 1e9};
}

}  // namespace

TEST(Plausibility, ARowAboveTheDevicePeakIsAFailedMeasurement) {
  std::vector<at::tune_result> rows{row("CLBlast", "baseline", 1.0 / 800.0), config("a", 1.0 / 500.0)};
  at::reject_implausible(rows, bl::device_peak{600.0, "test peak"});
  EXPECT_EQ(rows[0].status, at::tune_status::implausible);
  EXPECT_THAT(rows[0].reason, HasSubstr("800.0 GFLOP/s is above the device's peak of 600.0 GFLOP/s (test peak)"));
  EXPECT_EQ(rows[1].status, at::tune_status::ok);
}

TEST(Plausibility, ABaselineAboveTwiceTheBestConfigurationIsAFailedMeasurement) {
  // CLBlast timed by the event of its last kernel only, as on the H200 at 3001x2999x1003.
  std::vector<at::tune_result> rows{row("CLBlast", "baseline", 1.0 / 800266.0), config("a", 1.0 / 30000.0),
                                    config("b", 1.0 / 35000.0), row("default", "default", 1.0 / 33000.0)};
  at::reject_implausible(rows, std::nullopt);
  EXPECT_EQ(rows[0].status, at::tune_status::implausible);
  EXPECT_THAT(rows[0].reason, HasSubstr("more than twice the best configuration of the run (35000.0 GFLOP/s)"));
  for (std::size_t i = 1; i < rows.size(); ++i) EXPECT_EQ(rows[i].status, at::tune_status::ok) << rows[i].name;
}

TEST(Plausibility, ABaselineIsMeasuredAgainBeforeItIsFailedForBeingTooFast) {
  // The configurations were measured while the machine was busy; measured again interleaved,
  // CLBlast is 1.5x the best of them: plausible.
  std::vector<at::tune_result> rows{row("CLBlast", "baseline", 1.0 / 300.0), config("a", 1.0 / 100.0),
                                    config("b", 1.0 / 50.0)};
  std::vector<std::pair<std::size_t, std::size_t>> asked;
  at::reject_implausible(rows, std::nullopt, [&](std::size_t suspect, std::size_t best) {
    asked.emplace_back(suspect, best);
    return std::pair{300.0, 200.0};
  });
  EXPECT_THAT(asked, ElementsAre(std::pair<std::size_t, std::size_t>{0, 1}));
  EXPECT_EQ(rows[0].status, at::tune_status::ok);
}

TEST(Plausibility, ABaselineConfirmedByTheSecondLookIsKept) {
  // cuBLAS at 64x64x65536 on the H200 is 8x tessera's best there, on both looks: a finding.
  std::vector<at::tune_result> rows{row("cuBLAS", "baseline", 1.0 / 800.0), config("a", 1.0 / 100.0)};
  at::reject_implausible(rows, std::nullopt, [](std::size_t, std::size_t) { return std::pair{790.0, 110.0}; });
  EXPECT_EQ(rows[0].status, at::tune_status::ok);
  EXPECT_EQ(rows[0].reason, "");
}

TEST(Plausibility, ABaselineWhoseSecondLookDisagreesIsFailed) {
  std::vector<at::tune_result> rows{row("CLBlast", "baseline", 1.0 / 800.0), config("a", 1.0 / 100.0)};
  at::reject_implausible(rows, std::nullopt, [](std::size_t, std::size_t) { return std::pair{390.0, 110.0}; });
  EXPECT_EQ(rows[0].status, at::tune_status::implausible);
  EXPECT_THAT(rows[0].reason, HasSubstr("800.0 GFLOP/s, 8.0x the best configuration of the run (100.0 GFLOP/s), "
                                        "but 3.5x (390.0 against 110.0 GFLOP/s) when measured again interleaved "
                                        "with it: a failed measurement"));
}

TEST(Plausibility, ASecondLookOfTinyProblemsComparesLeadsNotFigures) {
  // 784x128x1152 on the H200: single interleaved calls halve both figures; cuBLAS stays 4x ahead.
  std::vector<at::tune_result> rows{row("cuBLAS", "baseline", 1.0 / 14900.0), config("a", 1.0 / 3600.0)};
  at::reject_implausible(rows, std::nullopt, [](std::size_t, std::size_t) { return std::pair{4400.0, 1100.0}; });
  EXPECT_EQ(rows[0].status, at::tune_status::ok);
}

TEST(Plausibility, ABaselineAbovePeakOnTheSecondLookIsFailed) {
  std::vector<at::tune_result> rows{row("CLBlast", "baseline", 1.0 / 500.0), config("a", 1.0 / 100.0)};
  at::reject_implausible(rows, bl::device_peak{600.0, "test peak"},
                         [](std::size_t, std::size_t) { return std::pair{700.0, 100.0}; });
  EXPECT_EQ(rows[0].status, at::tune_status::implausible);
}

TEST(Plausibility, ARowAboveThePeakIsFailedWithoutASecondLook) {
  std::vector<at::tune_result> rows{row("CLBlast", "baseline", 1.0 / 800.0), config("a", 1.0 / 100.0)};
  bool asked = false;
  at::reject_implausible(rows, bl::device_peak{600.0, "test peak"}, [&](std::size_t, std::size_t) {
    asked = true;
    return std::pair{0.0, 0.0};
  });
  EXPECT_FALSE(asked);
  EXPECT_EQ(rows[0].status, at::tune_status::implausible);
}

TEST(Plausibility, AConfigurationFarAheadOfTheOthersIsNotRejected) {
  // On 65537 tiny 4x4x4 products the naive kernel runs three times as fast as the tiled ones.
  std::vector<at::tune_result> rows{config("naive", 1.0 / 0.9), config("tiled", 1.0 / 0.3),
                                    row("CLBlast", "baseline", 1.0 / 1.5)};
  at::reject_implausible(rows, std::nullopt);
  for (const auto& r : rows) EXPECT_EQ(r.status, at::tune_status::ok) << r.name;
}

TEST(Plausibility, HostRowsAreJudgedByNeitherRule) {
  // OpenBLAS on the host may well be many times faster than an OpenCL device's kernels.
  std::vector<at::tune_result> rows{row("OpenBLAS (host)", "baseline", 1.0 / 5000.0, bl::processor::host),
                                    config("a", 1.0 / 100.0)};
  at::reject_implausible(rows, bl::device_peak{200.0, "test peak"});
  EXPECT_EQ(rows[0].status, at::tune_status::ok);
  EXPECT_EQ(rows[1].status, at::tune_status::ok);
}

TEST(Plausibility, FailedRowsAreLeftAsTheyAre) {
  std::vector<at::tune_result> rows{config("a", 1.0 / 100.0), config("b", 1.0 / 1000.0)};
  rows[1].status = at::tune_status::wrong_result;
  rows[1].reason = "element 3 is 1 instead of 2";
  at::reject_implausible(rows, std::nullopt);
  EXPECT_EQ(rows[0].status, at::tune_status::ok) << "a failed row's figure is no yardstick";
  EXPECT_EQ(rows[1].status, at::tune_status::wrong_result);
  EXPECT_EQ(rows[1].reason, "element 3 is 1 instead of 2");
}

TEST(Finalists, AreTheFastestConfigurationsThenTheDefault) {
  std::vector<at::tune_result> rows{row("CLBlast", "baseline", 1.0),
                                    row("default", "default", 2.0),
                                    config("slow", 9.0, params_with_vector_width(1)),
                                    config("fast", 1.0, params_with_vector_width(2)),
                                    config("failed", 0.5, params_with_vector_width(4)),
                                    config("middle", 3.0, params_with_vector_width(8))};
  rows[1].params = params_with_vector_width(16);
  rows[4].status = at::tune_status::build_failed;
  EXPECT_THAT(at::pick_finalists(rows, 2), ElementsAre(3, 5, 1));
}

TEST(Finalists, LeaveOutTheConfigurationTheDefaultStandsFor) {
  std::vector<at::tune_result> rows{row("default", "default", 2.0), config("same as default", 1.0),
                                    config("other", 1.5, params_with_vector_width(2))};
  rows[0].params = rows[1].params;
  EXPECT_THAT(at::pick_finalists(rows, 3), ElementsAre(2, 0));
}

TEST(Decision, BestBeatsTheDefaultByMoreThanTheSpread) {
  const auto d = at::decide({final("a", "config", 1.0, 0.05), final("default", "default", 1.2, 0.05)});
  EXPECT_EQ(d.outcome, at::verdict::best);
  EXPECT_EQ(d.best, 0u);
  EXPECT_THAT(d.reason, HasSubstr("1.20x the default"));
}

TEST(Decision, AWinWithinTheSpreadKeepsTheDefault) {
  // 0.77x or 1.25x, the "same" configuration measured twice on a busy machine: noise, not a win.
  const auto d = at::decide({final("a", "config", 1.0, 0.3), final("default", "default", 1.2, 0.1)});
  EXPECT_EQ(d.outcome, at::verdict::default_kept);
  EXPECT_FALSE(d.best.has_value());
  EXPECT_EQ(d.default_index, 1u);
  EXPECT_THAT(d.reason, HasSubstr("a, is not faster than the default by more than the spread"));
}

TEST(Decision, AFasterMedianAloneIsNoWin) {
  const auto d = at::decide({final("a", "config", 1.19, 0.0), final("default", "default", 1.2, 0.02)});
  EXPECT_EQ(d.outcome, at::verdict::default_kept);
}

TEST(Decision, FinalistsTiedWithinTheSpreadAreResolvedByName) {
  // b is a hair faster than a this time; the next run may see the opposite: both name a.
  const auto d = at::decide({final("b", "config", 1.00, 0.02), final("a", "config", 1.01, 0.02),
                             final("c", "config", 1.10, 0.02), final("default", "default", 2.0, 0.02)});
  EXPECT_EQ(d.outcome, at::verdict::best);
  EXPECT_EQ(d.best, 1u);
}

TEST(Decision, WithoutAVerifiedDefaultTheFastestIsBest) {
  const auto d = at::decide({final("b", "config", 2.0, 0.0), final("a", "config", 1.0, 0.0)});
  EXPECT_EQ(d.outcome, at::verdict::best);
  EXPECT_EQ(d.best, 1u);
  EXPECT_THAT(d.reason, HasSubstr("no verified default"));
}

TEST(Decision, TheDefaultAloneIsKept) {
  const auto d = at::decide({final("default", "default", 1.0, 0.0)});
  EXPECT_EQ(d.outcome, at::verdict::default_kept);
  EXPECT_EQ(at::decide({}).outcome, at::verdict::none);
}
