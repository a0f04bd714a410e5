// Column-reduction and full-sum probe (issue 14, the unified front door on an H200): the traced
// kernels and variants of them (probe.cl), each checked against the host and timed by device
// profiling (first command's start to last command's end, median of 21) against
// clEnqueueCopyBuffer of the same bytes. copy_ratio = (bytes read / time) / (bytes copied, read +
// written, / copy time). Build and run: run.sh. Environment: PROBE_SCALE=k divides the sizes (a
// quick check on a CPU), PROBE_FENCE=2|3 picks the fence of the "last" variants (probe.cl),
// PROBE_VERBOSE=1 prints NVIDIA's build logs with registers (-cl-nv-verbose), PROBE_TRACED_ONLY=1
// runs the traced kernels' variants alone.
//
// What it found on an H200 (results/; benchmark/RESULTS.md, "Unified column reductions and 2-D
// sums at 0.82-0.96"): the traced column pass held 48 registers, its 64-bit divisions of the
// work-item number by a run-time `lanes` (fewer groups resident: 0.72-0.76x the copy); divided
// in 32 bits it holds 32 (0.84-0.89), with lanes a number in the text as well 0.92-0.97. The
// traced 2-D sum stepped each term's row and column from the last (0.72); dividing each index by
// cols with a multiply gives 0.84. A last-group finish needs a device-scope fence that NVIDIA's
// OpenCL does not offer.
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#define CHECK(x)                                                                        \
  do {                                                                                  \
    cl_int e_ = (x);                                                                    \
    if (e_ != CL_SUCCESS) { std::fprintf(stderr, "%s: %d (line %d)\n", #x, e_, __LINE__); std::exit(1); } \
  } while (0)

static cl_context ctx;
static cl_command_queue queue;
static cl_device_id dev;
static std::string source;
static std::size_t units = 1;

static std::size_t ceil_div(std::size_t a, std::size_t b) { return a / b + (a % b != 0); }

static cl_program build(std::string options) {
  // A later -cl-std wins: drop the first.
  if (const auto first = options.find("-cl-std="); options.find("-cl-std=", first + 1) != std::string::npos)
    options.erase(first, options.find(' ', first) - first);
  const char* s = source.c_str();
  cl_int e;
  cl_program p = clCreateProgramWithSource(ctx, 1, &s, nullptr, &e);
  CHECK(e);
  if (clBuildProgram(p, 1, &dev, options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
    size_t n;
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
    std::string log(n, ' ');
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
    std::fprintf(stderr, "build failed (%s):\n%s\n", options.c_str(), log.c_str());
    return nullptr;
  }
  if (std::getenv("PROBE_VERBOSE") && options.find("-cl-nv-verbose") != std::string::npos) {
    size_t n;
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
    std::string log(n, ' ');
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
    std::printf("build log (%s):\n%s\n", options.c_str(), log.c_str());
  }
  return p;
}

// Writes the program's binary (PTX on NVIDIA) to path.
static void dump_binary(cl_program p, const std::string& path) {
  size_t size = 0;
  clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr);
  std::vector<unsigned char> bin(size);
  unsigned char* ptr = bin.data();
  clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr);
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<char*>(bin.data()), size);
}

template <typename T>
static void arg(cl_kernel k, cl_uint i, T v) { CHECK(clSetKernelArg(k, i, sizeof(T), &v)); }

struct launch { cl_kernel k; std::size_t global, local, global1 = 1; };

