// The tune_* driver: options, baselines, parallel builds, progress, ranking and output.
#include "tuner.hpp"

#include "epilogue.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <set>
#include <thread>

#include <CLI/CLI.hpp>
#include <cblas.h>
#include <clblast_c.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <tessera/blas/gemm_defaults.hpp>

#if TESSERA_HAVE_CUBLAS
#include "cublas_baseline.hpp"
#endif

namespace tessera::auto_tuner {

namespace {

using clock_type = std::chrono::steady_clock;

struct options {
  std::int64_t m = 1024, n = 1024, k = 1024, batch = 1;
  int repetitions = 5;
  int warmups = 1;
  std::string device;
  std::string json_path, csv_path;
  std::size_t budget = 0;  // 0: every configuration
  std::size_t build_threads = 0;
  std::string fault_config;
  std::string epilogue;  // empty: the plain GEMM
};

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
  tune_args args;
  runtime::device_buffer a, b, c;
  std::vector<float> host_a, host_b, reference;
  std::unique_ptr<epilogue_problem> epilogue;
  std::vector<float> epilogue_reference;
};

std::vector<float> random_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> out(n);
  for (auto& v : out) do v = dist(rng); while (v == 0.f);
  return out;
}

std::unique_ptr<problem> make_problem(const runtime::context& ctx, const options& opt, bool ta, bool tb) {
  auto p = std::make_unique<problem>();
  tune_args& a = p->args;
  a.ctx = &ctx;
  a.trans_a = ta ? blas::transpose::trans : blas::transpose::none;
  a.trans_b = tb ? blas::transpose::trans : blas::transpose::none;
  a.m = opt.m, a.n = opt.n, a.k = opt.k, a.batch = opt.batch;
  a.lda = ta ? a.k : a.m;
  a.ldb = tb ? a.n : a.k;
  a.ldc = a.m;
  a.stride_a = a.m * a.k, a.stride_b = a.k * a.n, a.stride_c = a.m * a.n;
  a.warmups = opt.warmups;
  a.repetitions = opt.repetitions;
  a.fault_config = opt.fault_config;
  const auto seed = static_cast<std::uint64_t>(std::random_device{}());
  p->host_a = random_values(std::size_t(a.stride_a * a.batch), seed);
  p->host_b = random_values(std::size_t(a.stride_b * a.batch), seed + 1);
  p->reference.assign(std::size_t(a.stride_c * a.batch), 0.f);
  for (std::int64_t i = 0; i < a.batch; ++i)
    cblas_sgemm(CblasColMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, int(a.m), int(a.n),
                int(a.k), 1.f, p->host_a.data() + i * a.stride_a, int(a.lda), p->host_b.data() + i * a.stride_b,
                int(a.ldb), 0.f, p->reference.data() + i * a.stride_c, int(a.ldc));
  p->a = runtime::device_buffer(ctx, p->host_a.size() * sizeof(float));
  p->b = runtime::device_buffer(ctx, p->host_b.size() * sizeof(float));
  p->c = runtime::device_buffer(ctx, p->reference.size() * sizeof(float));
  p->a.write(0, p->a.bytes(), p->host_a.data());
  p->b.write(0, p->b.bytes(), p->host_b.data());
  a.a = &p->a, a.b = &p->b, a.c = &p->c;
  a.reference = &p->reference;
  if (!opt.epilogue.empty()) {
    p->epilogue = make_epilogue(opt.epilogue, ctx, a.trans_a, a.trans_b, a.m, a.n, a.k, p->host_a, p->host_b);
    p->epilogue_reference = p->epilogue->reference(p->reference);
    a.epilogue = p->epilogue.get();
    a.epilogue_reference = &p->epilogue_reference;
  }
  return p;
}

timing summarize(std::vector<double> seconds) {
  std::sort(seconds.begin(), seconds.end());
  return {seconds.front(), seconds[seconds.size() / 2], seconds.back()};
}

