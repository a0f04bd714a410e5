// The tune_* driver: options, baselines, parallel builds, progress, ranking and output.
#include "tuner.hpp"

#include "cli_numbers.hpp"
#include "epilogue.hpp"
#include "ranking.hpp"
#include "ranks.hpp"
#include "sweep.hpp"
#include <tessera/baselines/shape_suite.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <fcntl.h>
#include <sys/file.h>
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
  int fault_rank = -1;                     // --fault-rank: self-test, this rank's device fails
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
  const runtime::device_info* device;  // this rank's
  std::optional<baselines::device_peak> peak;
};

/// A device as the results JSON describes it.
nlohmann::json device_json(const runtime::device_info& dev, const std::optional<baselines::device_peak>& peak) {
  const auto key = blas::describe_device(dev);
  return {{"name", dev.name},
          {"vendor", dev.vendor},
          {"type", key.type},
          {"architecture", key.architecture},
          {"driver_version", dev.driver_version},
          {"peak_gflops", peak ? nlohmann::json(peak->gflops) : nlohmann::json(nullptr)},
          {"peak", peak ? peak->derivation : ""}};
}

/// One problem's run in the results JSON's form; measured_by names the rank, host and device.
nlohmann::json run_json(const run_record& run, const nlohmann::json& measured_by) {
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
  return {{"transposes", run.transposes}, {"m", run.m}, {"n", run.n}, {"k", run.k}, {"batch", run.batch},
          {"problem_class", run.problem_class}, {"weight", run.weight}, {"configs_total", run.configs_total},
          {"partial", run.partial}, {"measured_by", measured_by}, {"results", results}, {"finalists", finalists},
          {"decision", decision_json(run)}};
}

/// The results document: the options, rank 0's device ("device", as one-device runs have
/// always written it), every rank and device model of the job ("ranks": as each described
/// itself at the start, "devices": one entry per model), and the runs.
nlohmann::json results_json(const options& opt, const run_context& rc, const std::vector<nlohmann::json>& ranks,
                            const std::vector<nlohmann::json>& runs, bool partial, int stopped_by) {
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  nlohmann::json devices = nlohmann::json::array(), rank_list = nlohmann::json::array();
  for (const auto& r : ranks) {
    const nlohmann::json& device = r["device"];
    rank_list.push_back({{"rank", r["rank"]}, {"host", r["host"]},
                         {"device", device.is_object() ? device["name"] : nlohmann::json(nullptr)},
                         {"error", r["error"]}});
    if (device.is_object() &&
        std::none_of(devices.begin(), devices.end(), [&](const auto& d) { return d["name"] == device["name"]; }))
      devices.push_back(device);
  }
  return {{"tool", rc.tool},
          {"date", date},
          {"element_type", "float"},
          {"precision", std::string(baselines::to_string(opt.precision))},
          {"epilogue", opt.epilogue.empty() ? nlohmann::json(nullptr) : nlohmann::json(opt.epilogue)},
          {"partial", partial || stopped_by != 0},
          {"stopped_by", stopped_by != 0 ? nlohmann::json(signal_name(stopped_by)) : nlohmann::json(nullptr)},
          {"shapes", opt.shapes_paths.empty() ? nlohmann::json(nullptr) : nlohmann::json(opt.shapes_paths)},
          {"device", device_json(*rc.device, rc.peak)},
          {"devices", devices},
          {"ranks", rank_list},
          {"timing",
           {{"method", "wall clock from before the first enqueue to after the queue finished"},
            {"warmups", opt.warmups},
            {"repetitions", opt.repetitions},
            {"finalists", opt.finalists},
            {"rounds", opt.rounds}}},
          {"runs", runs}};
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

/// The complete problems of --resume's file (results_json's form), by sweep::resumed_key (the
/// problem and the device model that measured it). The file must come from the same tool,
/// precision, epilogue and timing as this run, and from one of its device models: a
/// configuration measured otherwise never stands for this one. Throws argument_error naming the
/// file and the JSON path of what is wrong or differs.
std::map<std::string, nlohmann::json> read_resumed(const std::string& path, const options& opt,
                                                   const std::string& tool,
                                                   const std::vector<std::string>& job_devices) {
  const auto bad = [&](const std::string& where, const std::string& what) {
    return argument_error(fmt::format("--resume {}: {}: {}", path, where, what));
  };
  const auto text = runtime::read_whole_file(path);
  if (!text) throw bad("$", "cannot be read");
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(*text);
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
  expect(field(doc, "tool", "$"), tool, "$.tool");
  const nlohmann::json file_device = field(field(doc, "device", "$"), "name", "$.device");
  expect(field(doc, "element_type", "$"), "float", "$.element_type");
  expect(field(doc, "precision", "$"), std::string(baselines::to_string(opt.precision)), "$.precision");
  expect(field(doc, "epilogue", "$"), opt.epilogue.empty() ? nlohmann::json(nullptr) : nlohmann::json(opt.epilogue),
         "$.epilogue");
  const nlohmann::json timing = field(doc, "timing", "$");
  expect(field(timing, "warmups", "$.timing"), opt.warmups, "$.timing.warmups");
  expect(field(timing, "repetitions", "$.timing"), opt.repetitions, "$.timing.repetitions");
  expect(field(timing, "finalists", "$.timing"), opt.finalists, "$.timing.finalists");
  expect(field(timing, "rounds", "$.timing"), opt.rounds, "$.timing.rounds");
  // Each run's device: its measured_by, or the file's device (files of one device).
  std::vector<std::string> run_devices;
  for (std::size_t i = 0; i < doc["runs"].size(); ++i) {
    const nlohmann::json& run = doc["runs"][i];
    const std::string where = fmt::format("$.runs[{}]", i);
    nlohmann::json device = file_device;
    if (run.is_object() && run.contains("measured_by")) device = field(field(run, "measured_by", where), "device",
                                                                       where + ".measured_by");
    if (!device.is_string()) throw bad(where + ".measured_by.device", "expected a device name");
    run_devices.push_back(device.get<std::string>());
  }
  const auto ours = [&](const std::string& name) {
    return std::find(job_devices.begin(), job_devices.end(), name) != job_devices.end();
  };
  if (!file_device.is_string()) throw bad("$.device.name", "expected a device name");
  if (!ours(file_device.get<std::string>()) && std::none_of(run_devices.begin(), run_devices.end(), ours))
    throw bad("$.device.name", fmt::format("measured with {}, this run has {}", file_device.dump(),
                                           job_devices.size() == 1 ? nlohmann::json(job_devices[0]).dump()
                                                                   : nlohmann::json(job_devices).dump()));
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
    const auto key = problem_key(run["transposes"].get<std::string>(), run["m"].get<std::int64_t>(),
                                 run["n"].get<std::int64_t>(), run["k"].get<std::int64_t>(),
                                 run["batch"].get<std::int64_t>());
    nlohmann::json kept = run;
    // A run of a one-device file names no device: written back beside other devices' runs, it
    // must say whose it is.
    if (!kept.contains("measured_by")) kept["measured_by"] = {{"device", run_devices[i]}};
    complete[sweep::resumed_key(key, run_devices[i])] = kept;
  }
  return complete;
}

