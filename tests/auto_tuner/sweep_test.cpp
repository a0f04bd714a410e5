// The plan of a sweep across ranks (sweep.hpp), without a device or MPI: which rank gets which
// problem, when an item waits, what its search starts from, and what is recorded.
#include <algorithm>
#include <random>

#include <gtest/gtest.h>

#include "sweep.hpp"

namespace {

using tessera::auto_tuner::sweep;
using tessera::auto_tuner::sweep_item;
using tessera::auto_tuner::sweep_report;
using tessera::baselines::suite_shape;

const std::string h200 = "NVIDIA H200", h100 = "NVIDIA H100";

suite_shape shape(std::int64_t m, std::int64_t n, std::int64_t k, bool trans_a = false) {
  return {m, n, k, 1, trans_a, false, 1.0, "test"};
}

// A complete run whose best configuration names the job (item=IxI, wg by the device), so that
// seeds show where they came from.
nlohmann::json run_of(std::size_t job, int wg = 8) {
  const std::string configuration = "local cache_line_bytes=64 item=" + std::to_string(1 << (job % 4)) + "x" +
                                    std::to_string(1 << (job / 4 % 4)) + " wg=" + std::to_string(wg) + "x8";
  return {{"partial", false},
          {"job", job},
          {"results",
           {{{"kind", "config"}, {"status", "ok"}, {"configuration", configuration}, {"gflops", {{"median", 100.0}}}}}}};
}

sweep_report done(std::size_t job, int wg = 8) { return {run_of(job, wg), "", 0}; }

// Four shapes near each other, then one far from all (no seed neighbour within reach).
std::vector<suite_shape> suite() {
  return {shape(1024, 1024, 1024), shape(1024, 1024, 2048), shape(2048, 1024, 1024), shape(1024, 1024, 1024, true),
          shape(16, 16, 1 << 20)};
}

TEST(Sweep, EveryProblemGoesOutOnceInSuiteOrderWhenItsNeighboursAreDone) {
  sweep plan(suite(), {h200, h200}, 2);
  EXPECT_EQ(plan.items(), 5u);
  const auto first = plan.exchange(0, std::nullopt);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->job, 0u);
  EXPECT_TRUE(first->seeds.empty());
  // Job 1's neighbour (job 0) is being measured: rank 1 gets the far job 4, which needs none.
  const auto second = plan.exchange(1, std::nullopt);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->job, 4u);
  // Rank 1 finishes; jobs 1 to 3 still wait for job 0.
  EXPECT_FALSE(plan.exchange(1, done(4)));
  EXPECT_TRUE(plan.waits(1));
  const auto third = plan.exchange(0, done(0));
  ASSERT_TRUE(third);
  EXPECT_EQ(third->job, 1u);
  const std::string leader = run_of(0)["results"][0]["configuration"].get<std::string>();
  EXPECT_EQ(third->seeds, std::vector<std::string>{tessera::blas::to_string(tessera::blas::parse_gemm_params(leader))});
  std::vector<std::size_t> handed{0, 4, 1};
  std::optional<sweep_report> report_0 = done(1), report_1;
  for (;;) {
    auto next = plan.exchange(1, report_1);
    report_1.reset();
    if (next) handed.push_back(next->job), report_1 = done(next->job);
    auto other = plan.exchange(0, report_0);
    report_0.reset();
    if (other) handed.push_back(other->job), report_0 = done(other->job);
    if (!next && !other && !plan.waits(0) && !plan.waits(1)) break;
  }
  std::sort(handed.begin(), handed.end());
  EXPECT_EQ(handed, (std::vector<std::size_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(plan.complete(), 5u);
  EXPECT_EQ(plan.failed(), 0u);
  ASSERT_EQ(plan.runs().size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(plan.runs()[i]["job"], i);  // in suite order
  EXPECT_TRUE(plan.any_verified());
}

// Whatever the number of ranks and the order in which they finish, every search starts from the
// same seeds as on one rank.
TEST(Sweep, SeedsDoNotDependOnTheRanksOrTheOrderTheyFinishIn) {
  std::vector<suite_shape> jobs;
  std::mt19937 random(7);
  for (int i = 0; i < 40; ++i)
    jobs.push_back(shape(16 << (random() % 8), 16 << (random() % 8), 16 << (random() % 10), random() % 2 != 0));
  const auto seeds_with = [&](int ranks, unsigned order_seed) {
    sweep plan(jobs, std::vector<std::string>(std::size_t(ranks), h200), 2);
    std::map<std::size_t, std::vector<std::string>> seeds;
    std::vector<std::optional<std::size_t>> busy(static_cast<std::size_t>(ranks));
    std::mt19937 order(order_seed);
    for (int step = 0; step < 10000 && seeds.size() < jobs.size(); ++step) {
      const int rank = int(order() % unsigned(ranks));
      std::optional<sweep_report> report;
      if (busy[std::size_t(rank)]) report = done(*busy[std::size_t(rank)]);
      busy[std::size_t(rank)].reset();
      if (const auto item = plan.exchange(rank, report)) {
        seeds[item->job] = item->seeds;
        busy[std::size_t(rank)] = item->job;
      }
    }
    EXPECT_EQ(seeds.size(), jobs.size());
    return seeds;
  };
  const auto alone = seeds_with(1, 1);
  EXPECT_GT(std::count_if(alone.begin(), alone.end(), [](const auto& s) { return !s.second.empty(); }), 20);
  for (const int ranks : {2, 3, 8})
    for (unsigned order_seed = 1; order_seed <= 5; ++order_seed) EXPECT_EQ(seeds_with(ranks, order_seed), alone);
}

TEST(Sweep, EachDeviceModelMeasuresEveryProblemAndSeedsOnlyFromItsOwn) {
  sweep plan({shape(1024, 1024, 1024), shape(1024, 1024, 2048)}, {h200, h100, h200}, 1);
  EXPECT_EQ(plan.devices(), (std::vector<std::string>{h200, h100}));
  EXPECT_EQ(plan.items(), 4u);
  EXPECT_EQ(plan.exchange(0, std::nullopt)->job, 0u);
  EXPECT_EQ(plan.exchange(1, std::nullopt)->job, 0u);  // the H100's own job 0
  EXPECT_FALSE(plan.exchange(2, std::nullopt));        // the H200's job 1 waits for its job 0
  EXPECT_TRUE(plan.waits(2));
  const auto h200_job_1 = plan.exchange(0, done(0, 16));  // ready now: the rank that asks first takes it
  ASSERT_TRUE(h200_job_1);
  EXPECT_EQ(h200_job_1->job, 1u);
  EXPECT_FALSE(plan.exchange(2, std::nullopt));
  EXPECT_FALSE(plan.waits(2));  // nothing of the H200's is left
  ASSERT_EQ(h200_job_1->seeds.size(), 1u);
  EXPECT_NE(h200_job_1->seeds[0].find("wg=16x8"), std::string::npos);  // the H200's leader
  const auto h100_job_1 = plan.exchange(1, done(0, 4));
  ASSERT_TRUE(h100_job_1);
  ASSERT_EQ(h100_job_1->seeds.size(), 1u);
  EXPECT_NE(h100_job_1->seeds[0].find("wg=4x8"), std::string::npos);  // the H100's own
}

TEST(Sweep, AFailedRankTakesNoMoreAndItsItemIsRecordedPartial) {
  sweep plan({shape(64, 64, 64), shape(4096, 4096, 64), shape(8, 8, 1 << 20)}, {h200, h200}, 1);
  ASSERT_EQ(plan.exchange(0, std::nullopt)->job, 0u);
  ASSERT_EQ(plan.exchange(1, std::nullopt)->job, 1u);
  auto failed = run_of(1);
  failed["partial"] = true;
  failed["failure"] = "CL_OUT_OF_RESOURCES";
  EXPECT_FALSE(plan.exchange(1, sweep_report{failed, "CL_OUT_OF_RESOURCES", 0}));
  EXPECT_FALSE(plan.waits(1));
  EXPECT_EQ(plan.exchange(0, done(0))->job, 2u);  // the others go on
  EXPECT_FALSE(plan.exchange(0, done(2)));
  EXPECT_EQ(plan.complete(), 2u);
  EXPECT_EQ(plan.failed(), 1u);
  EXPECT_EQ(plan.runs()[1]["failure"], "CL_OUT_OF_RESOURCES");
}

TEST(Sweep, AnItemNeverReportedIsRecordedPartialAndReleasesItsNeighbours) {
  sweep plan({shape(1024, 1024, 1024), shape(1024, 1024, 2048)}, {h200, h200}, 1);
  ASSERT_EQ(plan.exchange(0, std::nullopt)->job, 0u);
  EXPECT_FALSE(plan.exchange(1, std::nullopt));
  EXPECT_TRUE(plan.waits(1));
  EXPECT_FALSE(plan.exchange(0, std::nullopt));  // rank 0 went away without its report
  EXPECT_EQ(plan.runs().at(0)["failure"], "handed out and never reported");
  EXPECT_EQ(plan.runs().at(0)["problem_class"], "large");
  const auto next = plan.exchange(1, std::nullopt);
  ASSERT_TRUE(next);
  EXPECT_EQ(next->job, 1u);
  EXPECT_TRUE(next->seeds.empty());
}

TEST(Sweep, WithoutNeighboursNothingWaits) {
  sweep plan({shape(1024, 1024, 1024), shape(1024, 1024, 2048), shape(2048, 1024, 1024)}, {h200, h200, h200}, 0);
  for (int rank = 0; rank < 3; ++rank) {
    const auto item = plan.exchange(rank, std::nullopt);
    ASSERT_TRUE(item);
    EXPECT_EQ(item->job, std::size_t(rank));
  }
}

TEST(Sweep, StoppedNoMoreGoesOutAndWhatIsOutIsStillRecorded) {
  sweep plan({shape(64, 64, 64), shape(8, 8, 1 << 20)}, {h200}, 1);
  ASSERT_TRUE(plan.exchange(0, std::nullopt));
  plan.stop();
  EXPECT_FALSE(plan.exchange(0, done(0)));
  EXPECT_FALSE(plan.waits(0));
  EXPECT_EQ(plan.runs().size(), 1u);
  EXPECT_EQ(plan.complete(), 1u);
}

TEST(Sweep, ResumedProblemsAreKeptNotHandedOutAndStillSeed) {
  const auto jobs = suite();
  std::map<std::string, nlohmann::json> resumed{
      {sweep::resumed_key(tessera::auto_tuner::problem_key("nn", 1024, 1024, 1024, 1), h200), run_of(0)}};
  sweep plan(jobs, {h200, h200, ""}, 2, resumed);
  EXPECT_EQ(plan.resumed(), 1u);
  EXPECT_EQ(plan.complete(), 1u);
  const auto item = plan.exchange(0, std::nullopt);
  ASSERT_TRUE(item);
  EXPECT_EQ(item->job, 1u);
  EXPECT_EQ(item->seeds.size(), 1u);             // job 0's leader, from the file
  EXPECT_FALSE(plan.exchange(2, std::nullopt));  // a rank without a device takes nothing
  EXPECT_FALSE(plan.waits(2));
  EXPECT_TRUE(plan.adopted(resumed.begin()->first));
  EXPECT_FALSE(plan.adopted(sweep::resumed_key(tessera::auto_tuner::problem_key("nn", 1024, 1024, 1024, 1), h100)));
}

}  // namespace