tune_result run_clblast(const problem& p) {
  const tune_args& a = p.args;
  tune_result r;
  r.name = "CLBlast";
  r.kind = "baseline";
  r.flops = a.flops();
  const auto op = [](blas::transpose t) { return t == blas::transpose::trans ? CLBlastTransposeYes : CLBlastTransposeNo; };
  auto once = [&](cl_event* event) {
    cl_command_queue queue = a.ctx->queue()();
    if (a.batch == 1)
      return CLBlastSgemm(CLBlastLayoutColMajor, op(a.trans_a), op(a.trans_b), a.m, a.n, a.k, 1.f, a.a->handle()(), 0,
                          a.lda, a.b->handle()(), 0, a.ldb, 0.f, a.c->handle()(), 0, a.ldc, &queue, event);
    return CLBlastSgemmStridedBatched(CLBlastLayoutColMajor, op(a.trans_a), op(a.trans_b), a.m, a.n, a.k, 1.f,
                                      a.a->handle()(), 0, a.lda, a.stride_a, a.b->handle()(), 0, a.ldb, a.stride_b,
                                      0.f, a.c->handle()(), 0, a.ldc, a.stride_c, a.batch, &queue, event);
  };
  std::vector<double> seconds;
  for (int i = 0; i < a.warmups + a.repetitions; ++i) {
    cl_event raw = nullptr;
    const CLBlastStatusCode status = once(&raw);
    if (status != CLBlastSuccess) {
      r.status = tune_status::launch_failed;
      r.reason = fmt::format("CLBlast status {}", int(status));
      return r;
    }
    cl::Event event(raw);
    if (i >= a.warmups) seconds.push_back(runtime::elapsed_seconds(event));
    else event.wait();
  }
  r.time = summarize(seconds);
  r.status = tune_status::ok;
  return r;
}

tune_result run_openblas(const problem& p) {
  const tune_args& a = p.args;
  tune_result r;
  r.name = "OpenBLAS (host)";
  r.kind = "baseline";
  r.flops = a.flops();
  std::vector<float> c(p.reference.size());
  std::vector<double> seconds;
  for (int i = 0; i < a.warmups + a.repetitions; ++i) {
    const auto start = clock_type::now();
    for (std::int64_t e = 0; e < a.batch; ++e)
      cblas_sgemm(CblasColMajor, a.trans_a == blas::transpose::trans ? CblasTrans : CblasNoTrans,
                  a.trans_b == blas::transpose::trans ? CblasTrans : CblasNoTrans, int(a.m), int(a.n), int(a.k), 1.f,
                  p.host_a.data() + e * a.stride_a, int(a.lda), p.host_b.data() + e * a.stride_b, int(a.ldb), 0.f,
                  c.data() + e * a.stride_c, int(a.ldc));
    if (i >= a.warmups) seconds.push_back(std::chrono::duration<double>(clock_type::now() - start).count());
  }
  r.time = summarize(seconds);
  r.status = tune_status::ok;
  return r;
}

#if TESSERA_HAVE_CUBLAS
std::optional<tune_result> run_cublas(const problem& p) {
  if (bench::cuda_device_count() == 0) return std::nullopt;
  const tune_args& a = p.args;
  tune_result r;
  r.name = "cuBLAS (no TF32)";
  r.kind = "baseline";
  r.flops = a.flops();
  try {
    bench::cublas_gemm<float> g(a.trans_a == blas::transpose::trans, a.trans_b == blas::transpose::trans, a.m, a.n,
                                a.k, a.batch, p.host_a, p.host_b);
    std::vector<double> seconds;
    for (int i = 0; i < a.warmups + a.repetitions; ++i) {
      const auto start = clock_type::now();
      g.run();
      g.sync();
      if (i >= a.warmups) seconds.push_back(std::chrono::duration<double>(clock_type::now() - start).count());
    }
    r.time = summarize(seconds);
    r.status = tune_status::ok;
  } catch (const std::exception& e) {
    r.status = tune_status::launch_failed;
    r.reason = e.what();
  }
  return r;
}
#endif

// ---- with --epilogue: the unfused paths, a GEMM then the epilogue as a separate kernel ------