// Device time of the launches in order: first start to last end, median of 21 after a warm run.
static double time_us(const std::vector<launch>& ls) {
  std::vector<double> t;
  for (int r = 0; r < 22; ++r) {
    std::vector<cl_event> ev(ls.size());
    for (std::size_t i = 0; i < ls.size(); ++i) {
      const size_t g[2] = {ls[i].global, ls[i].global1}, l[2] = {ls[i].local, 1};
      CHECK(clEnqueueNDRangeKernel(queue, ls[i].k, 2, nullptr, g, l, 0, nullptr, &ev[i]));
    }
    CHECK(clFinish(queue));
    cl_ulong s, e;
    CHECK(clGetEventProfilingInfo(ev.front(), CL_PROFILING_COMMAND_START, sizeof s, &s, nullptr));
    CHECK(clGetEventProfilingInfo(ev.back(), CL_PROFILING_COMMAND_END, sizeof e, &e, nullptr));
    for (cl_event x : ev) clReleaseEvent(x);
    if (r > 0) t.push_back((e - s) * 1e-3);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

static cl_mem buffer(std::size_t bytes, const void* host = nullptr) {
  cl_int e;
  cl_mem m = clCreateBuffer(ctx, host ? CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR : CL_MEM_READ_WRITE, bytes,
                            const_cast<void*>(host), &e);
  CHECK(e);
  return m;
}

static std::vector<float> read(cl_mem m, std::size_t n) {
  std::vector<float> out(n);
  CHECK(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, n * sizeof(float), out.data(), 0, nullptr, nullptr));
  return out;
}

struct shape { std::size_t rows, cols; };

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : ".";
  std::ifstream f(dir + "/probe.cl");
  std::stringstream ss;
  ss << f.rdbuf();
  source = ss.str();
  cl_platform_id plats[8];
  cl_uint np;
  CHECK(clGetPlatformIDs(8, plats, &np));
  cl_int e = CL_DEVICE_NOT_FOUND;
  for (cl_uint p = 0; p < np && e != CL_SUCCESS; ++p) e = clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_GPU, 1, &dev, nullptr);
  if (e != CL_SUCCESS) CHECK(clGetDeviceIDs(plats[0], CL_DEVICE_TYPE_ALL, 1, &dev, nullptr));
  char name[256];
  cl_uint cu;
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, nullptr);
  clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, nullptr);
  units = cu;
  std::printf("device: %s, %u compute units\n", name, cu);
  {
    char version[256] = {};
    clGetDeviceInfo(dev, CL_DEVICE_OPENCL_C_VERSION, sizeof version, version, nullptr);
    cl_device_atomic_capabilities atomics = 0, fences = 0;
    clGetDeviceInfo(dev, CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES, sizeof atomics, &atomics, nullptr);
    clGetDeviceInfo(dev, CL_DEVICE_ATOMIC_FENCE_CAPABILITIES, sizeof fences, &fences, nullptr);
    std::size_t size = 0;
    clGetDeviceInfo(dev, CL_DEVICE_OPENCL_C_FEATURES, 0, nullptr, &size);
    std::vector<cl_name_version> features(size / sizeof(cl_name_version));
    clGetDeviceInfo(dev, CL_DEVICE_OPENCL_C_FEATURES, size, features.data(), nullptr);
    std::printf("%s; atomic memory capabilities 0x%llx, fence capabilities 0x%llx; features:", version,
                (unsigned long long)atomics, (unsigned long long)fences);
    for (const cl_name_version& f : features) std::printf(" %s", f.name);
    std::printf("\n");
  }
  ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &e);
  CHECK(e);
  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  queue = clCreateCommandQueueWithProperties(ctx, dev, props, &e);
  CHECK(e);
  const std::size_t scale = std::getenv("PROBE_SCALE") ? std::atoi(std::getenv("PROBE_SCALE")) : 1;
  const std::size_t n = (std::size_t(1) << 26) / scale, bytes = n * sizeof(float);
  std::vector<float> a(n);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1.f, 2.f);
  for (auto& x : a) x = dist(rng);
  cl_mem da = buffer(bytes, a.data()), dcopy = buffer(bytes), dpart = buffer(16 << 20), dres = buffer(1 << 20);
  std::vector<cl_uint> zeros(1 << 18, 0);
  cl_mem dcount = buffer(zeros.size() * 4, zeros.data());

  double copy_us;
  {
    std::vector<double> t;
    for (int r = 0; r < 22; ++r) {
      cl_event ev;
      CHECK(clEnqueueCopyBuffer(queue, da, dcopy, 0, 0, bytes, 0, nullptr, &ev));
      CHECK(clWaitForEvents(1, &ev));
      cl_ulong s, x;
      clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof s, &s, nullptr);
      clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof x, &x, nullptr);
      clReleaseEvent(ev);
      if (r > 0) t.push_back((x - s) * 1e-3);
    }
    std::sort(t.begin(), t.end());
    copy_us = t[t.size() / 2];
  }
  const double copy_rate = 2.0 * bytes / copy_us;  // bytes per µs
  std::printf("copy %.1f us, %.0f GB/s (read + written)\n", copy_us, copy_rate * 1e-3);

  const std::vector<shape> shapes = {{8192 / scale, 8192}, {1024 / scale, 65536}, {65536 / scale, 1024},
                                     {std::size_t(1) << 26 >> std::countr_zero(scale), 1}, {1, n}, {3001 / scale, 22361}};
  auto report = [&](const char* what, const shape& s, double us, bool ok) {
    std::printf("%-44s %6zux%-9zu %8.1f us  copy_ratio %.3f %s\n", what, s.rows, s.cols, us,
                (bytes / us) / copy_rate, ok ? "" : "  WRONG");
    std::fflush(stdout);
  };
  auto column_reference = [&](const shape& s) {
    std::vector<double> sum(s.cols, 0.0), mag(s.cols, 0.0);
    for (std::size_t r = 0; r < s.rows; ++r)
      for (std::size_t c = 0; c < s.cols; ++c) sum[c] += a[r * s.cols + c], mag[c] += std::fabs(a[r * s.cols + c]);
    return std::pair(sum, mag);
  };
  auto columns_ok = [&](const shape& s, const std::vector<double>& sum, const std::vector<double>& mag) {
    const std::vector<float> got = read(dres, s.cols);
    for (std::size_t c = 0; c < s.cols; ++c)
      if (!(std::fabs(got[c] - sum[c]) <= 2e-5 * mag[c] + 1e-6)) {
        std::printf("  column %zu: %g, expected %g\n", c, got[c], sum[c]);
        return false;
      }
    return true;
  };

  // ---- column reductions
  const std::string verbose = std::getenv("PROBE_VERBOSE") ? " -cl-nv-verbose" : "";
  cl_program traced = build("-cl-std=CL1.2" + verbose);
  if (!traced) return 1;
  cl_kernel traced_col = clCreateKernel(traced, "traced_col", &e);
  CHECK(e);
  cl_kernel traced_final = clCreateKernel(traced, "traced_final", &e);
  CHECK(e);
  cl_kernel traced_full = clCreateKernel(traced, "traced_full", &e);
  CHECK(e);
  cl_kernel traced_final_scalar = clCreateKernel(traced, "traced_final_scalar", &e);
  CHECK(e);
  // The traced text with one change: a required work-group size, a compile-time lanes, both.
  struct traced_variant { std::string name, options; cl_kernel col = nullptr, full = nullptr; };
  std::vector<traced_variant> traced_variants = {
      {"traced", ""},
      {"traced reqd256", " -DTRACED_ATTR=__attribute__((reqd_work_group_size(256,1,1)))"},
      {"traced lanes32", " -DTRACED_LANES=32"},
      {"traced div32", " -DTRACED_DIV32"},
      {"traced div32 lanes32", " -DTRACED_DIV32 -DTRACED_LANES=32"},
      {"traced div32 CL3.0", " -DTRACED_DIV32 -cl-std=CL3.0"},
      {"traced div32 zero", " -DTRACED_DIV32 -DTRACED_ZERO"},
      {"traced shift", " -DTRACED_SHIFT"},
      {"traced magic", " -DTRACED_MAGIC"},
      {"traced recip", " -DTRACED_RECIP"},
      {"traced max", " -DCOMBINE(a,v)=(((a)<(v))?(v):(a))"},
      {"traced lanes32 max", " -DTRACED_LANES=32 -DCOMBINE(a,v)=(((a)<(v))?(v):(a))"},
      {"traced div32 lanes32 max", " -DTRACED_DIV32 -DTRACED_LANES=32 -DCOMBINE(a,v)=(((a)<(v))?(v):(a))"},
      {"traced lanes32 fmax", " -DTRACED_LANES=32 -DCOMBINE(a,v)=fmax(a,v)"},
  };

  for (traced_variant& v : traced_variants) {
    cl_program p = v.name == "traced" ? traced : build("-cl-std=CL1.2" + verbose + v.options);
    if (!p) return 1;
    v.col = clCreateKernel(p, "traced_col", &e);
    CHECK(e);
    v.full = clCreateKernel(p, "traced_full", &e);
    CHECK(e);
  }
  const std::size_t target = 8 * units;

  struct col_variant { std::string name; std::size_t w, rl, groups_per_unit; std::string options; };
  const std::string r = " -DRESTRICT=restrict", fence = std::getenv("PROBE_FENCE") ? std::getenv("PROBE_FENCE") : "2";
  const std::vector<col_variant> col_variants = {
      {"long acc4 blockloop (as traced)", 32, 8, 8, "-DIDX=long -DACC=4 -DBLOCKLOOP=1"},
      {"long acc4 blockloop (as traced) CL1.2", 32, 8, 8, "-DIDX=long -DACC=4 -DBLOCKLOOP=1 -cl-std=CL1.2"},
      {"long acc8 blockloop", 32, 8, 8, "-DIDX=long -DACC=8 -DBLOCKLOOP=1"},
      {"long acc8 blockloop restrict", 32, 8, 8, "-DIDX=long -DACC=8 -DBLOCKLOOP=1" + r},
      {"int acc4 blockloop", 32, 8, 8, "-DIDX=int -DACC=4 -DBLOCKLOOP=1"},
      {"int acc8 blockloop restrict", 32, 8, 8, "-DIDX=int -DACC=8 -DBLOCKLOOP=1" + r},
      {"int/long-address acc8 blockloop restrict", 32, 8, 8, "-DIDX=int -DAIDX=long -DACC=8 -DBLOCKLOOP=1" + r},
      {"int acc8 restrict", 32, 8, 8, "-DIDX=int -DACC=8" + r},
      {"long acc4 (1 column)", 1, 256, 8, "-DIDX=long -DACC=4"},
      {"long acc4 blockloop (1 column)", 1, 256, 8, "-DIDX=long -DACC=4 -DBLOCKLOOP=1"},
      {"long acc4 blockloop (1 column) CL1.2", 1, 256, 8, "-DIDX=long -DACC=4 -DBLOCKLOOP=1 -cl-std=CL1.2"},
      {"int acc8 restrict (1 column)", 1, 256, 8, "-DIDX=int -DACC=8" + r},
      // The last group of a column block to finish adds the parts (no second kernel); needs a
      // device-scope fence: PROBE_FENCE=2 (OpenCL 3.0's, which NVIDIA's OpenCL lacks: its fence
      // capabilities stop at the work-group) or 3 (NVIDIA's membar.gl in inline PTX).
      {"int acc8 restrict last", 32, 8, 8, "-DIDX=int -DACC=8 -DLAST=" + fence + r},
      {"int acc8 restrict last w64", 64, 4, 8, "-DIDX=int -DACC=8 -DLAST=" + fence + r},
      {"int acc8 restrict last (1 column)", 1, 256, 8, "-DIDX=int -DACC=8 -DLAST=" + fence + r},
  };

  bool dumped = false;
  for (std::size_t si = 0; si < 4; ++si) {
    const shape s = shapes[si];
    const auto [sum, mag] = column_reference(s);
    for (const traced_variant& tv : traced_variants) {
      if (tv.options.find("LANES") != std::string::npos && s.cols == 1) continue;
      // The library's layout (col_reduction_layout, a GPU, 256 work-items, col_width 32, col_groups 8).
      std::size_t lanes = std::min<std::size_t>(256, std::bit_ceil(s.cols));
      lanes = std::min<std::size_t>(lanes, 32);
      const std::size_t col_blocks = ceil_div(s.cols, lanes), row_lanes = 256 / lanes;
      std::size_t parts = 1;
      if (col_blocks < target && s.rows > row_lanes)
        parts = std::clamp<std::size_t>(target / col_blocks, 1, ceil_div(s.rows, row_lanes));
      std::size_t part_length, part_extent, chunk = 1, span, step;
      if (parts > 1 && row_lanes >= 32) {
        part_length = row_lanes, part_extent = s.rows, span = s.rows, step = parts * row_lanes;
      } else {
        part_length = part_extent = span = ceil_div(s.rows, parts);
        step = row_lanes;
      }
      const std::size_t groups = std::min(col_blocks, target);
      cl_kernel k = tv.col;
      cl_long v[] = {(cl_long)s.rows, (cl_long)s.cols, (cl_long)lanes, (cl_long)parts, (cl_long)part_length,
                     (cl_long)part_extent, (cl_long)chunk, (cl_long)span, (cl_long)step};
      for (int i = 0; i < 9; ++i) arg(k, i, v[i]);
      arg(k, 9, 0.0f);
      arg(k, 10, da);
      arg(k, 11, (cl_long)s.cols);
      arg(k, 12, dpart);
      arg(k, 13, dres);
      arg(k, 14, (cl_long)(parts == 1));
      arg(k, 15, (cl_long)col_blocks);
      arg(k, 16, (cl_long)std::countr_zero(lanes));
      std::vector<launch> ls{{k, groups * 256, 256, parts}};
      if (parts > 1) {
        // Finishing pass (final_lanes_for; column reductions: outputs fastest).
        const std::size_t lanes2 = std::clamp<std::size_t>(std::bit_floor(std::max<std::size_t>(parts / 4, 1)), 1, 256);
        const std::size_t per_group = 256 / lanes2;
        cl_kernel f = traced_final;
        arg(f, 0, (cl_long)s.cols);
        arg(f, 1, (cl_long)parts);
        arg(f, 2, (cl_long)1);
        arg(f, 3, (cl_long)s.cols);
        arg(f, 4, (cl_long)lanes2);
        arg(f, 5, (cl_long)0);
        arg(f, 6, 0.0f);
        arg(f, 7, dpart);
        arg(f, 8, dres);
        arg(f, 9, (cl_long)1);
        ls.push_back({f, ceil_div(s.cols, per_group) * 256, 256});
      }
      const double us = time_us(ls);
      // (A maximum's results are not checked: the final pass here adds the parts.)
      const bool is_max = tv.options.find("COMBINE") != std::string::npos;
      report(("col " + tv.name + ", both passes (parts " + std::to_string(parts) + ")").c_str(), s, us,
             is_max || columns_ok(s, sum, mag));
      ls.resize(1);
      report(("col " + tv.name + ", first pass alone").c_str(), s, time_us(ls), true);
    }
    for (const col_variant& v : col_variants) {
      if (std::getenv("PROBE_TRACED_ONLY")) break;
      const bool one_column = v.w == 1;
      if (one_column != (s.cols == 1)) continue;
      cl_program p = build(std::string(fence == "2" ? "-cl-std=CL3.0" : "-cl-std=CL1.2") + verbose + " -DW=" + std::to_string(v.w) + " -DRL=" + std::to_string(v.rl) + " " + v.options);
      if (!p) continue;
      if (!dumped && v.options.find("LAST=1") != std::string::npos) {
        dump_binary(p, std::string(std::getenv("OUT") ? std::getenv("OUT") : "/tmp") + "/col_pass_last" + fence + ".ptx");
        dumped = true;
      }
      cl_kernel k = clCreateKernel(p, "col_pass", &e);
      CHECK(e);
      const std::size_t col_blocks = ceil_div(s.cols, v.w), t = v.groups_per_unit * units;
      std::size_t parts = 1;
      if (col_blocks < t && s.rows > v.rl) parts = std::clamp<std::size_t>(t / col_blocks, 1, ceil_div(s.rows, v.rl));
      std::size_t part_length, part_extent, chunk = 1, span, step;
      if (parts > 1 && v.rl >= 32) {
        part_length = v.rl, part_extent = s.rows, span = s.rows, step = parts * v.rl;
      } else {
        part_length = part_extent = span = ceil_div(s.rows, parts);
        step = v.rl;
      }
      const bool blockloop = v.options.find("BLOCKLOOP=1") != std::string::npos;
      const std::size_t groups = blockloop ? std::min(col_blocks, t) : col_blocks;
      const bool is_int = v.options.find("IDX=int") != std::string::npos;
      auto idx = [&](cl_uint i, std::size_t x) {
        if (is_int) arg(k, i, (cl_int)x);
        else arg(k, i, (cl_long)x);
      };
      idx(0, s.rows); idx(1, s.cols); idx(2, part_length); idx(3, part_extent); idx(4, chunk); idx(5, span); idx(6, step);
      arg(k, 7, da); idx(8, s.cols); arg(k, 9, dpart); arg(k, 10, dres); arg(k, 11, dcount); idx(12, parts);
      idx(13, col_blocks);
      std::vector<launch> ls{{k, groups * v.w * v.rl, v.w * v.rl, parts}};
      const bool last = v.options.find("LAST=1") != std::string::npos;
      if (parts > 1 && !last) {
        const std::size_t lanes2 = std::clamp<std::size_t>(std::bit_floor(std::max<std::size_t>(parts / 4, 1)), 1, 256);
        cl_kernel fk = traced_final;
        arg(fk, 0, (cl_long)s.cols); arg(fk, 1, (cl_long)parts); arg(fk, 2, (cl_long)1); arg(fk, 3, (cl_long)s.cols);
        arg(fk, 4, (cl_long)lanes2); arg(fk, 5, (cl_long)0); arg(fk, 6, 0.0f); arg(fk, 7, dpart); arg(fk, 8, dres);
        arg(fk, 9, (cl_long)1);
        ls.push_back({fk, ceil_div(s.cols, 256 / lanes2) * 256, 256});
      }
      const double us = time_us(ls);
      // Determinism of the last-group finish: the same bits as the first run after 21 more.
      report(("col " + v.name + " (parts " + std::to_string(parts) + ")").c_str(), s, us, columns_ok(s, sum, mag));
      clReleaseKernel(k);
      clReleaseProgram(p);
    }
  }

  // ---- 2-D full sums
  for (const shape& s : shapes) {
    if (std::getenv("PROBE_TRACED_ONLY")) break;
    const std::size_t n = s.rows * s.cols;
    double sum = 0, mag = 0;
    for (std::size_t i = 0; i < n; ++i) sum += a[i], mag += std::fabs(a[i]);
    auto ok = [&] {
      const float got = read(dres, 1)[0];
      if (std::fabs(got - sum) <= 2e-5 * mag) return true;
      std::printf("  full sum %g, expected %g\n", got, sum);
      return false;
    };
    for (const traced_variant& tv : traced_variants) {
      if (tv.options.find("LANES") != std::string::npos || tv.options.find("reqd") != std::string::npos) continue;
      // full_reduction_layout: groups = clamp(n / 256, 1, 8 units), items interleaved.
      const std::size_t groups = std::clamp<std::size_t>(ceil_div(n, 256), 1, target), step = groups * 256;
      cl_kernel k = tv.full;
      arg(k, 0, (cl_long)n); arg(k, 1, (cl_long)s.cols); arg(k, 2, (cl_long)(step / s.cols));
      arg(k, 3, (cl_long)(step % s.cols)); arg(k, 4, (cl_long)1); arg(k, 5, (cl_long)n); arg(k, 6, (cl_long)step);
      arg(k, 7, 0.0f); arg(k, 8, da); arg(k, 9, (cl_long)s.cols); arg(k, 10, dpart);
      {
        // The divider of cols: l = ceil(log2 cols), magic = floor(2^64 (2^l - cols) / cols) + 1.
        const unsigned l = std::bit_width(s.cols - 1);
        const unsigned __int128 m = ((((unsigned __int128)1) << 64) * ((((unsigned __int128)1) << l) - s.cols)) / s.cols + 1;
        arg(k, 11, (cl_ulong)m);
        arg(k, 12, (cl_uint)(l > 0 ? l - 1 : 0));
        const std::uint64_t m32 = ((std::uint64_t(1) << 32) * ((std::uint64_t(1) << l) - s.cols)) / s.cols + 1;
        arg(k, 13, (cl_uint)m32);
        arg(k, 14, (cl_uint)std::min(l, 1u));
        arg(k, 15, (cl_uint)(l > 0 ? l - 1 : 0));
      }
      cl_kernel fk = traced_final_scalar;
      arg(fk, 0, (cl_long)groups); arg(fk, 1, 0.0f); arg(fk, 2, dpart); arg(fk, 3, dres);
      const double us = time_us({{k, groups * 256, 256}, {fk, 256, 256}});
      report(("full " + tv.name + ", both passes").c_str(), s, us, ok());
    }
    struct full_variant { std::string name; int full, acc, last; std::size_t groups_per_unit; };
    const std::vector<full_variant> fvs = {
        {"32-bit division acc4", 2, 4, 0, 8},      {"reciprocal acc4", 3, 4, 0, 8},
        {"reciprocal acc8", 3, 8, 0, 8},           {"reciprocal acc8 g16", 3, 8, 0, 16},
        {"reciprocal acc4 g16", 3, 4, 0, 16},      {"contiguous acc4 (ceiling)", 4, 4, 0, 8},
        {"contiguous acc8 (ceiling)", 4, 8, 0, 8},        {"reciprocal acc4 last", 3, 4, 1, 8},
    };
    for (const full_variant& v : fvs) {
      cl_program p = build(std::string(fence == "2" ? "-cl-std=CL3.0" : "-cl-std=CL1.2") + " -DFULL=" + std::to_string(v.full) + " -DACC=" + std::to_string(v.acc) +
                           " -DLAST=" + (v.last ? fence : "0"));
      if (!p) continue;
      cl_kernel k = clCreateKernel(p, "full_pass", &e);
      CHECK(e);
      const std::size_t groups = std::clamp<std::size_t>(ceil_div(n, 256), 1, v.groups_per_unit * units);
      const std::size_t step = groups * 256;
      // mul_hi(x, magic) >> shift == x / cols for x < 2^31 (magic = ceil(2^(31 + l) / cols), l = ceil(log2 cols)).
      const unsigned l = std::bit_width(s.cols - 1);
      const cl_uint magic = s.cols > 1 ? (cl_uint)(((std::uint64_t(1) << (31 + l)) + s.cols - 1) / s.cols) : 0;
      const cl_uint shift = l > 0 ? l - 1 : 0;
      arg(k, 0, (cl_long)n); arg(k, 1, (cl_long)s.cols); arg(k, 2, (cl_long)step); arg(k, 3, magic); arg(k, 4, shift);
      arg(k, 5, da); arg(k, 6, (cl_long)s.cols); arg(k, 7, dpart); arg(k, 8, dres); arg(k, 9, dcount);
      std::vector<launch> ls{{k, groups * 256, 256}};
      if (!v.last) {
        cl_kernel fk = traced_final_scalar;
        arg(fk, 0, (cl_long)groups); arg(fk, 1, 0.0f); arg(fk, 2, dpart); arg(fk, 3, dres);
        ls.push_back({fk, 256, 256});
      }
      const double us = time_us(ls);
      report(("full " + v.name).c_str(), s, us, ok());
      clReleaseKernel(k);
      clReleaseProgram(p);
    }
  }
  return 0;
}