/// Writes --json and --csv; false (after saying why, naming the path) when one could not be written.
bool write_outputs(const options& opt, const run_context& rc, const std::vector<nlohmann::json>& ranks,
                   const std::vector<nlohmann::json>& runs, bool partial, int stopped_by) {
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
  const nlohmann::json doc = results_json(opt, rc, ranks, runs, partial, stopped_by);
  write(opt.json_path, doc.dump(1) + '\n');
  write(opt.csv_path, results_csv(doc));
  return written;
}

// ---- one rank's measurements -----------------------------------------------------------------

/// What a rank measures with, set up once before the sweep.
struct rank_setup {
  std::vector<runtime::device_info> devices;
  const runtime::device_info* device = nullptr;
  std::vector<suite_shape> jobs;
  // Each transpose pair's configurations in the precision, chosen once for every job of the pair.
  std::vector<std::vector<candidate>> pair_candidates;
  std::optional<baselines::device_peak> peak;
  std::unique_ptr<runtime::context> ctx;
};

options options_of(const options& opt, const suite_shape& job) {
  options o = opt;
  o.m = job.m, o.n = job.n, o.k = job.k, o.batch = job.batch;
  return o;
}

/// What measure_item needs besides the item.
struct rank_worker {
  const options& opt;
  const std::vector<transpose_pair>& pairs;
  const rank_setup& setup;
  const rank_place& place;
  bool distributed;
  /// Where other ranks of this host have the same device: the lock file they take turns on.
  std::string shared_device_lock;
};

/// This rank's turn on a device it shares with other ranks of its host: an exclusive flock on
/// the device's lock file for a whole problem (its builds, its timings), so that no rank's
/// timings run beside another's work. Released when destroyed.
class device_turn {
 public:
  explicit device_turn(const std::string& path) {
    if (path.empty()) return;
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd_ < 0) throw runtime::error(fmt::format("{}: cannot open the device's lock file: {}", path, std::strerror(errno)));
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno != EINTR) {
        const int failure = errno;
        ::close(fd_);
        throw runtime::error(fmt::format("{}: cannot lock the device's lock file: {}", path, std::strerror(failure)));
      }
      stop_if_requested();  // a stop while waiting for the turn
    }
  }
  ~device_turn() {
    if (fd_ >= 0) ::close(fd_);  // releases the lock
  }
  device_turn(const device_turn&) = delete;
  device_turn& operator=(const device_turn&) = delete;

 private:
  int fd_ = -1;
};

/// The lock file of a device that ranks of one host share (the same device_identity): in the
/// temporary folder, one per user and device, so that one user's file never stands in another's
/// way.
std::string shared_device_lock(const std::vector<nlohmann::json>& ranks, const rank_place& place) {
  const auto& mine = ranks.at(std::size_t(place.rank));
  const bool shared = std::any_of(ranks.begin(), ranks.end(), [&](const nlohmann::json& r) {
    return r["rank"] != mine["rank"] && r["host"] == mine["host"] && r["device"].is_object() &&
           r["identity"] == mine["identity"];
  });
  if (!shared) return {};
  const std::size_t key = std::hash<std::string>{}(mine["identity"].get<std::string>());
  return (std::filesystem::temp_directory_path() / fmt::format("tessera-device-{}-{:016x}.lock", ::getuid(), key))
      .string();
}

