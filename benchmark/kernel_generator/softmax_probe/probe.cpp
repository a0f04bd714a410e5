// Softmax probe: hand-written OpenCL variants of a softmax of 2^26 floats (column-major), each
// checked against the host and timed by device profiling against clEnqueueCopyBuffer of the same
// bytes, to find what limits the kernel generator's fused softmax. Build and run: run.sh.
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#define CHECK(x)                                                                   \
  do {                                                                             \
    cl_int e_ = (x);                                                               \
    if (e_ != CL_SUCCESS) { std::fprintf(stderr, "%s: %d\n", #x, e_); std::exit(1); } \
  } while (0)

static cl_context ctx;
static cl_command_queue queue;
static cl_device_id dev;
static std::string source;

static double event_us(cl_event e) {
  cl_ulong s, t;
  CHECK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof s, &s, nullptr));
  CHECK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof t, &t, nullptr));
  return (t - s) * 1e-3;
}

template <class Enqueue>
static double median_us(Enqueue enqueue, int reps = 15) {
  std::vector<double> t;
  enqueue();  // warm
  CHECK(clFinish(queue));
  for (int r = 0; r < reps; ++r) t.push_back(enqueue());
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

static cl_program build(const std::string& options) {
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
  return p;
}

struct shape { int rows, cols; bool by_rows; };

static std::vector<float> host_softmax(const std::vector<float>& a, shape s) {
  std::vector<float> out(a.size());
  const int lines = s.by_rows ? s.rows : s.cols, len = s.by_rows ? s.cols : s.rows;
  auto at = [&](int line, int k) { return s.by_rows ? line + (size_t)k * s.rows : (size_t)line * s.rows + k; };
  for (int l = 0; l < lines; ++l) {
    double m = -INFINITY, sum = 0;
    for (int k = 0; k < len; ++k) m = std::max(m, (double)a[at(l, k)]);
    for (int k = 0; k < len; ++k) sum += std::exp(a[at(l, k)] - m);
    for (int k = 0; k < len; ++k) out[at(l, k)] = (float)(std::exp(a[at(l, k)] - m) / sum);
  }
  return out;
}

int main(int argc, char** argv) {
  std::ifstream f(argc > 1 ? argv[1] : "softmax.cl");
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
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, nullptr);
  std::printf("device: %s\n", name);
  ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &e);
  CHECK(e);
  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  queue = clCreateCommandQueueWithProperties(ctx, dev, props, &e);
  CHECK(e);

  const size_t n = size_t(1) << 26, bytes = n * sizeof(float);
  std::vector<float> a(n);
  std::mt19937 rng(7);
  std::normal_distribution<float> dist(0.f, 3.f);
  for (auto& x : a) x = dist(rng);
  cl_mem da = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, a.data(), &e);
  CHECK(e);
  cl_mem dout = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, nullptr, &e);
  CHECK(e);
  cl_mem dms = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 2 * sizeof(float) * 65536, nullptr, &e);
  CHECK(e);
  const double copy_us = median_us([&] {
    cl_event ev;
    CHECK(clEnqueueCopyBuffer(queue, da, dout, 0, 0, bytes, 0, nullptr, &ev));
    CHECK(clWaitForEvents(1, &ev));
    const double t = event_us(ev);
    clReleaseEvent(ev);
    return t;
  });
  std::printf("copy %.1f us %.0f GB/s\n", copy_us, 2 * bytes / copy_us * 1e-3);

  // Variants: shape, kernel kind, macros. "held": softmax_held; "two": row_max_sum + apply_max_sum.
  // "raw": a generated kernel from a file (macros names it), launched over global g0 x g1.
  struct variant { shape s; std::string kind; int l0, l1; std::string macros; size_t g0 = 0, g1 = 0; };
  // PROBE_SCALE=f divides the number of rows (columns) softmaxed: a quick check on a CPU.
  const int scale = std::getenv("PROBE_SCALE") ? std::atoi(std::getenv("PROBE_SCALE")) : 1;
  const shape tall{65536 / scale, 1024, true}, square_rows{8192 / scale, 8192, true}, square_cols{8192, 8192 / scale, false},
      wide_cols{1024, 65536 / scale, false};
  const std::string gen = " -DTREE=0 -DKAHAN=1 -DRECIP=0 -DFASTEXP=0";  // as generated today
  const std::string opt = " -DTREE=1 -DKAHAN=1 -DRECIP=1 -DFASTEXP=0";
  const std::string dir = argc > 2 ? argv[2] : ".";
  std::vector<variant> vs = {
      {tall, "raw", 16, 32, dir + "/generated/gen_new_rows.cl", 65536, 32},
      {square_cols, "raw", 512, 1, dir + "/generated/gen_new_cols.cl", 512, 8192},
      {tall, "raw", 8, 32, dir + "/generated/gen_g_rows_held256.cl", 65536, 32},
      {tall, "raw", 8, 32, dir + "/generated/gen_rows_held256_const.cl", 65536, 32},
      {tall, "raw", 8, 32, dir + "/generated/gen_rows_held256_const_noclamp.cl", 65536, 32},
      {tall, "raw", 8, 32, dir + "/generated/gen_rows_held256_const_noclamp_nostorecheck.cl", 65536, 32},
      {tall, "raw", 8, 32, dir + "/generated/gen_rows_held256_bare.cl", 65536, 32},
      {tall, "raw", 8, 128, dir + "/generated/gen_g_rows_held1024.cl", 65536, 128},
      {square_cols, "raw", 1024, 1, dir + "/generated/gen_g_cols_reread.cl", 1024, 8192},
      {square_cols, "raw", 256, 1, dir + "/generated/gen_g_cols_held256.cl", 256, 8192},
      {square_cols, "raw", 1024, 1, dir + "/generated/gen_g_cols_held1024.cl", 1024, 8192},
      {square_cols, "raw", 1024, 1, dir + "/generated/gen_cols_held1024_const.cl", 1024, 8192},
      {tall, "held", 8, 32, gen},
      {tall, "held", 8, 32, gen + " -DCOPY=1"},
      {tall, "held", 8, 32, " -DTREE=1 -DKAHAN=1 -DRECIP=0 -DFASTEXP=0"},
      {tall, "held", 8, 32, " -DTREE=0 -DKAHAN=1 -DRECIP=1 -DFASTEXP=0"},
      {tall, "held", 8, 32, " -DTREE=0 -DKAHAN=1 -DRECIP=0 -DFASTEXP=1"},
      {tall, "held", 8, 32, " -DTREE=0 -DKAHAN=0 -DRECIP=0 -DFASTEXP=0"},
      {tall, "held", 8, 32, opt},
      {tall, "held", 8, 32, opt + " -DKAHAN=0 -DFASTEXP=1"},
      {tall, "held", 16, 16, gen + " -DCOPY=1"},
      {tall, "held", 16, 16, opt},
      {tall, "held", 32, 8, gen + " -DCOPY=1"},
      {tall, "held", 32, 8, opt},
      {tall, "held", 16, 32, opt},
      {tall, "held", 32, 32, opt},
      {tall, "held", 32, 32, gen + " -DCOPY=1"},
      {tall, "two", 32, 8, opt},
      {tall, "two", 32, 32, opt},
      {square_rows, "two", 32, 8, opt},
      {square_rows, "two", 32, 32, opt},
      {square_rows, "two", 16, 64, opt},
      {square_rows, "two", 8, 128, opt},
      {square_rows, "two", 32, 32, opt + " -DFASTEXP=1"},
      {square_cols, "held", 1, 1024, gen},
      {square_cols, "held", 1, 1024, gen + " -DCOPY=1"},
      {square_cols, "held", 1, 1024, opt + " -DTREE=2"},
      {square_cols, "held", 1, 512, gen},
      {square_cols, "held", 1, 512, opt + " -DTREE=2"},
      {square_cols, "held", 1, 256, gen},
      {square_cols, "held", 1, 256, gen + " -DCOPY=1"},
      {square_cols, "held", 1, 256, opt + " -DTREE=2"},
      {wide_cols, "held", 1, 256, gen},
      {wide_cols, "held", 1, 256, opt + " -DTREE=2"},
      {wide_cols, "held", 1, 128, opt + " -DTREE=2"},
  };
  std::map<std::string, std::vector<float>> references;
  for (const variant& v : vs) {
    const shape s = v.s;
    const size_t n = (size_t)s.rows * s.cols, bytes = n * sizeof(float);
    const int len = s.by_rows ? s.cols : s.rows;
    const int lines = s.by_rows ? s.rows : s.cols;
    std::string options = "-cl-std=CL3.0 -DL0=" + std::to_string(v.l0) + " -DL1=" + std::to_string(v.l1) +
                          " -DHELD=" + std::to_string(std::max(1, len / v.l1)) +
                          " -DSTRIDE_ROWS=" + (s.by_rows ? "1" : "0") + v.macros;
    if (v.macros.find("COPY") == std::string::npos) options += " -DCOPY=0";
    cl_program p;
    if (v.kind == "raw") {
      std::ifstream rf(v.macros);
      std::stringstream rs;
      rs << rf.rdbuf();
      const std::string saved = source;
      source = rs.str();
      p = build("-cl-std=CL3.0");
      source = saved;
    } else {
      p = build(options);
    }
    if (!p) continue;
    std::vector<cl_kernel> ks;
    if (v.kind == "raw") {
      ks.push_back(clCreateKernel(p, "evaluate", &e));
      CHECK(e);
      const int view = 3;  // matrix_view::entire
      const int length = len;
      CHECK(clSetKernelArg(ks[0], 0, sizeof dout, &dout));
      CHECK(clSetKernelArg(ks[0], 1, sizeof(int), &s.rows));
      CHECK(clSetKernelArg(ks[0], 2, sizeof(int), &view));
      CHECK(clSetKernelArg(ks[0], 3, sizeof da, &da));
      CHECK(clSetKernelArg(ks[0], 4, sizeof(int), &s.rows));
      CHECK(clSetKernelArg(ks[0], 5, sizeof(int), &view));
      CHECK(clSetKernelArg(ks[0], 6, sizeof(int), &length));
      CHECK(clSetKernelArg(ks[0], 7, sizeof(int), &length));
      CHECK(clSetKernelArg(ks[0], 8, sizeof(int), &s.rows));
      CHECK(clSetKernelArg(ks[0], 9, sizeof(int), &s.cols));
      CHECK(clSetKernelArg(ks[0], 10, sizeof(float) * v.l0 * v.l1, nullptr));
      CHECK(clSetKernelArg(ks[0], 11, sizeof(float) * v.l0 * v.l1, nullptr));
    } else if (v.kind == "held") {
      ks.push_back(clCreateKernel(p, "softmax_held", &e));
      CHECK(e);
      CHECK(clSetKernelArg(ks[0], 0, sizeof da, &da));
      CHECK(clSetKernelArg(ks[0], 1, sizeof dout, &dout));
    } else {
      ks.push_back(clCreateKernel(p, "row_max_sum", &e));
      CHECK(e);
      ks.push_back(clCreateKernel(p, "apply_max_sum", &e));
      CHECK(e);
      CHECK(clSetKernelArg(ks[0], 0, sizeof da, &da));
      CHECK(clSetKernelArg(ks[0], 1, sizeof dms, &dms));
      CHECK(clSetKernelArg(ks[1], 0, sizeof da, &da));
      CHECK(clSetKernelArg(ks[1], 1, sizeof dms, &dms));
      CHECK(clSetKernelArg(ks[1], 2, sizeof dout, &dout));
    }
    for (size_t k = 0; k < ks.size() && v.kind != "raw"; ++k) {
      const int base = v.kind == "held" || k == 0 ? 2 : 3;
      CHECK(clSetKernelArg(ks[k], base, sizeof(int), &s.rows));
      CHECK(clSetKernelArg(ks[k], base + 1, sizeof(int), &s.cols));
    }
    auto run = [&] {
      double t = 0;
      for (size_t k = 0; k < ks.size(); ++k) {
        size_t global[2], local[2] = {(size_t)v.l0, (size_t)v.l1};
        if (v.kind == "raw") {
          global[0] = s.by_rows ? (size_t)lines : v.g0;
          global[1] = s.by_rows ? v.g1 : (size_t)lines;
        } else if (v.kind == "held" || k == 0) {
          global[0] = (size_t)lines;
          global[1] = (size_t)v.l1;
        } else {
          global[0] = (size_t)s.rows;
          global[1] = (size_t)s.cols / 4;
          local[0] = 64;
          local[1] = 4;
        }
        cl_event ev;
        CHECK(clEnqueueNDRangeKernel(queue, ks[k], 2, nullptr, global, local, 0, nullptr, &ev));
        CHECK(clWaitForEvents(1, &ev));
        t += event_us(ev);
        clReleaseEvent(ev);
      }
      return t;
    };
    float fill = NAN;
    CHECK(clEnqueueFillBuffer(queue, dout, &fill, sizeof fill, 0, bytes, 0, nullptr, nullptr));
    run();
    std::vector<float> got(n);
    CHECK(clEnqueueReadBuffer(queue, dout, CL_TRUE, 0, bytes, got.data(), 0, nullptr, nullptr));
    double err = 0;
    const bool copy = v.kind != "raw" && v.macros.find("COPY=1") != std::string::npos;
    const std::string key = std::to_string(s.rows) + "x" + std::to_string(s.cols) + (s.by_rows ? "r" : "c");
    if (!copy && !references.count(key)) references[key] = host_softmax(a, s);
    const std::vector<float>& ref = copy ? a : references[key];
    for (size_t x = 0; x < n; x += 7) {
      if (std::isnan(got[x])) { err = INFINITY; break; }
      const double d = std::fabs((double)got[x] - ref[x]) / std::max(1e-30, std::fabs((double)ref[x]));
      err = std::max(err, d);
    }
    size_t wg = 0;
    cl_ulong private_bytes = 0;
    clGetKernelWorkGroupInfo(ks[0], dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, nullptr);
    clGetKernelWorkGroupInfo(ks[0], dev, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof private_bytes, &private_bytes, nullptr);
    std::printf("  kernel work-group limit %zu, private memory %llu bytes\n", wg, (unsigned long long)private_bytes);
    const double us = median_us(run);
    std::printf("%-7s %5dx%-5d %-4s L0=%-3d L1=%-4d %-44s %8.1f us %6.0f GB/s %.2fx copy  err %.1e\n",
                s.by_rows ? "rows" : "cols", s.rows, s.cols, v.kind.c_str(), v.l0, v.l1, v.macros.c_str(), us,
                2 * bytes / us * 1e-3, copy_us / us, err);
    std::fflush(stdout);
    for (cl_kernel k : ks) clReleaseKernel(k);
    clReleaseProgram(p);
  }
}
