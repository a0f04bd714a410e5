// The tune_* driver: options, baselines, parallel builds, progress, ranking and output.
#include "tuner.hpp"

#include "cli_numbers.hpp"
#include "epilogue.hpp"
#include "ranking.hpp"
#include <tessera/baselines/shape_suite.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <sstream>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <tessera/baselines/device_peak.hpp>
#include <tessera/blas/gemm_defaults.hpp>
#include <tessera/runtime/atomic_file.hpp>

namespace tessera::auto_tuner {

namespace {

using baselines::read_shape_suite;
using baselines::suite_shape;

using clock_type = std::chrono::steady_clock;
using baselines::gemm_implementation;
using baselines::processor;

struct options {
  std::int64_t m = 1024, n = 1024, k = 1024, batch = 1;
  int repetitions = 5;
  int warmups = 1;
  std::string device;
  std::string json_path, csv_path;
  std::int64_t budget = 0;  // 0: every configuration
  int build_threads = 0;    // 0: the hardware threads
  int finalists = 3;
  int rounds = 7;
  double peak_gflops = 0;  // 0: estimated from the device
  std::string fault_config, fault_baseline;
  std::string epilogue;  // empty: the plain GEMM
  baselines::gemm_precision precision = baselines::gemm_precision::fp32;  // --precision
  std::vector<std::string> shapes_paths;  // --shapes: suites of problems instead of --m --n --k --batch
  std::string resume_path;                // --resume: a results JSON whose complete problems are kept
};

std::string bytes_text(double bytes) {
  if (bytes >= 1e9) return fmt::format("{:.1f} GB", bytes * 1e-9);
  if (bytes >= 1e6) return fmt::format("{:.1f} MB", bytes * 1e-6);
  return fmt::format("{:.1f} kB", bytes * 1e-3);
}

/// Throws argument_error, before anything is allocated, when the problem cannot fit: naming the
/// sizes, the memory the problem needs on the device and the host, and what they have.
void check_problem_fits(const options& opt, const runtime::device_info& device) {
  const baselines::gemm_shape shape{false, false, opt.m, opt.n, opt.k, opt.batch};
  // On the device A and B are of their precision's elements (2 bytes for 16-bit ones), C float.
  auto bytes = baselines::footprint(shape, std::size_t(blas::operand_bytes(baselines::operands_of(opt.precision),
                                                                           sizeof(float))));
  bytes.c = baselines::footprint(shape, sizeof(float)).c;
  const std::string sizes = fmt::format("--m {} --n {} --k {}{}", opt.m, opt.n, opt.k,
                                        opt.batch > 1 ? fmt::format(" --batch {}", opt.batch) : "");
  // With an epilogue, its C and its input (D is m x n) sit beside the GEMM's.
  const double extra_c = opt.epilogue.empty() ? 0.0 : 2.0 * double(bytes.c);
  const double on_device = double(bytes.a) + double(bytes.b) + double(bytes.c) + extra_c;
  const std::string parts = fmt::format("A {}, B {}, C {}{}", bytes_text(double(bytes.a)), bytes_text(double(bytes.b)),
                                        bytes_text(double(bytes.c)),
                                        extra_c > 0 ? fmt::format(", the epilogue's {}", bytes_text(extra_c)) : "");
  if (device.max_allocation_bytes > 0 && bytes.largest() > device.max_allocation_bytes)
    throw argument_error(fmt::format("{}: the largest matrix needs {} ({}), but {} allocates at most {} at once",
                                     sizes, bytes_text(double(bytes.largest())), parts, device.name,
                                     bytes_text(double(device.max_allocation_bytes))));
  if (device.global_memory_bytes > 0 && on_device > double(device.global_memory_bytes))
    throw argument_error(fmt::format("{}: the problem needs {} of device memory ({}), but {} has {}", sizes,
                                     bytes_text(on_device), parts, device.name,
                                     bytes_text(double(device.global_memory_bytes))));
  // The host holds A, B (as floats, and as doubles while the FP64 reference is computed), the
  // reference C (and its FP64 sums), a C read back for verification and OpenBLAS's C.
  const auto& full = baselines::footprint(shape, sizeof(float));
  const double on_host = 3.0 * double(full.a + full.b) + 5.0 * double(full.c) + extra_c;
  const double host_memory = double(::sysconf(_SC_PHYS_PAGES)) * double(::sysconf(_SC_PAGESIZE));
  if (host_memory > 0 && on_host > host_memory)
    throw argument_error(fmt::format("{}: the problem needs {} of host memory (A {} and B {} in float and in double "
                                     "for the FP64 reference, and five C's worth, {} each), but the host has {}",
                                     sizes, bytes_text(on_host), bytes_text(double(full.a)),
                                     bytes_text(double(full.b)), bytes_text(double(full.c)), bytes_text(host_memory)));
}

// ---- stopping on SIGINT or SIGTERM -----------------------------------------------------------

// The handler only records the signal; the driver stops at the next measurement boundary,
// saves what it has (marked partial) and exits with 128 + the signal. A second signal ends the
// process at once (SA_RESETHAND).
std::atomic<int> stop_signal{0};

void request_stop(int signal) { stop_signal.store(signal); }

void install_stop_handlers() {
  struct sigaction action {};
  action.sa_handler = request_stop;
  action.sa_flags = SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

struct stop_requested {};

void stop_if_requested() {
  if (stop_signal.load() != 0) throw stop_requested{};
}

std::string signal_name(int signal) {
  return signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : fmt::format("signal {}", signal);
}

// ---- progress ------------------------------------------------------------------------

class progress {
 public:
  progress(std::string what, std::size_t total)
      : what_(std::move(what)), total_(total), start_(clock_type::now()), terminal_(::isatty(2) != 0) {}
  void step(std::string_view current) {
    ++done_;
    const double elapsed = std::chrono::duration<double>(clock_type::now() - start_).count();
    const double eta = done_ ? elapsed / double(done_) * double(total_ - done_) : 0.0;
    if (terminal_) {
      const int width = 30;
      const int filled = total_ ? int(width * done_ / total_) : width;
      std::cerr << fmt::format("\r{} [{}{}] {}/{} {:.0f}s elapsed, ETA {:.0f}s  ", what_, std::string(filled, '#'),
                               std::string(width - filled, ' '), done_, total_, elapsed, eta)
                << std::flush;
      if (done_ == total_) std::cerr << '\n';
    } else {
      std::cerr << fmt::format("{} {}/{} ({:.0f}s elapsed, ETA {:.0f}s): {}\n", what_, done_, total_, elapsed, eta,
                               current);
    }
  }

 private:
  std::string what_;
  std::size_t total_, done_ = 0;
  clock_type::time_point start_;
  bool terminal_;
};

// ---- problem and baselines -----------------------------------------------------------------

struct problem {
  std::unique_ptr<baselines::gemm_operands<float>> operands;
  std::map<std::string, std::unique_ptr<gemm_implementation<float>>> baselines;  // by row name, to measure again
  std::unique_ptr<epilogue_problem> epilogue;
  std::vector<float> epilogue_reference;
  tune_args args;
};

std::unique_ptr<problem> make_problem(const runtime::context& ctx, const options& opt, bool ta, bool tb) {
  auto p = std::make_unique<problem>();
  const baselines::gemm_shape shape{ta, tb, opt.m, opt.n, opt.k, opt.batch};
  p->operands = std::make_unique<baselines::gemm_operands<float>>(ctx, shape, std::random_device{}(),
                                                                  baselines::operands_of(opt.precision));
  tune_args& a = p->args;
  a.ctx = &ctx;
  a.operands = p->operands.get();
  a.precision = opt.precision;
  a.timing.warmups = opt.warmups;
  a.timing.repetitions = opt.repetitions;
  a.fault_config = opt.fault_config;
  if (!opt.epilogue.empty()) {
    p->epilogue = make_epilogue(opt.epilogue, ctx, a.gemm_call().trans_a, a.gemm_call().trans_b, opt.m, opt.n, opt.k,
                                p->operands->host_a, p->operands->host_b);
    p->epilogue_reference = p->epilogue->reference(p->operands->reference);
    a.epilogue = p->epilogue.get();
    a.epilogue_reference = &p->epilogue_reference;
  }
  return p;
}

tune_result measure_baseline(gemm_implementation<float>& gemm, const tune_args& args) {
  tune_result r;
  r.name = gemm.name();
  r.kind = "baseline";
  r.flops = args.flops();
  r.where = gemm.where();
  const auto m = baselines::verify_and_time(gemm, reference_of(args), tolerance_of(args), args.timing);
  r.status = m.outcome;
  r.reason = m.reason;
  r.time = m.time;
  r.max_error = m.max_error;
  return r;
}

/// The system BLAS (or, with an epilogue, the unfused paths), each verified and timed like a
/// configuration: CLBlast, OpenBLAS and cuBLAS in FP32; for TF32 the same, cuBLAS in its TF32
/// math; for 16-bit A and B cuBLAS's cublasGemmEx alone (CLBlast's and OpenBLAS's 16-bit GEMMs
/// round C to 16 bits or run on the host: no like-for-like row). --fault-baseline NAME runs that
/// baseline with K one short: a wrong call that must be reported as wrong_result and never ranked.
std::vector<tune_result> run_baselines(problem& p, const options& opt) {
  using factory = std::function<std::unique_ptr<gemm_implementation<float>>(const baselines::gemm_shape&)>;
  const runtime::context& ctx = *p.args.ctx;
  const auto& o = *p.operands;
  std::vector<factory> factories;
  if (p.epilogue) {
    epilogue_problem& e = *p.epilogue;
    const auto& c = e.c().storage();
    const auto params = blas::default_params_for(p.args.gemm_call(), ctx);
    factories.push_back([&](const baselines::gemm_shape& s) {
      return with_separate_epilogue("CLBlast + separate " + e.name(), ctx, e,
                                    baselines::clblast_gemm<float>(ctx, s, o.a, o.b, c));
    });
    factories.push_back([&, params](const baselines::gemm_shape& s) {
      const auto name = fmt::format("tessera default + separate {}: {}", e.name(), blas::to_string(params));
      return with_separate_epilogue(name, ctx, e, baselines::tessera_gemm<float>(name, ctx, params, s, o.a, o.b, c));
    });
  } else if (o.operands != blas::operand_type::float32) {
    factories.push_back(
        [&](const baselines::gemm_shape& s) { return baselines::cublas_gemm16(s, o.a_bits, o.b_bits, o.operands); });
  } else {
    const auto math = baselines::math_of(p.args.precision);
    factories.push_back([&](const baselines::gemm_shape& s) { return baselines::clblast_gemm<float>(ctx, s, o.a, o.b, o.c); });
    factories.push_back([&](const baselines::gemm_shape& s) { return baselines::openblas_gemm<float>(s, o.host_a, o.host_b); });
    factories.push_back(
        [&, math](const baselines::gemm_shape& s) { return baselines::cublas_gemm<float>(s, o.host_a, o.host_b, math); });
  }
  std::vector<tune_result> out;
  for (const auto& make : factories) {
    stop_if_requested();
    std::unique_ptr<gemm_implementation<float>> gemm;
    try {
      gemm = make(o.shape);
      if (gemm && gemm->name() == opt.fault_baseline) {
        auto wrong = o.shape;
        wrong.k = std::max<std::int64_t>(wrong.k - 1, 0);
        gemm = make(wrong);
      }
    } catch (const std::exception& e) {
      // A baseline that cannot even start (cuBLAS out of memory, ...) is a failed row too.
      auto m = baselines::failure_of(e);
      tune_result r;
      r.name = "baseline (could not start)";
      r.kind = "baseline";
      r.status = m.outcome;
      r.reason = m.reason;
      out.push_back(std::move(r));
      continue;
    }
    if (gemm) {
      out.push_back(measure_baseline(*gemm, p.args));
      p.baselines[gemm->name()] = std::move(gemm);
    }
  }
  return out;
}

tune_result run_default(const problem& p) {
  const auto params = blas::default_params_for(p.args.gemm_call(), *p.args.ctx);
  tune_result r = measure_config(params, p.args);
  r.kind = "default";
  r.name = (p.epilogue ? "tessera default fused " + p.epilogue->name() + ": " : "tessera default: ") + r.name;
  return r;
}

// ---- building in parallel ------------------------------------------------------------------

// Builds every candidate's program through the program cache, several at a time; records
// how long each took. A failed build is left for measure_config to report.
std::map<std::size_t, double> build_all(const std::vector<candidate>& cands, const std::vector<std::size_t>& order,
                                        const tune_args& args, std::size_t threads) {
  std::map<std::size_t, double> seconds;
  std::mutex mutex;
  std::atomic<std::size_t> next{0};
  // With an epilogue the programs are the fused ones: the store step goes before the GEMM.
  const std::string epilogue_source = args.epilogue != nullptr ? args.epilogue->store_step_source() : std::string();
  progress bar("building", order.size());
  auto worker = [&] {
    for (std::size_t i; stop_signal.load() == 0 && (i = next.fetch_add(1)) < order.size();) {
      const auto& c = cands[order[i]];
      const auto start = clock_type::now();
      try {
        const auto text = args.epilogue != nullptr
                              ? blas::detail::program_text(c.params, args.gemm_call(), *args.ctx, epilogue_source)
                              : blas::detail::program_text(c.params, args.gemm_call(), *args.ctx);
        args.ctx->programs().get("gemm", text.source, text.options);
      } catch (const std::exception&) {
        // reported with its log when the configuration is measured
      }
      std::lock_guard lock(mutex);
      seconds[order[i]] = std::chrono::duration<double>(clock_type::now() - start).count();
      bar.step(blas::to_string(c.params));
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < std::max<std::size_t>(threads, 1); ++t) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  stop_if_requested();
  return seconds;
}

// ---- the finalists -------------------------------------------------------------------------

struct run_record {
  std::string transposes;
  std::int64_t m, n, k, batch;
  std::string problem_class;
  double weight = 1.0;  // the shape's weight in its suite
  std::vector<tune_result> results;
  std::size_t configs_total = 0;
  std::vector<finalist> finalists;
  int rounds = 0;
  std::optional<ranking_decision> decision;
  bool partial = false;  // stopped before the run was complete
  /// A problem taken complete from --resume's file: written out as it was read (nothing of it is
  /// measured again); the fields above hold only its sizes.
  std::optional<nlohmann::json> resumed;
};

/// A baseline row and a configuration row measured again round-robin: their GFLOP/s.
std::pair<double, double> measure_pair_again(const tune_result& baseline, const tune_result& config, const problem& p,
                                             const options& opt) {
  const auto found = p.baselines.find(baseline.name);
  if (found == p.baselines.end()) return {baseline.median_gflops(), config.median_gflops()};
  const auto gemm = config_implementation(*config.params, p.args, config.name);
  std::cerr << fmt::format("-- {} claims more than twice {}: measuring both again, interleaved\n", baseline.name,
                           config.name);
  const auto t = baselines::time_round_robin({found->second->call(), gemm->call()}, opt.rounds, p.args.timing,
                                             stop_if_requested);
  return {baseline.flops / t[0].median_seconds * 1e-9, config.flops / t[1].median_seconds * 1e-9};
}

/// The best configurations and the default, measured again round-robin in the same process.
void remeasure_finalists(run_record& run, const problem& p, const options& opt,
                         const std::optional<baselines::device_peak>& peak) {
  const auto picked = pick_finalists(run.results, std::size_t(opt.finalists));
  std::vector<std::unique_ptr<gemm_implementation<float>>> gemms;
  std::vector<baselines::timed_call> calls;
  for (const auto i : picked) {
    gemms.push_back(config_implementation(*run.results[i].params, p.args, run.results[i].name));
    calls.push_back(gemms.back()->call());
  }
  if (!calls.empty()) {
    std::cerr << fmt::format("-- {}: {} finalists, {} rounds\n", run.transposes, calls.size(), opt.rounds);
    try {
      const auto timings = baselines::time_round_robin(calls, opt.rounds, p.args.timing, stop_if_requested);
      for (std::size_t f = 0; f < picked.size(); ++f) {
        auto& row = run.results[picked[f]];
        finalist measured{row.name, row.kind, row.configuration(), timings[f], row.flops};
        // Measured again, a finalist must still be within what the device can do.
        auto why = implausibility(measured.median_gflops(), row.where, 0.0, peak);
        if (!why.empty()) {
          row.status = tune_status::implausible;
          row.reason = "re-measured: " + why;
          continue;
        }
        run.finalists.push_back(std::move(measured));
      }
      run.rounds = opt.rounds;
    } catch (const std::exception& e) {
      // Every finalist ran verified before: a failure now is the device's, and leaves no ranking.
      std::cerr << fmt::format("-- {}: re-measuring the finalists failed: {}\n", run.transposes, e.what());
      run.finalists.clear();
    }
  }
  run.decision = decide(run.finalists);
}

/// The leaders of the `count` finished problems nearest to shape (the latest first among equals),
/// nearest first, without repeats.
std::vector<blas::gemm_params> nearest_leaders(
    const std::vector<std::pair<suite_shape, std::vector<blas::gemm_params>>>& finished, const suite_shape& shape,
    std::size_t count) {
  std::vector<std::size_t> order(finished.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    // The defaults table's distance: the shape whose leaders would serve this one there.
    const double dx = blas::shape_distance(shape.problem(), finished[x].first.problem());
    const double dy = blas::shape_distance(shape.problem(), finished[y].first.problem());
    return dx < dy || (dx == dy && x > y);
  });
  std::vector<blas::gemm_params> out;
  for (std::size_t i = 0; i < std::min(count, order.size()); ++i)
    for (const auto& p : finished[order[i]].second)
      if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  return out;
}

/// The configurations that compute in the precision: fp32 every family but mma (tensor cores
/// round to TF32, and gemm_with refuses them on an exact call); tf32 the mma family where the
/// device has tensor cores, else the exact families (what a TF32 call runs there; the default's
/// row, measured in every run, stands for the exact path on tensor cores: a budgeted search
/// among both sampled the many exact configurations and never reached mma's); fp16 and bf16 the
/// mma family alone (nothing else reads 16-bit operands), and of it what the rules allow for
/// 2-byte elements (the build checked them for float's 4).
std::vector<candidate> candidates_for(std::vector<candidate> all, baselines::gemm_precision precision,
                                      bool tensor_cores) {
  const auto keep = [&](const candidate& c) {
    const bool mma = c.params.family == blas::gemm_family::mma;
    switch (precision) {
      case baselines::gemm_precision::fp32: return !mma;
      case baselines::gemm_precision::tf32: return mma == tensor_cores;
      default: return mma && blas::check_gemm_rules(c.params, 2).empty();
    }
  };
  std::erase_if(all, [&](const candidate& c) { return !keep(c); });
  return all;
}

// ---- output --------------------------------------------------------------------------------

void print_table(const run_record& run, std::ostream& out, int stopped_by) {
  std::vector<const tune_result*> ranked, failed;
  for (const auto& r : run.results) (r.status == tune_status::ok ? ranked : failed).push_back(&r);
  std::sort(ranked.begin(), ranked.end(), [](auto* x, auto* y) { return x->median_gflops() < y->median_gflops(); });
  out << fmt::format("\n== {} m={} n={} k={} batch={} ({}): {} results, {} failed{}\n", run.transposes, run.m, run.n,
                     run.k, run.batch, run.problem_class, run.results.size(), failed.size(),
                     run.partial ? fmt::format(" (partial: stopped by {})", signal_name(stopped_by)) : "");
  for (auto* r : failed)
    out << fmt::format("  FAILED {:<8} {:<13} {}: {}\n", r->kind, to_string(r->status), r->name, r->reason);
  out << fmt::format("  {:<8} {:>10} {:>10} {:>10} {:>11} {:>8}  {}\n", "kind", "min ms", "median ms", "max ms",
                     "GFLOP/s", "build s", "name");
  for (auto* r : ranked)
    out << fmt::format("  {:<8} {:>10.3f} {:>10.3f} {:>10.3f} {:>11.1f} {:>8}  {}\n", r->kind, r->time->min_seconds * 1e3,
                       r->time->median_seconds * 1e3, r->time->max_seconds * 1e3, r->median_gflops(),
                       r->build_seconds ? fmt::format("{:.2f}", *r->build_seconds) : "", r->name);
  if (!run.decision) return;
  if (!run.finalists.empty()) {
    out << fmt::format("  finalists, measured again interleaved in {} rounds:\n", run.rounds);
    out << fmt::format("  {:<8} {:>10} {:>10} {:>11}  {}\n", "kind", "median ms", "spread ms", "GFLOP/s", "name");
    for (const auto& f : run.finalists)
      out << fmt::format("  {:<8} {:>10.3f} {:>10.3f} {:>11.1f}  {}\n", f.kind, f.time.median_seconds * 1e3,
                         f.time.spread_seconds * 1e3, f.median_gflops(), f.name);
  }
  const auto& d = *run.decision;
  const finalist* winner = d.best ? &run.finalists[*d.best] : d.default_index ? &run.finalists[*d.default_index] : nullptr;
  if (winner == nullptr) {
    out << "  no configuration was verified\n";
    return;
  }
  out << fmt::format("  {} {}: {:.1f} GFLOP/s ({})", d.outcome == verdict::best ? "BEST" : "DEFAULT KEPT", winner->name,
                     winner->median_gflops(), d.reason);
  // In the baselines' own order, so that the line reads the same from run to run.
  for (const auto& r : run.results)
    if (r.kind == "baseline" && r.status == tune_status::ok)
      out << fmt::format(", {:.2f}x {}", winner->median_gflops() / r.median_gflops(), r.name);
  out << '\n';
}

std::string_view to_string(processor where) {
  switch (where) {
    case processor::host: return "host";
    case processor::cuda_device: return "cuda_device";
    default: return "opencl_device";
  }
}

nlohmann::json seconds_json(const baselines::timing& t) {
  return {{"min", t.min_seconds}, {"median", t.median_seconds}, {"max", t.max_seconds}, {"spread", t.spread_seconds}};
}

nlohmann::json to_json(const tune_result& r) {
  nlohmann::json j{{"name", r.name},
                   {"kind", r.kind},
                   {"configuration", r.params ? nlohmann::json(r.configuration()) : nlohmann::json(nullptr)},
                   {"status", to_string(r.status)},
                   {"reason", r.reason},
                   {"where", to_string(r.where)}};
  j["gflops"] = r.time ? nlohmann::json{{"min", r.flops / r.time->max_seconds * 1e-9},
                                         {"median", r.median_gflops()},
                                         {"max", r.flops / r.time->min_seconds * 1e-9}}
                       : nlohmann::json(nullptr);
  j["seconds"] = r.time ? seconds_json(*r.time) : nlohmann::json(nullptr);
  j["build_seconds"] = r.build_seconds ? nlohmann::json(*r.build_seconds) : nlohmann::json(nullptr);
  j["max_rel_err"] = r.max_error ? nlohmann::json(*r.max_error) : nlohmann::json(nullptr);
  return j;
}

nlohmann::json decision_json(const run_record& run) {
  if (!run.decision) return nullptr;
  const auto& d = *run.decision;
  const auto named = [&](const std::optional<std::size_t>& i, bool configuration) {
    if (!i) return nlohmann::json(nullptr);
    return nlohmann::json(configuration ? run.finalists[*i].configuration : run.finalists[*i].name);
  };
  return {{"verdict", to_string(d.outcome)},
          {"best", named(d.best, false)},
          {"best_configuration", named(d.best, true)},
          {"default", named(d.default_index, false)},
          {"default_configuration", named(d.default_index, true)},
          {"reason", d.reason}};
}

struct run_context {
  std::string tool;
  const runtime::device_info* device;
  std::optional<baselines::device_peak> peak;
};

nlohmann::json results_json(const options& opt, const run_context& rc, const std::vector<run_record>& runs,
                         int stopped_by) {
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  const auto& dev = *rc.device;
  const auto key = blas::describe_device(dev);
  nlohmann::json doc{
      {"tool", rc.tool},
      {"date", date},
      {"element_type", "float"},
      {"precision", std::string(baselines::to_string(opt.precision))},
      {"epilogue", opt.epilogue.empty() ? nlohmann::json(nullptr) : nlohmann::json(opt.epilogue)},
      {"partial", stopped_by != 0 || std::any_of(runs.begin(), runs.end(), [](auto& r) { return r.partial; })},
      {"stopped_by", stopped_by != 0 ? nlohmann::json(signal_name(stopped_by)) : nlohmann::json(nullptr)},
      {"shapes", opt.shapes_paths.empty() ? nlohmann::json(nullptr) : nlohmann::json(opt.shapes_paths)},
      {"device",
       {{"name", dev.name},
        {"vendor", dev.vendor},
        {"type", key.type},
        {"architecture", key.architecture},
        {"driver_version", dev.driver_version},
        {"peak_gflops", rc.peak ? nlohmann::json(rc.peak->gflops) : nlohmann::json(nullptr)},
        {"peak", rc.peak ? rc.peak->derivation : ""}}},
      {"timing",
       {{"method", "wall clock from before the first enqueue to after the queue finished"},
        {"warmups", opt.warmups},
        {"repetitions", opt.repetitions},
        {"finalists", opt.finalists},
        {"rounds", opt.rounds}}},
      {"runs", nlohmann::json::array()}};
  for (const auto& run : runs) {
    if (run.resumed) {
      doc["runs"].push_back(*run.resumed);
      continue;
    }
    nlohmann::json results = nlohmann::json::array();
    for (const auto& r : run.results) results.push_back(to_json(r));
    nlohmann::json finalists = nullptr;
    if (run.decision) {
      finalists = {{"rounds", run.rounds}, {"entries", nlohmann::json::array()}};
      for (const auto& f : run.finalists)
        finalists["entries"].push_back({{"name", f.name},
                                        {"kind", f.kind},
                                        {"configuration", f.configuration},
                                        {"seconds", seconds_json(f.time)},
                                        {"samples", f.time.samples},
                                        {"gflops", {{"median", f.median_gflops()}}}});
    }
    doc["runs"].push_back({{"transposes", run.transposes}, {"m", run.m}, {"n", run.n}, {"k", run.k},
                           {"batch", run.batch}, {"problem_class", run.problem_class}, {"weight", run.weight},
                           {"configs_total", run.configs_total}, {"partial", run.partial}, {"results", results},
                           {"finalists", finalists}, {"decision", decision_json(run)}});
  }
  return doc;
}

std::string csv_field(std::string_view text) {
  std::string out = "\"";
  for (char ch : text) out += ch == '"' ? std::string("\"\"") : std::string(1, ch == '\n' ? ' ' : ch);
  return out + '"';
}

/// The CSV of every result, from results_json's document: one form for problems measured here
/// and those taken from --resume's file.
std::string results_csv(const nlohmann::json& doc) {
  std::string csv =
      "transposes,m,n,k,batch,kind,name,status,median_gflops,min_ms,median_ms,max_ms,spread_ms,build_s,reason\n";
  const auto ms = [](const nlohmann::json& seconds, const char* key) {
    return seconds.is_object() ? fmt::format("{:.4f}", seconds[key].get<double>() * 1e3) : std::string();
  };
  for (const auto& run : doc["runs"])
    for (const auto& r : run["results"])
      csv += fmt::format("{},{},{},{},{},{},{},{},{:.3f},{},{},{},{},{},{}\n", run["transposes"].get<std::string>(),
                         run["m"].get<std::int64_t>(), run["n"].get<std::int64_t>(), run["k"].get<std::int64_t>(),
                         run["batch"].get<std::int64_t>(), r["kind"].get<std::string>(),
                         csv_field(r["name"].get<std::string>()), r["status"].get<std::string>(),
                         r["gflops"].is_object() ? r["gflops"]["median"].get<double>() : 0.0,
                         ms(r["seconds"], "min"), ms(r["seconds"], "median"), ms(r["seconds"], "max"),
                         ms(r["seconds"], "spread"),
                         r["build_seconds"].is_number() ? fmt::format("{:.3f}", r["build_seconds"].get<double>()) : "",
                         csv_field(r["reason"].get<std::string>()));
  return csv;
}

/// A problem's key among the runs of a results JSON: "nn 64x64x65536 batch 1".
std::string problem_key(std::string_view transposes, std::int64_t m, std::int64_t n, std::int64_t k,
                        std::int64_t batch) {
  return fmt::format("{} {}x{}x{} batch {}", transposes, m, n, k, batch);
}

/// The complete problems of --resume's file (results_json's form), by problem_key. The file must
/// come from the same tool, device, precision, epilogue and timing as this run: a configuration
/// measured otherwise never stands for this one. Throws argument_error naming the file and the
/// JSON path of what is wrong or differs.
std::map<std::string, nlohmann::json> read_resumed(const std::string& path, const options& opt,
                                                   const run_context& rc) {
  const auto bad = [&](const std::string& where, const std::string& what) {
    return argument_error(fmt::format("--resume {}: {}: {}", path, where, what));
  };
  std::ifstream in(path);
  if (!in) throw bad("$", "cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw bad("$", fmt::format("malformed JSON: {}", e.what()));
  }
  if (!doc.is_object() || !doc.contains("runs") || !doc["runs"].is_array())
    throw bad("$.runs", "expected a list (is this a tune_* results file?)");
  const auto expect = [&](const nlohmann::json& value, const nlohmann::json& here, const std::string& where) {
    if (value != here) throw bad(where, fmt::format("measured with {}, this run has {}", value.dump(), here.dump()));
  };
  const auto field = [&](const nlohmann::json& object, const char* key, const std::string& where) {
    if (!object.is_object() || !object.contains(key)) throw bad(where + "." + key, "missing");
    return object[key];
  };
  expect(field(doc, "tool", "$"), rc.tool, "$.tool");
  expect(field(field(doc, "device", "$"), "name", "$.device"), rc.device->name, "$.device.name");
  expect(field(doc, "element_type", "$"), "float", "$.element_type");
  expect(field(doc, "precision", "$"), std::string(baselines::to_string(opt.precision)), "$.precision");
  expect(field(doc, "epilogue", "$"), opt.epilogue.empty() ? nlohmann::json(nullptr) : nlohmann::json(opt.epilogue),
         "$.epilogue");
  const nlohmann::json timing = field(doc, "timing", "$");
  expect(field(timing, "warmups", "$.timing"), opt.warmups, "$.timing.warmups");
  expect(field(timing, "repetitions", "$.timing"), opt.repetitions, "$.timing.repetitions");
  expect(field(timing, "finalists", "$.timing"), opt.finalists, "$.timing.finalists");
  expect(field(timing, "rounds", "$.timing"), opt.rounds, "$.timing.rounds");
  std::map<std::string, nlohmann::json> complete;
  for (std::size_t i = 0; i < doc["runs"].size(); ++i) {
    const nlohmann::json& run = doc["runs"][i];
    const std::string where = fmt::format("$.runs[{}]", i);
    const nlohmann::json partial = field(run, "partial", where);
    if (!partial.is_boolean()) throw bad(where + ".partial", "expected true or false");
    if (partial.get<bool>()) continue;  // measured again in full
    for (const char* key : {"m", "n", "k", "batch"})
      if (!field(run, key, where).is_number_integer()) throw bad(where + "." + key, "expected a whole number");
    if (!field(run, "transposes", where).is_string()) throw bad(where + ".transposes", "expected a string");
    const nlohmann::json results = field(run, "results", where);
    if (!results.is_array()) throw bad(where + ".results", "expected a list");
    for (std::size_t r = 0; r < results.size(); ++r) {
      const std::string at = fmt::format("{}.results[{}]", where, r);
      for (const char* key : {"kind", "name", "status", "reason"})
        if (!field(results[r], key, at).is_string()) throw bad(at + "." + key, "expected a string");
      for (const char* key : {"gflops", "seconds", "build_seconds", "configuration"}) field(results[r], key, at);
    }
    complete[problem_key(run["transposes"].get<std::string>(), run["m"].get<std::int64_t>(),
                         run["n"].get<std::int64_t>(), run["k"].get<std::int64_t>(), run["batch"].get<std::int64_t>())] =
        run;
  }
  return complete;
}

/// A resumed problem's `count` best verified configurations, best first (what leaders_of gives
/// a measured one), and whether any configuration was verified.
std::pair<std::vector<blas::gemm_params>, bool> resumed_leaders(const nlohmann::json& run, std::size_t count) {
  std::vector<std::pair<double, blas::gemm_params>> ok;
  for (const auto& r : run["results"])
    if (r["kind"] == "config" && r["status"] == "ok" && r["configuration"].is_string() && r["gflops"].is_object())
      ok.emplace_back(r["gflops"]["median"].get<double>(), blas::parse_gemm_params(r["configuration"].get<std::string>()));
  std::stable_sort(ok.begin(), ok.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<blas::gemm_params> leaders;
  for (const auto& [gflops, params] : ok)
    if (leaders.size() < count && std::find(leaders.begin(), leaders.end(), params) == leaders.end())
      leaders.push_back(params);
  return {leaders, !ok.empty()};
}

/// Writes --json and --csv; false (after saying why, naming the path) when one could not be written.
bool write_outputs(const options& opt, const run_context& rc, const std::vector<run_record>& runs, int stopped_by) {
  bool written = true;
  const auto write = [&](const std::string& path, const std::string& contents) {
    if (path.empty()) return;
    try {
      runtime::write_file_atomically(path, contents);
    } catch (const runtime::file_error& e) {
      std::cerr << fmt::format("{}: results not saved: {}\n", rc.tool, e.what());
      written = false;
    }
  };
  const nlohmann::json doc = results_json(opt, rc, runs, stopped_by);
  write(opt.json_path, doc.dump(1) + '\n');
  write(opt.csv_path, results_csv(doc));
  return written;
}

}  // namespace

// ---- driver ----------------------------------------------------------------------------------

int tuner_main(int argc, char** argv, const std::string& tool, const std::vector<transpose_pair>& pairs) {
  CLI::App app{fmt::format("{}: benchmark the system BLAS, tessera's default and every generated GEMM "
                           "configuration on one device; each result verified, the table sorted worst to best, the "
                           "finalists measured again interleaved, BEST named only when it beats the default by more "
                           "than the spread of the measurements.",
                           tool)};
  options opt;
  constexpr std::int64_t int_max = std::numeric_limits<int>::max();
  app.add_option("--m", opt.m, "rows of C")->check(whole_number(1, int_max));
  app.add_option("--n", opt.n, "columns of C")->check(whole_number(1, int_max));
  app.add_option("--k", opt.k, "inner dimension")->check(whole_number(1, int_max));
  app.add_option("--batch", opt.batch, "strided batch count")->check(whole_number(1, int_max));
  app.add_option("--reps", opt.repetitions, "timed samples per configuration")->check(whole_number(1, 100000));
  app.add_option("--warmups", opt.warmups, "untimed runs before timing")->check(whole_number(0, 100000));
  app.add_option("--device", opt.device, "device: gpu, cpu, P:D or part of its name (default: TESSERA_DEVICE)");
  app.add_option("--json", opt.json_path, "write every result as JSON (gen/select_defaults.py reads it)");
  app.add_option("--csv", opt.csv_path, "write every result as CSV");
  app.add_option("--budget", opt.budget, "evaluate at most N configurations per transpose (sample, then refine)")
      ->check(whole_number(1, int_max));
  app.add_option("--build-threads", opt.build_threads, "kernels built at once (default: hardware threads)")
      ->check(whole_number(1, 1024));
  app.add_option("--finalists", opt.finalists,
                 "configurations measured again, interleaved with the default, after the search")
      ->check(whole_number(1, 64));
  app.add_option("--rounds", opt.rounds, "rounds of the finalists' interleaved measurement")
      ->check(whole_number(3, 10000));
  app.add_option("--peak-gflops", opt.peak_gflops,
                 "the device's peak GFLOP/s; a row above it is a failed measurement (default: estimated from the "
                 "clock, compute units and vector lanes)")
      ->check(number_in(0, INFINITY));
  app.add_option("--fault-config", opt.fault_config,
                 "self-test: run the configuration with this text form with K one short (must be caught)");
  app.add_option("--fault-baseline", opt.fault_baseline,
                 "self-test: run the baseline with this name (e.g. CLBlast) with K one short (must be caught)");
  app.add_option("--epilogue", opt.epilogue,
                 fmt::format("tune the GEMM with this epilogue fused ({}); the unfused paths (tessera's GEMM, "
                             "CLBlast, each + a separate kernel) are measured beside it",
                             fmt::join(epilogue_names(), ", ")));
  std::string precision_name = "fp32";
  app.add_option("--precision", precision_name,
                 "the arithmetic tuned: fp32 (exact; every family but mma), tf32 (float GEMM in "
                 "blas::math_mode::tf32: the mma family on tensor cores, elsewhere the exact ones), fp16 or bf16 (A "
                 "and B of 16-bit values, C float: the mma family alone); each row verified against the FP64 product "
                 "within the format's tolerance, cuBLAS in the same math as the baseline")
      ->check(CLI::IsMember({"fp32", "tf32", "fp16", "bf16"}));
  app.add_option("--resume", opt.resume_path,
                 "a results JSON of an earlier run of this tool (stopped, killed, or another suite's): its complete "
                 "problems are written out as they are, not measured again; the others are measured (the same "
                 "device, precision, epilogue and timing options, or an error)")
      ->check(CLI::ExistingFile);
  app.add_option("--shapes", opt.shapes_paths,
                 "tune every shape of these suites (configs/shapes/*.json: lists of {m, n, k, batch, transposes, "
                 "weight}) one after the other, each warm-started from its nearest tuned neighbours' leaders, "
                 "into one JSON; replaces --m --n --k --batch");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  opt.precision = baselines::precision_from(precision_name);  // CLI11 checked the name
  if (!opt.epilogue.empty()) {
    const auto& names = epilogue_names();
    if (std::find(names.begin(), names.end(), opt.epilogue) == names.end()) {
      std::cerr << fmt::format("{}: --epilogue: unknown epilogue '{}'; valid names: {}\n", tool, opt.epilogue,
                               fmt::join(names, ", "))
                << app.help();
      return 1;
    }
    if (opt.batch != 1) {
      std::cerr << fmt::format("{}: --epilogue tunes a single GEMM: --batch must be 1\n", tool) << app.help();
      return 1;
    }
    if (opt.precision != baselines::gemm_precision::fp32) {
      std::cerr << fmt::format("{}: --epilogue tunes FP32 GEMMs: --precision {} goes without it\n", tool,
                               precision_name)
                << app.help();
      return 1;
    }
  }
  const auto precision = opt.precision;
  // Outside the try: a stop or an error mid-run still writes what was measured, naming the device.
  std::vector<runtime::device_info> devices;
  std::vector<run_record> runs;
  run_context rc{tool, nullptr, std::nullopt};
  bool saved = true;
  try {
    // Everything that can be refused is refused before any work: the outputs, the device, the
    // problem's memory.
    for (const auto* path : {&opt.json_path, &opt.csv_path})
      if (!path->empty()) runtime::check_writable(*path);
    devices = runtime::list_devices();
    const auto request = runtime::device_request_from("--device", opt.device);
    const auto& device = runtime::select_device(request.spec, devices, request.source);
    // The problems: the suite's shapes, or --m --n --k --batch for each transpose pair.
    std::vector<suite_shape> jobs;
    if (opt.shapes_paths.empty()) {
      for (const auto& pair : pairs)
        jobs.push_back({opt.m, opt.n, opt.k, opt.batch, pair.trans_a, pair.trans_b, 1.0, "the command line"});
    } else {
      for (const char* sized : {"--m", "--n", "--k", "--batch"})
        if (app.count(sized) > 0)
          throw argument_error(fmt::format("{} and --shapes: the suite gives the sizes, leave {} out", sized, sized));
      for (const auto& path : opt.shapes_paths)
        for (auto& shape : read_shape_suite(path)) jobs.push_back(std::move(shape));
      for (const auto& job : jobs)
        if (std::none_of(pairs.begin(), pairs.end(),
                         [&](const auto& p) { return p.trans_a == job.trans_a && p.trans_b == job.trans_b; }))
          throw argument_error(fmt::format("{}: transposes {}: {} tunes only {} (tune_all tunes the four)", job.where,
                                           job.transposes(), tool,
                                           fmt::format("{}{}", pairs.front().trans_a ? 't' : 'n',
                                                       pairs.front().trans_b ? 't' : 'n')));
      if (!opt.epilogue.empty() && std::any_of(jobs.begin(), jobs.end(), [](auto& j) { return j.batch != 1; }))
        throw argument_error(fmt::format("{}: --epilogue tunes single GEMMs: every batch must be 1",
                                         fmt::join(opt.shapes_paths, ", ")));
    }
    const auto options_of = [&](const suite_shape& job) {
      options o = opt;
      o.m = job.m, o.n = job.n, o.k = job.k, o.batch = job.batch;
      return o;
    };
    for (const auto& job : jobs) check_problem_fits(options_of(job), device);
    rc.device = &device;  // what follows is about the device, not the command line
    const bool tensor_cores = blas::device_limits(device).tensor_cores != 0;
    if (baselines::operands_of(precision) != blas::operand_type::float32 && !tensor_cores)
      throw unsupported_error(fmt::format(
          "--precision {}: A and B of 16-bit values are multiplied only on tensor cores (the mma family: NVIDIA, "
          "compute capability 8.0 and up), and {} has none",
          precision_name, device.name));
    // Each transpose pair's configurations in the precision, chosen once for every job of the pair.
    std::vector<std::vector<candidate>> pair_candidates;
    for (const auto& pair : pairs) {
      auto all = pair.candidates();
      const std::size_t built = all.size();
      pair_candidates.push_back(candidates_for(std::move(all), precision, tensor_cores));
      if (pair_candidates.back().empty())
        throw argument_error(fmt::format(
            "--precision {}: none of the {} configurations this tuner was built with computes in {} on {} "
            "(fp16 and bf16 need the mma family: build with -DTUNING_TARGET=NVIDIA_GPU)",
            precision_name, built, precision_name, device.name));
    }
    rc.peak = opt.peak_gflops > 0 ? std::optional<baselines::device_peak>({opt.peak_gflops, "given by --peak-gflops"})
                                  : baselines::estimate_peak(device, precision);
    runtime::context ctx(device);
    if (opt.build_threads == 0) opt.build_threads = int(std::max(1u, std::thread::hardware_concurrency()));
    install_stop_handlers();
    std::cerr << fmt::format("{} on {} ({}), {}{}{}; peak {}\n", tool, device.name, device.driver_version,
                             opt.shapes_paths.empty()
                                 ? fmt::format("m={} n={} k={} batch={}", opt.m, opt.n, opt.k, opt.batch)
                                 : fmt::format("{} problems of {}", jobs.size(), fmt::join(opt.shapes_paths, ", ")),
                             opt.epilogue.empty() ? "" : ", epilogue " + opt.epilogue,
                             precision == baselines::gemm_precision::fp32 ? "" : ", precision " + precision_name,
                             rc.peak ? fmt::format("{:.0f} GFLOP/s ({})", rc.peak->gflops, rc.peak->derivation)
                                     : std::string("unknown"));
    bool any_verified = false;
    // The leaders of every finished problem: a budgeted search starts from its nearest neighbours'.
    std::vector<std::pair<suite_shape, std::vector<blas::gemm_params>>> finished_leaders;
    std::map<std::string, nlohmann::json> resumed;
    if (!opt.resume_path.empty()) {
      resumed = read_resumed(opt.resume_path, opt, rc);
      std::size_t among = 0;
      for (const auto& job : jobs)
        among += resumed.count(problem_key(job.transposes(), job.m, job.n, job.k, job.batch));
      std::cerr << fmt::format("--resume {}: {} of the {} problems complete there, not measured again{}\n",
                               opt.resume_path, among, jobs.size(),
                               resumed.size() > among
                                   ? fmt::format("; {} complete problems of it are not among them (left out)",
                                                 resumed.size() - among)
                                   : std::string());
    }
    const auto suite_start = clock_type::now();
    std::size_t measured_jobs = 0;  // this run's, for the ETA
    for (std::size_t job_index = 0; job_index < jobs.size(); ++job_index) {
      const suite_shape& job = jobs[job_index];
      const options job_opt = options_of(job);
      const auto pair_at = std::find_if(pairs.begin(), pairs.end(), [&](const auto& p) {
        return p.trans_a == job.trans_a && p.trans_b == job.trans_b;
      });
      const auto& pair = *pair_at;
      const auto& cands = pair_candidates[std::size_t(pair_at - pairs.begin())];
      run_record& run = runs.emplace_back();
      run.transposes = job.transposes();
      run.m = job.m, run.n = job.n, run.k = job.k, run.batch = job.batch;
      run.weight = job.weight;
      run.problem_class = blas::to_string(blas::classify_problem(job.m, job.n, job.k, job.batch));
      run.configs_total = cands.size();
      if (const auto done = resumed.find(problem_key(job.transposes(), job.m, job.n, job.k, job.batch));
          done != resumed.end()) {
        run.resumed = done->second;
        const auto [leaders, verified] = resumed_leaders(done->second, 3);
        finished_leaders.emplace_back(job, leaders);
        any_verified |= verified;
        std::cerr << fmt::format("-- [{}/{}] {}: complete in {}, not measured again\n", job_index + 1, jobs.size(),
                                 job.label(), opt.resume_path);
        saved &= write_outputs(opt, rc, runs, 0);
        continue;
      }
      run.partial = true;  // until it is complete
      const double suite_elapsed = std::chrono::duration<double>(clock_type::now() - suite_start).count();
      std::cerr << fmt::format("-- [{}/{}] {}: {} configurations{}\n", job_index + 1, jobs.size(), job.label(),
                               cands.size(),
                               measured_jobs == 0 ? std::string()
                                                  : fmt::format("; suite {:.0f}s elapsed, ETA {:.0f}s", suite_elapsed,
                                                                suite_elapsed / double(measured_jobs) *
                                                                    double(jobs.size() - job_index)));
      ++measured_jobs;
      stop_if_requested();
      auto p = make_problem(ctx, job_opt, pair.trans_a, pair.trans_b);
      run.results = run_baselines(*p, job_opt);
      stop_if_requested();
      run.results.push_back(run_default(*p));

      std::vector<blas::gemm_params> params;
      for (const auto& c : cands) params.push_back(c.params);
      const std::size_t budget = opt.budget ? std::min(std::size_t(opt.budget), cands.size()) : cands.size();
      std::map<std::size_t, double> build_seconds;
      progress bar(jobs.size() > 1 ? fmt::format("{} measuring", job.label()) : "measuring", budget);
      std::map<std::size_t, double> measured;  // configuration -> GFLOP/s (0: failed)
      auto evaluate = [&](std::size_t i) {
        stop_if_requested();
        if (!build_seconds.count(i)) build_seconds.merge(build_all(cands, {i}, p->args, 1));
        tune_result r = cands[i].run(p->args);
        r.build_seconds = build_seconds[i];
        bar.step(fmt::format("{} {} {:.1f} GFLOP/s", r.name, to_string(r.status), r.median_gflops()));
        const double gflops = r.status == tune_status::ok ? r.median_gflops() : 0.0;
        run.results.push_back(std::move(r));
        measured[i] = gflops;
        return gflops;
      };
      if (budget == cands.size()) {
        std::vector<std::size_t> all(cands.size());
        std::iota(all.begin(), all.end(), 0);
        build_seconds = build_all(cands, all, p->args, std::size_t(opt.build_threads));
        for (std::size_t i = 0; i < cands.size(); ++i) evaluate(i);
      } else {
        // The nearest finished problems' three best start the search (the pair before, for one
        // size): replayed on the H200's full runs, NT's needle-like best was found from 84 of 100
        // sample orders alone, from all 100 with NN's leaders. In a suite, the two nearest shapes'.
        const auto order = budgeted_search(
            params, budget, evaluate, 12345,
            search_seeds(nearest_leaders(finished_leaders, job, opt.shapes_paths.empty() ? 1 : 2), params, job.m,
                         job.n, job.k, job.batch, sizeof(float), device.compute_units));
        finished_leaders.emplace_back(job, leaders_of(params, order, [&](std::size_t i) { return measured[i]; }, 3));
      }
      reject_implausible(run.results, rc.peak, [&](std::size_t suspect, std::size_t best) {
        return measure_pair_again(run.results[suspect], run.results[best], *p, job_opt);
      });
      remeasure_finalists(run, *p, job_opt, rc.peak);
      run.partial = false;
      for (const auto& r : run.results) any_verified |= r.kind == "config" && r.status == tune_status::ok;
      print_table(run, std::cout, 0);
      saved &= write_outputs(opt, rc, runs, 0);  // after each pair, so a long run leaves results behind
    }
    if (!saved) return 3;
    return any_verified ? 0 : 2;
  } catch (const stop_requested&) {
    const int signal = stop_signal.load();
    std::cerr << fmt::format("\n{}: {}: stopped; the results measured so far are saved, marked partial\n", tool,
                             signal_name(signal));
    if (!runs.empty() && runs.back().partial) print_table(runs.back(), std::cout, signal);
    write_outputs(opt, rc, runs, signal);
    return 128 + signal;
  } catch (const tessera::error& e) {
    std::cerr << tool << ": " << e.what() << '\n';
    if (rc.device == nullptr) std::cerr << app.help();
    if (!runs.empty()) write_outputs(opt, rc, runs, 0);  // what was measured, the last run marked partial
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << tool << ": out of host memory\n";
    return 1;
  }
}

}  // namespace tessera::auto_tuner
