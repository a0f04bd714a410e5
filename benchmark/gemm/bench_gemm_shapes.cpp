// The shape-suite benchmark (issue 12): tessera's GEMM with the shipped defaults (the
// configuration blas::gemm picks, no tuning at call time) beside CLBlast on the same device,
// OpenBLAS on the host and cuBLAS where present, over shape suites (configs/shapes/*.json), in
// one process. Every row is verified against the host reference and timed by the function the
// tuner uses (tessera::baselines::verify_and_time). Prints per shape the GFLOP/s and tessera's
// ratio to each baseline, then per baseline the geometric mean of the ratios (weighted by the
// shapes' weights) and the minimum; --json writes it all (gen/plot_shapes.py draws it).
//
//   bench_gemm_shapes --shapes configs/shapes/*.json [--json FILE] [--reps N] [--device D]
//                     [--baselines clblast,openblas,cublas] [--time-limit SECONDS]
//
// --baselines: the baselines timed beside tessera (all by default). Two builds compared side by
// side need only one (cuBLAS), and OpenBLAS on the host takes longer than the GPU rows at large
// shapes. --time-limit: no shape is started after this many seconds; the JSON holds the shapes
// that ran, says "complete": false, and the exit status is 3 (a run cut off by a caller's timeout
// leaves nothing).
#include <tessera/baselines/gemm_implementations.hpp>
#include <tessera/baselines/shape_suite.hpp>
#include <tessera/blas/gemm_defaults.hpp>
#include <tessera/runtime/atomic_file.hpp>
#include <tessera/runtime/context.hpp>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <set>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace baselines = tessera::baselines;
namespace blas = tessera::blas;
namespace rt = tessera::runtime;

