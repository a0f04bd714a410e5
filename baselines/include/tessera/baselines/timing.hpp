#pragma once
// The one way tessera's tools time a call, whatever runs it (tessera's GEMM, CLBlast, OpenBLAS,
// cuBLAS, a GEMM followed by a separate kernel): a wall clock from before the first call is
// enqueued to after finish() returns. Work a library enqueues behind the event it returns
// (CLBlast's pad and unpad kernels, a batch split into several launches) is therefore always
// inside the time, and every row of a comparison is timed alike.
#include <functional>
#include <vector>

namespace tessera::baselines {

/// What is timed: enqueue() starts one call and may return before it is done; finish()
/// returns once every call enqueued so far has finished.
struct timed_call {
  std::function<void()> enqueue;
  std::function<void()> finish;
};

/// The samples of one call's duration and what a ranking needs of them.
struct timing {
  std::vector<double> samples;  // seconds per call, in the order measured
  double min_seconds = 0, median_seconds = 0, max_seconds = 0;
  /// The interquartile range in seconds: how far typical samples lie apart, unmoved by one
  /// outlier (0 with fewer than four samples' worth of difference).
  double spread_seconds = 0;
};

/// min, median, max and spread of samples (at least one).
timing summarize(std::vector<double> samples);

struct timing_options {
  int warmups = 1;                   // untimed calls first (kernel builds, caches, clocks)
  int repetitions = 5;               // samples
  double min_sample_seconds = 1e-3;  // a sample runs calls back to back for at least this long
  int max_calls_per_sample = 1000;
};

/// Runs options.warmups calls, each finished, and returns how many calls back to back last at
/// least min_sample_seconds (from the last warm-up; 1 without warm-ups), so that a sample of a
/// short call is not mostly the cost of finish().
int calls_per_sample(const timed_call& call, const timing_options& options);

/// One sample: finish() (earlier work is not counted), then `calls` calls back to back and
/// finish(), timed by a steady wall clock. Returns seconds per call.
double sample_seconds(const timed_call& call, int calls);

/// Warm-ups, then options.repetitions samples.
timing time_calls(const timed_call& call, const timing_options& options);

/// Several calls measured interleaved in one process: each of `rounds` rounds takes one sample
/// of every call in turn, so that a slow phase of the machine (another process, a clock
/// change) falls on all of them alike. after_round, when given, runs after each round (it may
/// throw to stop). Returns one timing per call, in the calls' order.
std::vector<timing> time_round_robin(const std::vector<timed_call>& calls, int rounds, const timing_options& options,
                                     const std::function<void()>& after_round = {});

}  // namespace tessera::baselines