/// Times gemm() then the separate kernel, summing both kernels' times.
tune_result run_unfused(const problem& p, std::string name, const std::function<cl::Event()>& gemm) {
  const tune_args& a = p.args;
  tune_result r;
  r.name = std::move(name);
  r.kind = "baseline";
  r.flops = a.flops();
  try {
    std::vector<double> seconds;
    for (int i = 0; i < a.warmups + a.repetitions; ++i) {
      const cl::Event first = gemm();
      const cl::Event second = p.epilogue->separate();
      if (i >= a.warmups) seconds.push_back(runtime::elapsed_seconds(first) + runtime::elapsed_seconds(second));
      else second.wait();
    }
    r.time = summarize(seconds);
    r.status = tune_status::ok;
  } catch (const std::exception& e) {
    r.status = tune_status::launch_failed;
    r.reason = e.what();
  }
  return r;
}

tune_result run_clblast_unfused(const problem& p) {
  const tune_args& a = p.args;
  const auto op = [](blas::transpose t) { return t == blas::transpose::trans ? CLBlastTransposeYes : CLBlastTransposeNo; };
  cl_mem c = p.epilogue->c().storage().handle()();
  return run_unfused(p, "CLBlast + separate " + p.epilogue->name(), [&] {
    cl_event raw = nullptr;
    cl_command_queue queue = a.ctx->queue()();
    const CLBlastStatusCode status =
        CLBlastSgemm(CLBlastLayoutColMajor, op(a.trans_a), op(a.trans_b), a.m, a.n, a.k, 1.f, a.a->handle()(), 0,
                     a.lda, a.b->handle()(), 0, a.ldb, 0.f, c, 0, a.ldc, &queue, &raw);
    if (status != CLBlastSuccess) throw runtime::error(fmt::format("CLBlast status {}", int(status)));
    return cl::Event(raw);
  });
}