/// Measures one problem on this rank's device: the baselines, the default, the configurations
/// (all, or the budgeted search from the item's seeds) and the finalists. Never throws: a stop
/// or a failure of the device comes back in the report with the run as far as it got.
sweep_report measure_item(const rank_worker& w, const sweep_item& item, double waited_seconds) {
  auto started = clock_type::now();
  std::optional<device_turn> turn;
  const options& opt = w.opt;
  const suite_shape& job = w.setup.jobs[item.job];
  const options job_opt = options_of(opt, job);
  const auto pair_at = std::find_if(w.pairs.begin(), w.pairs.end(), [&](const auto& p) {
    return p.trans_a == job.trans_a && p.trans_b == job.trans_b;
  });
  const auto& cands = w.setup.pair_candidates[std::size_t(pair_at - w.pairs.begin())];
  const nlohmann::json measured_by{{"rank", w.place.rank}, {"host", w.place.host}, {"device", w.setup.device->name}};
  run_record run;
  run.transposes = job.transposes();
  run.m = job.m, run.n = job.n, run.k = job.k, run.batch = job.batch;
  run.weight = job.weight;
  run.problem_class = blas::to_string(blas::classify_problem(job.m, job.n, job.k, job.batch));
  run.configs_total = cands.size();
  run.partial = true;  // until it is complete
  const std::string rank_prefix = w.distributed ? fmt::format("rank {}: ", w.place.rank) : std::string();
  // The run as far as it got, with how long the rank measured it and waited for it (the
  // dispatch: the exchange with rank 0, and any wait for seed neighbours).
  const auto as_json = [&] {
    auto j = run_json(run, measured_by);
    j["wall_seconds"] = std::chrono::duration<double>(clock_type::now() - started).count();
    j["waited_seconds"] = waited_seconds;
    return j;
  };
  try {
    turn.emplace(w.shared_device_lock);  // the turn's wait counts as waiting, not measuring
    waited_seconds += std::chrono::duration<double>(clock_type::now() - started).count();
    started = clock_type::now();
    if (opt.fault_rank == w.place.rank)
      throw runtime::error(fmt::format("--fault-rank {}: this rank's device fails (a self-test)", opt.fault_rank));
    stop_if_requested();
    auto p = make_problem(*w.setup.ctx, job_opt, pair_at->trans_a, pair_at->trans_b);
    run.results = run_baselines(*p, job_opt);
    stop_if_requested();
    run.results.push_back(run_default(*p));

    std::vector<blas::gemm_params> params;
    for (const auto& c : cands) params.push_back(c.params);
    const std::size_t budget = opt.budget ? std::min(std::size_t(opt.budget), cands.size()) : cands.size();
    std::map<std::size_t, double> build_seconds;
    progress bar(rank_prefix + (w.setup.jobs.size() > 1 ? fmt::format("{} measuring", job.label()) : "measuring"),
                 budget);
    auto evaluate = [&](std::size_t i) {
      stop_if_requested();
      if (!build_seconds.count(i)) build_seconds.merge(build_all(cands, {i}, p->args, 1));
      tune_result r = cands[i].run(p->args);
      r.build_seconds = build_seconds[i];
      bar.step(fmt::format("{} {} {:.1f} GFLOP/s", r.name, to_string(r.status), r.median_gflops()));
      const double gflops = r.status == tune_status::ok ? r.median_gflops() : 0.0;
      run.results.push_back(std::move(r));
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
      std::vector<blas::gemm_params> leaders;
      for (const auto& text : item.seeds) leaders.push_back(blas::parse_gemm_params(text));
      budgeted_search(params, budget, evaluate, 12345,
                      search_seeds(leaders, params, job.m, job.n, job.k, job.batch, sizeof(float),
                                   w.setup.device->compute_units));
    }
    reject_implausible(run.results, w.setup.peak, [&](std::size_t suspect, std::size_t best) {
      return measure_pair_again(run.results[suspect], run.results[best], *p, job_opt);
    });
    remeasure_finalists(run, *p, job_opt, w.setup.peak);
    run.partial = false;
    print_table(run, std::cout, 0);
    return {as_json(), "", 0};
  } catch (const stop_requested&) {
    const int signal = stop_signal.load();
    print_table(run, std::cout, signal);
    return {as_json(), "", signal};
  } catch (const std::exception& e) {
    // tessera's errors name the failed call; std::bad_alloc is the host's memory.
    const std::string why = dynamic_cast<const std::bad_alloc*>(&e) != nullptr ? "out of host memory" : e.what();
    std::cerr << fmt::format("{}{}: {}: failed: {}\n", rank_prefix, job.label(), w.setup.device->name, why);
    auto j = as_json();
    j["failure"] = why;
    return {j, why, 0};
  }
}

// ---- the sweep on rank 0 ---------------------------------------------------------------------

