// The one timing function: its statistics and the interleaving of the finalists' rounds. What a
// sample takes in seconds is the benchmarks' business; here only what the functions do with it.
#include <tessera/baselines/timing.hpp>

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tessera/runtime/error.hpp>

namespace bl = tessera::baselines;
using ::testing::ElementsAre;

TEST(Timing, SummarizeGivesMinMedianMaxAndTheInterquartileRange) {
  const auto t = bl::summarize({5.0, 1.0, 4.0, 2.0, 3.0, 100.0, 6.0});
  EXPECT_EQ(t.min_seconds, 1.0);
  EXPECT_EQ(t.median_seconds, 4.0);
  EXPECT_EQ(t.max_seconds, 100.0);
  EXPECT_EQ(t.spread_seconds, 6.0 - 2.0) << "one outlier does not widen the spread";
  EXPECT_THAT(t.samples, ElementsAre(5.0, 1.0, 4.0, 2.0, 3.0, 100.0, 6.0)) << "the samples in the order measured";
}

TEST(Timing, TheMedianOfAnEvenCountIsTheMeanOfTheMiddleTwo) {
  EXPECT_EQ(bl::summarize({4.0, 1.0, 3.0, 2.0}).median_seconds, 2.5);
  EXPECT_EQ(bl::summarize({7.0}).spread_seconds, 0.0);
}

TEST(Timing, NoSamplesIsAnError) { EXPECT_THROW(bl::summarize({}), tessera::argument_error); }

TEST(Timing, ASampleFinishesEarlierWorkBeforeTheClockStartsAndAllCallsBeforeItStops) {
  std::vector<std::string> events;
  const bl::timed_call call{[&] { events.push_back("enqueue"); }, [&] { events.push_back("finish"); }};
  EXPECT_GE(bl::sample_seconds(call, 3), 0.0);
  EXPECT_THAT(events, ElementsAre("finish", "enqueue", "enqueue", "enqueue", "finish"));
}

TEST(Timing, WarmupsRunFinishedAndUntimed) {
  int enqueued = 0, finished = 0;
  const bl::timed_call call{[&] { ++enqueued; }, [&] { finished += enqueued; }};
  bl::timing_options options;
  options.warmups = 2;
  options.repetitions = 3;
  options.max_calls_per_sample = 1;
  const auto t = bl::time_calls(call, options);
  EXPECT_EQ(t.samples.size(), 3u);
  EXPECT_EQ(enqueued, 2 + 3);
}

TEST(Timing, WithoutWarmupsASampleIsOneCall) {
  bl::timing_options options;
  options.warmups = 0;
  int enqueued = 0;
  EXPECT_EQ(bl::calls_per_sample({[&] { ++enqueued; }, [] {}}, options), 1);
  EXPECT_EQ(enqueued, 0);
}

TEST(Timing, RoundRobinTakesOneSampleOfEachCallPerRound) {
  std::string order;
  const auto call = [&](char name) { return bl::timed_call{[&order, name] { order += name; }, [] {}}; };
  bl::timing_options options;
  options.warmups = 0;  // one call per sample: the order below is the samples'
  int rounds_seen = 0;
  const auto timings = bl::time_round_robin({call('a'), call('b'), call('c')}, 4, options, [&] { ++rounds_seen; });
  EXPECT_EQ(order, "abcabcabcabc");
  EXPECT_EQ(rounds_seen, 4);
  ASSERT_EQ(timings.size(), 3u);
  for (const auto& t : timings) EXPECT_EQ(t.samples.size(), 4u);
}

TEST(Timing, RoundRobinStopsWhenAfterRoundThrows) {
  std::string order;
  bl::timing_options options;
  options.warmups = 0;
  const bl::timed_call a{[&] { order += 'a'; }, [] {}}, b{[&] { order += 'b'; }, [] {}};
  EXPECT_THROW(bl::time_round_robin({a, b}, 5, options, [] { throw std::runtime_error("stop"); }), std::runtime_error);
  EXPECT_EQ(order, "ab");
}