tune_result run_tessera_unfused(const problem& p) {
  auto call = p.args.gemm_call();
  call.c = &p.epilogue->c().storage();
  const auto params = blas::default_params_for(call, *p.args.ctx);
  return run_unfused(p, fmt::format("tessera default + separate {}: {}", p.epilogue->name(), blas::to_string(params)),
                     [&] { return blas::gemm_with(params, call); });
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
    for (std::size_t i; (i = next.fetch_add(1)) < order.size();) {
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
  return seconds;
}

// ---- output --------------------------------------------------------------------------------

struct run_record {
  std::string transposes;
  std::int64_t m, n, k, batch;
  std::string problem_class;
  std::vector<tune_result> results;
  std::size_t configs_total = 0;
};

void print_table(const run_record& run, std::ostream& out) {
  std::vector<const tune_result*> ranked, failed;
  for (const auto& r : run.results) (r.status == tune_status::ok ? ranked : failed).push_back(&r);
  std::sort(ranked.begin(), ranked.end(), [](auto* x, auto* y) { return x->median_gflops() < y->median_gflops(); });
  out << fmt::format("\n== {} m={} n={} k={} batch={} ({}): {} results, {} failed\n", run.transposes, run.m, run.n,
                     run.k, run.batch, run.problem_class, run.results.size(), failed.size());
  for (auto* r : failed)
    out << fmt::format("  FAILED {:<8} {:<13} {}: {}\n", r->kind, to_string(r->status), r->name, r->reason);
  out << fmt::format("  {:<8} {:>10} {:>10} {:>10} {:>11} {:>8}  {}\n", "kind", "min ms", "median ms", "max ms",
                     "GFLOP/s", "build s", "name");
  for (auto* r : ranked)
    out << fmt::format("  {:<8} {:>10.3f} {:>10.3f} {:>10.3f} {:>11.1f} {:>8}  {}\n", r->kind, r->time->min_seconds * 1e3,
                       r->time->median_seconds * 1e3, r->time->max_seconds * 1e3, r->median_gflops(),
                       r->build_seconds ? fmt::format("{:.2f}", *r->build_seconds) : "", r->name);
  const tune_result* best = nullptr;
  for (auto* r : ranked)
    if (r->kind == "config") best = r;
  if (!best) {
    out << "  no configuration was verified\n";
    return;
  }
  out << fmt::format("  BEST {}: {:.1f} GFLOP/s", best->name, best->median_gflops());
  for (auto* r : ranked)
    if (r->kind != "config") out << fmt::format(", {:.2f}x {}", best->median_gflops() / r->median_gflops(), r->name);
  out << '\n';
}

nlohmann::json to_json(const tune_result& r) {
  nlohmann::json j{{"name", r.name}, {"kind", r.kind}, {"status", to_string(r.status)}, {"reason", r.reason}};
  j["gflops"] = r.time ? nlohmann::json{{"min", r.flops / r.time->max_seconds * 1e-9},
                                         {"median", r.median_gflops()},
                                         {"max", r.flops / r.time->min_seconds * 1e-9}}
                       : nlohmann::json(nullptr);
  j["seconds"] = r.time ? nlohmann::json{{"min", r.time->min_seconds}, {"median", r.time->median_seconds},
                                          {"max", r.time->max_seconds}}
                        : nlohmann::json(nullptr);
  j["build_seconds"] = r.build_seconds ? nlohmann::json(*r.build_seconds) : nlohmann::json(nullptr);
  return j;
}

void write_outputs(const options& opt, const std::string& tool, const runtime::device_info& dev,
                   const std::vector<run_record>& runs) {
  if (!opt.json_path.empty()) {
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    const auto key = blas::describe_device(dev);
    nlohmann::json doc{{"tool", tool},
                       {"date", date},
                       {"element_type", "float"},
                       {"epilogue", opt.epilogue.empty() ? nlohmann::json(nullptr) : nlohmann::json(opt.epilogue)},
                       {"device",
                        {{"name", dev.name},
                         {"vendor", dev.vendor},
                         {"type", key.type},
                         {"architecture", key.architecture},
                         {"driver_version", dev.driver_version}}},
                       {"runs", nlohmann::json::array()}};
    for (const auto& run : runs) {
      nlohmann::json results = nlohmann::json::array();
      for (const auto& r : run.results) results.push_back(to_json(r));
      doc["runs"].push_back({{"transposes", run.transposes}, {"m", run.m}, {"n", run.n}, {"k", run.k},
                             {"batch", run.batch}, {"problem_class", run.problem_class},
                             {"configs_total", run.configs_total}, {"results", results}});
    }
    std::ofstream(opt.json_path) << doc.dump(1) << '\n';
  }
  if (!opt.csv_path.empty()) {
    std::ofstream csv(opt.csv_path);
    csv << "transposes,m,n,k,batch,kind,name,status,median_gflops,min_ms,median_ms,max_ms,build_s,reason\n";
    for (const auto& run : runs)
      for (const auto& r : run.results)
        csv << fmt::format("{},{},{},{},{},{},\"{}\",{},{:.3f},{},{},{},{},\"{}\"\n", run.transposes, run.m, run.n,
                           run.k, run.batch, r.kind, r.name, to_string(r.status), r.median_gflops(),
                           r.time ? fmt::format("{:.4f}", r.time->min_seconds * 1e3) : "",
                           r.time ? fmt::format("{:.4f}", r.time->median_seconds * 1e3) : "",
                           r.time ? fmt::format("{:.4f}", r.time->max_seconds * 1e3) : "",
                           r.build_seconds ? fmt::format("{:.3f}", *r.build_seconds) : "",
                           std::string(r.reason.begin(), std::find(r.reason.begin(), r.reason.end(), '"')));
  }
}

}  // namespace

// ---- driver ----------------------------------------------------------------------------------