/// Rank 0's side of the sweep: hands out items (to its own measuring thread and, through MPI, to
/// the other ranks), records the reports, rewrites the results after each, and prints one line
/// per item handed out and per item finished.
class coordinator {
 public:
  /// configurations: how many each transposes' search has, for the announcements.
  /// carried_over: runs of --resume's file that are not this sweep's, written after its own.
  coordinator(sweep& plan, const options& opt, const run_context& rc, std::vector<nlohmann::json> ranks,
              bool distributed, std::map<std::string, std::size_t> configurations,
              std::vector<nlohmann::json> carried_over)
      : plan_(plan), opt_(opt), rc_(rc), ranks_(std::move(ranks)), distributed_(distributed),
        configurations_(std::move(configurations)), carried_over_(std::move(carried_over)),
        start_(clock_type::now()) {}

  /// What rank measures next after its report (see sweep::exchange).
  std::optional<sweep_item> exchange(int rank, const std::optional<sweep_report>& report) {
    std::lock_guard lock(mutex_);
    if (stop_signal.load() != 0) plan_.stop();
    const auto finished = plan_.busy_with(rank);
    auto item = plan_.exchange(rank, report);
    if (finished) {
      ++reported_;
      if (report && report->run.contains("wall_seconds"))
        times_[rank].emplace_back(report->run["wall_seconds"].get<double>(), report->run["waited_seconds"].get<double>());
      if (report && report->stopped_by != 0) stopped_by_ = report->stopped_by;
      if (report && !report->failure.empty())
        failures_.push_back(fmt::format("{} on rank {} ({}): {}", plan_.jobs()[*finished].label(), rank,
                                        host_of(rank), report->failure));
      save();  // before the line: whoever reads it finds the problem in the file
      if (distributed_ && report)
        std::cerr << fmt::format("-- {} on rank {} ({}): {}\n", plan_.jobs()[*finished].label(), rank, host_of(rank),
                                 outcome(report->run));
    }
    if (item) announce(rank, *item);
    return item;
  }

  /// Whether `rank`, handed nothing, should ask again later (sweep::waits).
  bool waits(int rank) {
    std::lock_guard lock(mutex_);
    return plan_.waits(rank);
  }

  /// Says which problems were taken from --resume's file.
  void announce_resumed() {
    for (const auto& run : plan_.runs())
      std::cerr << fmt::format("-- [{}/{}] {}: complete in {}, not measured again\n", ++announced_, plan_.items(),
                               problem_key(run["transposes"].get<std::string>(), run["m"].get<std::int64_t>(),
                                           run["n"].get<std::int64_t>(), run["k"].get<std::int64_t>(),
                                           run["batch"].get<std::int64_t>()),
                               opt_.resume_path);
    if (plan_.resumed() > 0 || !carried_over_.empty()) save();
  }

  /// The final write, and the exit status: 128 + the signal when stopped, 3 when the results
  /// could not be written, 1 when a device failed, 2 when no configuration was verified.
  int finish() {
    std::lock_guard lock(mutex_);
    if (distributed_) say_what_each_rank_did();
    const int signal = stopped_by_ != 0 ? stopped_by_ : stop_signal.load();
    const bool saved = save(signal);
    const std::string hint =
        opt_.json_path.empty() ? std::string()
                               : fmt::format("; the same command with --resume {} measures what is missing",
                                             opt_.json_path);
    if (signal != 0) {
      std::cerr << fmt::format("\n{}: {}: stopped; the results measured so far are saved, marked partial{}\n",
                               rc_.tool, signal_name(signal), hint);
      return 128 + signal;
    }
    if (!saved) return 3;
    if (!failures_.empty() || plan_.complete() < plan_.items()) {
      std::cerr << fmt::format("{}: {} of {} problems complete{}{}{}\n", rc_.tool, plan_.complete(), plan_.items(),
                               failures_.empty() ? "" : "; failed: ", fmt::join(failures_, "; "), hint);
      return 1;
    }
    return plan_.any_verified() ? 0 : 2;
  }

 private:
  std::string host_of(int rank) const { return ranks_.at(std::size_t(rank))["host"].get<std::string>(); }

  static std::string outcome(const nlohmann::json& run) {
    if (run.contains("failure")) return "failed: " + run["failure"].get<std::string>();
    if (run.value("partial", true)) return "stopped, partial";
    const auto& d = run["decision"];
    if (!d.is_object()) return "complete";
    return d["verdict"] == "best" ? "BEST " + d["best"].get<std::string>() : d["reason"].get<std::string>();
  }

  /// One line per rank: its problems, the time it measured them, and the time it waited for
  /// them (its exchanges with rank 0 and any wait for seed neighbours).
  void say_what_each_rank_did() const {
    const double elapsed = std::chrono::duration<double>(clock_type::now() - start_).count();
    for (auto [rank, times] : times_) {
      double measuring = 0;
      std::vector<double> waits;
      for (const auto& [wall, waited] : times) measuring += wall, waits.push_back(waited);
      std::sort(waits.begin(), waits.end());
      std::cerr << fmt::format(
          "rank {} ({}): {} problems, measuring {:.1f} s of the sweep's {:.1f} s, waiting for them {:.3f} s in all "
          "(median {:.2f} ms, longest {:.2f} ms)\n",
          rank, host_of(rank), times.size(), measuring, elapsed, std::accumulate(waits.begin(), waits.end(), 0.0),
          waits[waits.size() / 2] * 1e3, waits.back() * 1e3);
    }
  }