namespace {

struct row {
  std::string name;
  baselines::measurement result;
  double gflops = 0;
};

struct shape_result {
  baselines::suite_shape shape;
  std::string suite;
  std::string configuration;  // tessera's pick
  std::string origin;         // the defaults entry it came from
  std::string tail_split;     // how the pick runs as a tail split (chosen_tail_split), or empty
  std::vector<row> rows;      // tessera first
};

row measure(baselines::gemm_implementation<float>& gemm, const baselines::gemm_operands<float>& o,
            const baselines::timing_options& timing) {
  row r{gemm.name(), baselines::verify_and_time(gemm, o.reference, baselines::gemm_tolerance<float>(o.shape.k), timing)};
  if (r.result.outcome == baselines::status::ok) r.gflops = o.shape.flops() / r.result.time->median_seconds * 1e-9;
  return r;
}

// The baselines --baselines may name.
constexpr const char* clblast_name = "clblast";
constexpr const char* openblas_name = "openblas";
constexpr const char* cublas_name = "cublas";

// A run stopped by --time-limit exits with this status, after writing what it measured.
constexpr int stopped_at_time_limit = 3;

// The tail split blas::gemm runs the pick as (blas::tail_split_for_call), for the report: "rows:
// 17 blocks whole, the rest split 4", or empty.
std::string tail_split_of(const rt::context& ctx, const blas::gemm_params& params, const baselines::suite_shape& s) {
  const auto plan = blas::tail_split_for_call(params, sizeof(float), s.problem(), ctx.device().compute_units,
                                              ctx.device().max_allocation_bytes);
  return plan ? fmt::format("{}: {} blocks whole, the rest split {}", plan->along_rows ? "rows" : "columns",
                            plan->whole_blocks, plan->split)
              : "";
}

shape_result run_shape(const rt::context& ctx, const baselines::suite_shape& s, const std::string& suite,
                       const baselines::timing_options& timing, const std::set<std::string>& chosen) {
  shape_result out{s, suite, "", "", "", {}};
  const baselines::gemm_shape shape{s.trans_a, s.trans_b, s.m, s.n, s.k, s.batch};
  const baselines::gemm_operands<float> o(ctx, shape, std::random_device{}());
  const auto choice = blas::choose_default(ctx.device(), sizeof(float), s.problem());
  out.configuration = blas::to_string(choice.params);
  out.origin = choice.entry != nullptr ? choice.entry->origin : "the built-in last resort";
  out.tail_split = tail_split_of(ctx, choice.params, s);
  std::vector<std::unique_ptr<baselines::gemm_implementation<float>>> gemms;
  gemms.push_back(baselines::tessera_default_gemm<float>("tessera", ctx, shape, o.a, o.b, o.c));
  if (chosen.contains(clblast_name)) gemms.push_back(baselines::clblast_gemm<float>(ctx, shape, o.a, o.b, o.c));
  if (chosen.contains(openblas_name)) gemms.push_back(baselines::openblas_gemm<float>(shape, o.host_a, o.host_b));
  if (chosen.contains(cublas_name))
    if (auto cublas = baselines::cublas_gemm<float>(shape, o.host_a, o.host_b)) gemms.push_back(std::move(cublas));
  for (auto& gemm : gemms) out.rows.push_back(measure(*gemm, o, timing));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_gemm_shapes: tessera's GEMM with the shipped defaults against CLBlast, OpenBLAS and cuBLAS "
               "over shape suites; per-shape ratios, their geometric mean and minimum"};
  std::vector<std::string> suites;
  std::string json_path, device;
  int repetitions = 5;
  std::set<std::string> chosen{clblast_name, openblas_name, cublas_name};
  std::optional<double> time_limit;
  app.add_option("--shapes", suites, "shape suites (configs/shapes/*.json)")->required();
  app.add_option("--json", json_path, "write the results as JSON (gen/plot_shapes.py reads it)");
  app.add_option("--reps", repetitions, "timed samples per row")->check(CLI::Range(1, 1000));
  app.add_option("--device", device, "device: gpu, cpu, P:D or part of its name (default: TESSERA_DEVICE)");
  app.add_option("--baselines", chosen, "baselines timed beside tessera (default: all; cuBLAS where present)")
      ->delimiter(',')
      ->check(CLI::IsMember({clblast_name, openblas_name, cublas_name}));
  app.add_option("--time-limit", time_limit, "start no shape after this many seconds (exit 3, the JSON partial)")
      ->check(CLI::NonNegativeNumber);
  CLI11_PARSE(app, argc, argv);
  try {
    if (!json_path.empty()) rt::check_writable(json_path);
    std::vector<std::pair<baselines::suite_shape, std::string>> shapes;
    for (const auto& path : suites)
      for (auto& s : baselines::read_shape_suite(path)) shapes.emplace_back(std::move(s), path);
    const auto devices = rt::list_devices();
    const auto& info = rt::select_device(
        device.empty() ? (std::getenv("TESSERA_DEVICE") ? std::getenv("TESSERA_DEVICE") : "") : device, devices);
    rt::context ctx(info);
    baselines::timing_options timing;
    timing.repetitions = repetitions;
    std::cout << fmt::format("bench_gemm_shapes on {} ({}), {} shapes\n", info.name, info.driver_version, shapes.size());
    std::vector<shape_result> results;
    const auto start = std::chrono::steady_clock::now();
    const auto out_of_time = [&] {
      return time_limit &&
             std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >= *time_limit;
    };
    for (const auto& [s, suite] : shapes) {
      if (out_of_time()) break;
      results.push_back(run_shape(ctx, s, suite, timing, chosen));
      const auto& r = results.back();
      std::string line = fmt::format("{:<28}", s.label());
      for (const auto& x : r.rows)
        line += x.result.outcome == baselines::status::ok ? fmt::format("  {} {:.1f}", x.name, x.gflops)
                                                          : fmt::format("  {} {}", x.name, to_string(x.result.outcome));
      for (std::size_t i = 1; i < r.rows.size(); ++i)
        if (r.rows[0].gflops > 0 && r.rows[i].gflops > 0)
          line += fmt::format("  {:.2f}x {}", r.rows[0].gflops / r.rows[i].gflops, r.rows[i].name);
      std::cout << line << "\n  tessera: " << r.configuration << "\n";
      if (!r.tail_split.empty()) std::cout << "  run as a tail split, " << r.tail_split << "\n";
      std::cout << std::flush;
    }

    // Per baseline: the weighted geometric mean and the minimum of tessera's ratio.
    struct summary {
      double log_sum = 0, weight = 0, min = INFINITY;
      std::string min_shape;
      int shapes = 0;
    };
    std::map<std::string, summary> summaries;
    bool tessera_failed = false;
    for (const auto& r : results) {
      tessera_failed |= r.rows[0].result.outcome != baselines::status::ok;
      for (std::size_t i = 1; i < r.rows.size(); ++i) {
        if (r.rows[0].gflops <= 0 || r.rows[i].gflops <= 0) continue;
        const double ratio = r.rows[0].gflops / r.rows[i].gflops;
        auto& s = summaries[r.rows[i].name];
        s.log_sum += r.shape.weight * std::log(ratio), s.weight += r.shape.weight, ++s.shapes;
        if (ratio < s.min) s.min = ratio, s.min_shape = r.shape.label();
      }
    }
    const bool complete = results.size() == shapes.size();
    nlohmann::json doc{{"tool", "bench_gemm_shapes"}, {"device", info.name}, {"driver_version", info.driver_version},
                       {"suites", suites}, {"complete", complete}, {"shapes_not_run", shapes.size() - results.size()},
                       {"shapes", nlohmann::json::array()}, {"summary", nlohmann::json::object()}};
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    doc["date"] = date;
    for (const auto& r : results) {
      nlohmann::json rows = nlohmann::json::object();
      for (const auto& x : r.rows)
        rows[x.name] = {{"status", to_string(x.result.outcome)}, {"reason", x.result.reason},
                        {"gflops", x.gflops > 0 ? nlohmann::json(x.gflops) : nlohmann::json(nullptr)}};
      doc["shapes"].push_back({{"m", r.shape.m}, {"n", r.shape.n}, {"k", r.shape.k}, {"batch", r.shape.batch},
                               {"transposes", r.shape.transposes()}, {"weight", r.shape.weight}, {"suite", r.suite},
                               {"label", r.shape.label()}, {"configuration", r.configuration}, {"origin", r.origin},
                               {"tail_split", r.tail_split.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.tail_split)},
                               {"results", rows}});
    }
    std::cout << "\nsummary: tessera (shipped defaults) / baseline\n";
    for (const auto& [name, s] : summaries) {
      const double geomean = std::exp(s.log_sum / s.weight);
      std::cout << fmt::format("  {:<16} geometric mean {:.3f}x over {} shapes, minimum {:.3f}x at {}\n", name, geomean,
                               s.shapes, s.min, s.min_shape);
      doc["summary"][name] = {{"geomean", geomean}, {"min", s.min}, {"min_shape", s.min_shape}, {"shapes", s.shapes}};
    }
    if (!json_path.empty()) rt::write_file_atomically(json_path, doc.dump(1) + "\n");
    if (tessera_failed) std::cout << "FAILED: tessera's row failed at some shape (see above)\n";
    if (tessera_failed) return 2;
    if (!complete) {
      std::cout << fmt::format("STOPPED at the time limit of {} s: {} of {} shapes run\n", *time_limit, results.size(),
                               shapes.size());
      return stopped_at_time_limit;
    }
    return 0;
  } catch (const tessera::error& e) {
    std::cerr << "bench_gemm_shapes: " << e.what() << '\n';
    return 1;
  }
}