int tuner_main(int argc, char** argv, const std::string& tool, const std::vector<transpose_pair>& pairs) {
  CLI::App app{fmt::format("{}: benchmark the system BLAS, tessera's default and every generated GEMM "
                           "configuration on one device; each result verified, the table sorted worst to best.",
                           tool)};
  options opt;
  app.add_option("--m", opt.m, "rows of C")->check(CLI::PositiveNumber);
  app.add_option("--n", opt.n, "columns of C")->check(CLI::PositiveNumber);
  app.add_option("--k", opt.k, "inner dimension")->check(CLI::PositiveNumber);
  app.add_option("--batch", opt.batch, "strided batch count")->check(CLI::PositiveNumber);
  app.add_option("--reps", opt.repetitions, "timed repetitions per configuration")->check(CLI::PositiveNumber);
  app.add_option("--warmups", opt.warmups, "untimed runs before timing")->check(CLI::NonNegativeNumber);
  app.add_option("--device", opt.device, "device: gpu, cpu, P:D or part of its name (default: TESSERA_DEVICE)");
  app.add_option("--json", opt.json_path, "write every result as JSON (gen/select_defaults.py reads it)");
  app.add_option("--csv", opt.csv_path, "write every result as CSV");
  app.add_option("--budget", opt.budget, "evaluate at most N configurations per transpose (sample, then refine)")
      ->check(CLI::PositiveNumber);
  app.add_option("--build-threads", opt.build_threads, "kernels built at once (default: hardware threads)");
  app.add_option("--fault-config", opt.fault_config,
                 "self-test: run the configuration with this text form with K one short (must be caught)");
  app.add_option("--epilogue", opt.epilogue,
                 fmt::format("tune the GEMM with this epilogue fused ({}); the unfused paths (tessera's GEMM, "
                             "CLBlast, each + a separate kernel) are measured beside it",
                             fmt::join(epilogue_names(), ", ")));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
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
  }
  try {
    const auto devices = runtime::list_devices();
    const auto request = runtime::device_request_from("--device", opt.device);
    const auto& device = runtime::select_device(request.spec, devices, request.source);
    runtime::context ctx(device);
    if (opt.build_threads == 0) opt.build_threads = std::max(1u, std::thread::hardware_concurrency());
    std::cerr << fmt::format("{} on {} ({}), m={} n={} k={} batch={}{}\n", tool, device.name, device.driver_version,
                             opt.m, opt.n, opt.k, opt.batch, opt.epilogue.empty() ? "" : ", epilogue " + opt.epilogue);
    std::vector<run_record> runs;
    bool any_verified = false;
    std::vector<blas::gemm_params> previous_leaders;  // the budgeted search of the pair before
    for (const auto& pair : pairs) {
      const auto cands = pair.candidates();
      auto p = make_problem(ctx, opt, pair.trans_a, pair.trans_b);
      run_record run;
      run.transposes = fmt::format("{}{}", pair.trans_a ? 't' : 'n', pair.trans_b ? 't' : 'n');
      run.m = opt.m, run.n = opt.n, run.k = opt.k, run.batch = opt.batch;
      run.problem_class = blas::to_string(blas::classify_problem(opt.m, opt.n, opt.k, opt.batch));
      run.configs_total = cands.size();
      std::cerr << fmt::format("-- {}: {} configurations\n", run.transposes, cands.size());
      if (p->epilogue) {
        run.results.push_back(run_clblast_unfused(*p));
        run.results.push_back(run_tessera_unfused(*p));
      } else {
        run.results.push_back(run_clblast(*p));
        run.results.push_back(run_openblas(*p));
#if TESSERA_HAVE_CUBLAS
        if (auto r = run_cublas(*p)) run.results.push_back(*r);
#endif
      }
      run.results.push_back(run_default(*p));

      std::vector<blas::gemm_params> params;
      for (const auto& c : cands) params.push_back(c.params);
      const std::size_t budget = opt.budget ? std::min(opt.budget, cands.size()) : cands.size();
      std::map<std::size_t, double> build_seconds;
      std::vector<std::size_t> evaluated;
      progress bar("measuring", budget);
      std::map<std::size_t, double> measured;  // configuration -> GFLOP/s (0: failed)
      auto evaluate = [&](std::size_t i) {
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
        build_seconds = build_all(cands, all, p->args, opt.build_threads);
        for (std::size_t i = 0; i < cands.size(); ++i) evaluate(i);
      } else {
        // The previous pair's three best start the search: replayed on the H200's full runs,
        // NT's needle-like best was found from 84 of 100 sample orders alone, from all 100
        // with NN's leaders.
        const auto order = budgeted_search(params, budget, evaluate, 12345, previous_leaders);
        previous_leaders = leaders_of(params, order, [&](std::size_t i) { return measured[i]; }, 3);
      }
      for (const auto& r : run.results) any_verified |= r.kind == "config" && r.status == tune_status::ok;
      print_table(run, std::cout);
      runs.push_back(std::move(run));
      write_outputs(opt, tool, device, runs);  // after each pair, so a long run leaves results behind
    }
    return any_verified ? 0 : 2;
  } catch (const tessera::error& e) {
    std::cerr << tool << ": " << e.what() << '\n' << app.help();
    return 1;
  }
}

}  // namespace tessera::auto_tuner