  void announce(int rank, const sweep_item& item) {
    const auto& job = plan_.jobs()[item.job];
    const double elapsed = std::chrono::duration<double>(clock_type::now() - start_).count();
    const std::size_t left = plan_.items() - plan_.resumed() - reported_;
    std::cerr << fmt::format(
        "-- [{}/{}] {}{}: {} configurations{}\n", ++announced_, plan_.items(), job.label(),
        distributed_ ? fmt::format(" on rank {} ({}, {})", rank, host_of(rank), plan_.device_of(rank)) : std::string(),
        configurations_[job.transposes()],
        reported_ == 0 ? std::string()
                       : fmt::format("; suite {:.0f}s elapsed, ETA {:.0f}s", elapsed,
                                     elapsed / double(reported_) * double(left)));
  }

  bool save(int stopped_by = 0) {
    auto runs = plan_.runs();
    runs.insert(runs.end(), carried_over_.begin(), carried_over_.end());
    saved_ &= write_outputs(opt_, rc_, ranks_, runs, plan_.complete() < plan_.items(), stopped_by);
    return saved_;
  }

 private:
  sweep& plan_;
  const options& opt_;
  const run_context& rc_;
  std::vector<nlohmann::json> ranks_;
  bool distributed_;
  std::map<std::string, std::size_t> configurations_;
  std::vector<nlohmann::json> carried_over_;
  clock_type::time_point start_;
  std::mutex mutex_;
  std::size_t announced_ = 0, reported_ = 0;
  int stopped_by_ = 0;
  bool saved_ = true;
  std::vector<std::string> failures_;
  std::map<int, std::vector<std::pair<double, double>>> times_;  // per rank: each item's measuring and waiting
};

// The messages between rank 0 and the others: a report (JSON {"report": null} to ask for the
// first item, else {"report": {"run", "failure", "stopped_by"}}) and the item answering it
// ({"job": index, "seeds": [...]}, or {"job": null}: no more).
constexpr int report_tag = 1, item_tag = 2;

nlohmann::json report_message(const std::optional<sweep_report>& report) {
  if (!report) return {{"report", nullptr}};
  return {{"report", {{"run", report->run}, {"failure", report->failure}, {"stopped_by", report->stopped_by}}}};
}

std::optional<sweep_report> report_of(const nlohmann::json& message) {
  const auto& r = message.at("report");
  if (r.is_null()) return std::nullopt;
  return sweep_report{r.at("run"), r.at("failure").get<std::string>(), r.at("stopped_by").get<int>()};
}

nlohmann::json item_message(const std::optional<sweep_item>& item) {
  if (!item) return {{"job", nullptr}};
  return {{"job", item->job}, {"seeds", item->seeds}};
}

/// A rank other than 0: asks rank 0 for items and measures them until it says there are no more.
int work_for_rank_0(const rank_job& job, const rank_worker& worker) {
  std::optional<sweep_report> report;
  int stopped_by = 0;
  for (;;) {
    const auto asked = clock_type::now();
    job.send(0, report_tag, report_message(report).dump());
    const auto message = nlohmann::json::parse(job.receive(0, item_tag));
    if (message.at("job").is_null()) break;
    report = measure_item(worker, {message["job"].get<std::size_t>(), message["seeds"].get<std::vector<std::string>>()},
                          std::chrono::duration<double>(clock_type::now() - asked).count());
    stopped_by = report->stopped_by;
  }
  return stopped_by != 0 ? 128 + stopped_by : 0;
}

/// Rank 0's own items (the whole sweep in a job of one): measured until none is left, asking
/// again while items wait for their seed neighbours on other ranks.
void measure_items_of_rank_0(coordinator& coord, const rank_worker& worker) {
  std::optional<sweep_report> report;
  auto asked = clock_type::now();
  for (;;) {
    const auto item = coord.exchange(0, report);
    report.reset();
    if (item) {
      report = measure_item(worker, *item, std::chrono::duration<double>(clock_type::now() - asked).count());
      asked = clock_type::now();
    } else if (coord.waits(0)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    } else {
      return;
    }
  }
}

/// Rank 0 of several: its own device measures in a thread while this one answers the other
/// ranks (every MPI call on this thread).
bool coordinate_ranks(const rank_job& job, coordinator& coord, const rank_worker& worker,
                      const std::vector<nlohmann::json>& ranks) {
  std::exception_ptr failed;  // what ended rank 0's measuring thread, passed on after the join
  std::thread own([&] {
    try {
      measure_items_of_rank_0(coord, worker);
    } catch (...) {
      failed = std::current_exception();
      stop_signal.store(SIGTERM);  // the other ranks are answered "no more"
    }
  });
  std::set<int> open;     // the ranks that still ask for items
  std::set<int> waiting;  // those whose answer waits for an item to be ready
  for (const auto& r : ranks)
    if (r["rank"].get<int>() != 0 && r["error"].is_null()) open.insert(r["rank"].get<int>());
  // Answers `rank` now (an item, or no more) unless it is to wait; false when it asks no more.
  const auto answer = [&](int rank, const std::optional<sweep_item>& item) {
    if (!item && coord.waits(rank)) {
      waiting.insert(rank);
      return;
    }
    waiting.erase(rank);
    job.send(rank, item_tag, item_message(item).dump());
    if (!item) open.erase(rank);
  };
  // After a stop the ranks measuring report what they have at their next measurement boundary;
  // one that does not within the grace (it got no signal, or is stuck in a kernel build) is
  // left, and the job ends without it (the caller aborts it).
  constexpr auto grace = std::chrono::seconds(30);
  std::optional<clock_type::time_point> stopped_at;
  try {
    while (!open.empty()) {
      if (!stopped_at && stop_signal.load() != 0) stopped_at = clock_type::now();
      if (stopped_at && clock_type::now() - *stopped_at > grace) break;
      if (const auto message = job.poll(report_tag)) {
        answer(message->first, coord.exchange(message->first, report_of(nlohmann::json::parse(message->second))));
        continue;
      }
      for (const int rank : std::vector<int>(waiting.begin(), waiting.end()))
        answer(rank, coord.exchange(rank, std::nullopt));
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  } catch (...) {
    stop_signal.store(SIGTERM);  // the thread stops at its next measurement
    own.join();
    throw;
  }
  own.join();
  if (failed) std::rethrow_exception(failed);
  return open.empty();
}

/// Chooses this rank's device and everything measured with it; throws tessera::error.
rank_setup set_up(options& opt, const CLI::App& app, const std::string& tool, const std::vector<transpose_pair>& pairs,
                  const std::string& precision_name, const rank_place& place) {
  rank_setup s;
  // Everything that can be refused is refused before any work: the outputs, the device, the
  // problem's memory.
  if (place.rank == 0)
    for (const auto* path : {&opt.json_path, &opt.csv_path})
      if (!path->empty()) runtime::check_writable(*path);
  s.devices = runtime::list_devices();
  const auto request = runtime::device_request_from("--device", opt.device);
  // The ranks of a host take the devices the request matches one each, in turn.
  s.device = &runtime::select_device(request.spec, s.devices, request.source, std::size_t(place.local_rank));
  // The problems: the suite's shapes, or --m --n --k --batch for each transpose pair.
  if (opt.shapes_paths.empty()) {
    for (const auto& pair : pairs)
      s.jobs.push_back({opt.m, opt.n, opt.k, opt.batch, pair.trans_a, pair.trans_b, 1.0, "the command line"});
  } else {
    for (const char* sized : {"--m", "--n", "--k", "--batch"})
      if (app.count(sized) > 0)
        throw argument_error(fmt::format("{} and --shapes: the suite gives the sizes, leave {} out", sized, sized));
    for (const auto& path : opt.shapes_paths)
      for (auto& shape : read_shape_suite(path)) s.jobs.push_back(std::move(shape));
    for (const auto& job : s.jobs)
      if (std::none_of(pairs.begin(), pairs.end(),
                       [&](const auto& p) { return p.trans_a == job.trans_a && p.trans_b == job.trans_b; }))
        throw argument_error(fmt::format("{}: transposes {}: {} tunes only {} (tune_all tunes the four)", job.where,
                                         job.transposes(), tool,
                                         fmt::format("{}{}", pairs.front().trans_a ? 't' : 'n',
                                                     pairs.front().trans_b ? 't' : 'n')));
    if (!opt.epilogue.empty() && std::any_of(s.jobs.begin(), s.jobs.end(), [](auto& j) { return j.batch != 1; }))
      throw argument_error(fmt::format("{}: --epilogue tunes single GEMMs: every batch must be 1",
                                       fmt::join(opt.shapes_paths, ", ")));
  }
  for (const auto& job : s.jobs) check_problem_fits(options_of(opt, job), *s.device);
  const bool tensor_cores = blas::device_limits(*s.device).tensor_cores != 0;
  if (baselines::operands_of(opt.precision) != blas::operand_type::float32 && !tensor_cores)
    throw unsupported_error(fmt::format(
        "--precision {}: A and B of 16-bit values are multiplied only on tensor cores (the mma family: NVIDIA, "
        "compute capability 8.0 and up), and {} has none",
        precision_name, s.device->name));
  for (const auto& pair : pairs) {
    auto all = pair.candidates();
    const std::size_t built = all.size();
    s.pair_candidates.push_back(candidates_for(std::move(all), opt.precision, tensor_cores));
    if (s.pair_candidates.back().empty())
      throw argument_error(fmt::format(
          "--precision {}: none of the {} configurations this tuner was built with computes in {} on {} "
          "(fp16 and bf16 need the mma family: build with -DTUNING_TARGET=NVIDIA_GPU)",
          precision_name, built, precision_name, s.device->name));
  }
  s.peak = opt.peak_gflops > 0 ? std::optional<baselines::device_peak>({opt.peak_gflops, "given by --peak-gflops"})
                               : baselines::estimate_peak(*s.device, opt.precision);
  s.ctx = std::make_unique<runtime::context>(*s.device);
  // The ranks of a host share its cores for the kernels' builds.
  if (opt.build_threads == 0)
    opt.build_threads = int(std::max(1u, std::thread::hardware_concurrency() / unsigned(place.local_ranks)));
  return s;
}

}  // namespace

// ---- driver ----------------------------------------------------------------------------------

int tuner_main(int argc, char** argv, const std::string& tool, const std::vector<transpose_pair>& pairs) {
  CLI::App app{fmt::format("{}: benchmark the system BLAS, tessera's default and every generated GEMM "
                           "configuration on one device; each result verified, the table sorted worst to best, the "
                           "finalists measured again interleaved, BEST named only when it beats the default by more "
                           "than the spread of the measurements.",
                           tool)};
  // Under mpirun or srun, one rank per device (see rank_job); otherwise a job of one.
  std::optional<rank_job> joined;
  try {
    joined.emplace(argc, argv);
  } catch (const tessera::error& e) {
    std::cerr << tool << ": " << e.what() << '\n';
    return 1;
  }
  const rank_job& job = *joined;
  const rank_place& place = job.place();
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
  app.add_option("--fault-rank", opt.fault_rank,
                 "self-test: this rank's device fails at its first problem (the problem is recorded failed with "
                 "the reason, the rank takes no more, the others go on)")
      ->check(whole_number(0, int_max));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (place.rank != 0) return e.get_exit_code();  // every rank parsed the same line: rank 0 says it
    return app.exit(e);
  }
  if (!job.distributed() && ranks_in_environment() > 1) {
    // Each task would tune the whole sweep alone, into the same --json.
    std::cerr << fmt::format(
        "{}: launched as one of {} tasks, but not as the ranks of one MPI job: {}\n", tool, ranks_in_environment(),
        built_with_mpi() ? "start it with mpirun, or with srun --mpi=pmix (srun without PMI starts tasks that know "
                           "nothing of each other)"
                         : "this tune_* was built without MPI; install libopenmpi-dev and build again (CMake finds "
                           "MPI), or run it alone");
    return 1;
  }
  // Every rank stops at a measurement boundary on SIGINT or SIGTERM (mpirun and Slurm pass them
  // on) and reports what it has.
  install_stop_handlers();
  opt.precision = baselines::precision_from(precision_name);  // CLI11 checked the name
  // The checks of the line, the same on every rank: rank 0 says what is wrong.
  std::ostringstream refused;
  if (!opt.epilogue.empty()) {
    const auto& names = epilogue_names();
    if (std::find(names.begin(), names.end(), opt.epilogue) == names.end())
      refused << fmt::format("{}: --epilogue: unknown epilogue '{}'; valid names: {}\n", tool, opt.epilogue,
                             fmt::join(names, ", "))
              << app.help();
    else if (opt.batch != 1)
      refused << fmt::format("{}: --epilogue tunes a single GEMM: --batch must be 1\n", tool) << app.help();
    else if (opt.precision != baselines::gemm_precision::fp32)
      refused << fmt::format("{}: --epilogue tunes FP32 GEMMs: --precision {} goes without it\n", tool,
                             precision_name)
              << app.help();
  }
  if (!refused.str().empty()) {
    if (place.rank == 0) std::cerr << refused.str();
    return 1;
  }
  // Each rank chooses its device and prepares; a failure leaves the rank without items (rank 0's
  // ends the job). Outside any try: the failure is told to the other ranks, not thrown past them.
  run_context rc{tool, nullptr, std::nullopt};
  rank_setup setup;
  std::string setup_error;
  try {
    setup = set_up(opt, app, tool, pairs, precision_name, place);
    rc.device = setup.device;
    rc.peak = setup.peak;
  } catch (const tessera::error& e) {
    setup_error = e.what();
  } catch (const std::bad_alloc&) {
    setup_error = "out of host memory";
  }
  const nlohmann::json me{{"rank", place.rank},
                          {"host", place.host},
                          {"device", rc.device ? device_json(*rc.device, rc.peak) : nlohmann::json(nullptr)},
                          {"index", rc.device ? rc.device->label() : std::string()},
                          {"identity", rc.device ? runtime::device_identity(*rc.device) : std::string()},
                          {"error", setup_error.empty() ? nlohmann::json(nullptr) : nlohmann::json(setup_error)}};
  std::vector<nlohmann::json> ranks;
  for (const auto& text : job.all_gather(me.dump())) ranks.push_back(nlohmann::json::parse(text));
  const rank_worker worker{opt, pairs, setup, place, job.distributed(), shared_device_lock(ranks, place)};
  if (place.rank != 0) {
    if (!job.broadcast(false) || !setup_error.empty()) return setup_error.empty() ? 0 : 1;
    try {
      return work_for_rank_0(job, worker);
    } catch (const std::exception& e) {  // MPI's errors, or a message that is not what it should be
      std::cerr << fmt::format("{}: rank {} ({}): {}\n", tool, place.rank, place.host, e.what());
      job.abort(1);
      return 1;
    }
  }

  // Rank 0: the plan of the sweep, then the items handed out until none is left.
  if (!setup_error.empty()) {
    std::cerr << tool << ": " << setup_error << '\n';
    if (rc.device == nullptr) std::cerr << app.help();
    job.broadcast(false);
    return 1;
  }
  std::vector<std::string> rank_devices;
  for (const auto& r : ranks) {
    rank_devices.push_back(r["device"].is_object() ? r["device"]["name"].get<std::string>() : std::string());
    if (!r["error"].is_null())
      std::cerr << fmt::format("{}: rank {} ({}): {}; it takes no problems\n", tool, r["rank"].get<int>(),
                               r["host"].get<std::string>(), r["error"].get<std::string>());
  }
  std::unique_ptr<sweep> plan;
  std::vector<nlohmann::json> carried_over;
  try {
    std::map<std::string, nlohmann::json> resumed;
    if (!opt.resume_path.empty()) {
      std::vector<std::string> models;
      for (const auto& d : rank_devices)
        if (!d.empty() && std::find(models.begin(), models.end(), d) == models.end()) models.push_back(d);
      resumed = read_resumed(opt.resume_path, opt, tool, models);
    }
    // Seeds serve a budgeted search alone; without one no problem waits for its neighbours.
    const bool budgeted = opt.budget > 0 && std::any_of(setup.pair_candidates.begin(), setup.pair_candidates.end(),
                                                        [&](const auto& c) { return std::size_t(opt.budget) < c.size(); });
    plan = std::make_unique<sweep>(setup.jobs, rank_devices, !budgeted ? 0 : opt.shapes_paths.empty() ? 1 : 2, resumed);
    // The file's other complete runs (other problems, or device models not in this job) stay in it.
    for (const auto& [key, run] : resumed)
      if (!plan->adopted(key)) carried_over.push_back(run);
    if (!opt.resume_path.empty())
      std::cerr << fmt::format("--resume {}: {} of the {} problems complete there, not measured again{}\n",
                               opt.resume_path, plan->resumed(), plan->items(),
                               carried_over.empty()
                                   ? std::string()
                                   : fmt::format("; its {} other complete problems (other shapes or devices) are "
                                                 "kept in the results as they are",
                                                 carried_over.size()));
  } catch (const tessera::error& e) {
    std::cerr << tool << ": " << e.what() << '\n';
    job.broadcast(false);
    return 1;
  }
  job.broadcast(true);

  const auto& device = *setup.device;
  std::cerr << fmt::format("{} on {} ({}), {}{}{}; peak {}\n", tool, device.name, device.driver_version,
                           opt.shapes_paths.empty()
                               ? fmt::format("m={} n={} k={} batch={}", opt.m, opt.n, opt.k, opt.batch)
                               : fmt::format("{} problems of {}", setup.jobs.size(), fmt::join(opt.shapes_paths, ", ")),
                           opt.epilogue.empty() ? "" : ", epilogue " + opt.epilogue,
                           opt.precision == baselines::gemm_precision::fp32 ? "" : ", precision " + precision_name,
                           rc.peak ? fmt::format("{:.0f} GFLOP/s ({})", rc.peak->gflops, rc.peak->derivation)
                                   : std::string("unknown"));
  if (job.distributed()) {
    std::cerr << fmt::format("{} ranks, {} device model(s):", ranks.size(), plan->devices().size());
    for (const auto& r : ranks)
      std::cerr << fmt::format(" rank {} {} {}{}", r["rank"].get<int>(), r["host"].get<std::string>(),
                               r["index"].get<std::string>(),
                               r["device"].is_object() ? " " + r["device"]["name"].get<std::string>() : " (none)");
    std::cerr << '\n';
    for (std::size_t a = 0; a < ranks.size(); ++a)
      for (std::size_t b = a + 1; b < ranks.size(); ++b)
        if (ranks[a]["device"].is_object() && ranks[a]["host"] == ranks[b]["host"] &&
            ranks[a]["identity"] == ranks[b]["identity"])
          std::cerr << fmt::format("note: ranks {} and {} share {} on {}: they take turns, a problem at a time\n", a,
                                   b, ranks[a]["index"].get<std::string>(), ranks[a]["host"].get<std::string>());
  }
  std::map<std::string, std::size_t> configurations;
  for (std::size_t i = 0; i < pairs.size(); ++i)
    configurations[fmt::format("{}{}", pairs[i].trans_a ? 't' : 'n', pairs[i].trans_b ? 't' : 'n')] =
        setup.pair_candidates[i].size();
  coordinator coord(*plan, opt, rc, ranks, job.distributed(), configurations, carried_over);
  coord.announce_resumed();
  bool released = true;  // every other rank told "no more"
  try {
    if (job.distributed()) {
      released = coordinate_ranks(job, coord, worker, ranks);
    } else {
      measure_items_of_rank_0(coord, worker);
    }
  } catch (const std::exception& e) {  // MPI's errors, a message that is not what it should be, ...
    std::cerr << fmt::format("{}: {}\n", tool, e.what());
    coord.finish();
    job.abort(1);
    return 1;
  }
  const int status = coord.finish();
  if (!released) job.abort(status);  // ranks that did not stop within the grace
  return status;
}

}  // namespace tessera::auto_tuner
