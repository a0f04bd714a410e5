// Probe of a softmax by rows that rereads its rows from the L2 cache (reread.cl), 8192 x 8192
// column-major floats: each variant checked against the host, timed by device profiling (median
// of 21) against clEnqueueCopyBuffer of the same bytes; the ratio counts one read and one write.
// Build and run on the GPU machine: source .gpu/env.sh && benchmark/kernel_generator/softmax_probe/reread.sh
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <algorithm>
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

int main(int argc, char** argv) {
  std::ifstream f(argc > 1 ? argv[1] : "reread.cl");
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string source = ss.str();
  cl_platform_id plats[8];
  cl_uint np;
  CHECK(clGetPlatformIDs(8, plats, &np));
  cl_device_id dev;
  cl_int e = CL_DEVICE_NOT_FOUND;
  for (cl_uint p = 0; p < np && e != CL_SUCCESS; ++p) e = clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_GPU, 1, &dev, nullptr);
  if (e != CL_SUCCESS) CHECK(clGetDeviceIDs(plats[0], CL_DEVICE_TYPE_ALL, 1, &dev, nullptr));
  char name[256];
  cl_uint units;
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, nullptr);
  clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, nullptr);
  std::printf("device: %s, %u compute units\n", name, units);
  cl_context ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &e);
  CHECK(e);
  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  cl_command_queue queue = clCreateCommandQueueWithProperties(ctx, dev, props, &e);
  CHECK(e);
  const int scale = std::getenv("PROBE_SCALE") ? std::atoi(std::getenv("PROBE_SCALE")) : 1;
  const int rows = 8192 / scale, cols = 8192;
  const size_t n = size_t(rows) * cols, bytes = n * sizeof(float);
  std::vector<float> a(n);
  std::mt19937 rng(7);
  std::normal_distribution<float> dist(0.f, 3.f);
  for (auto& x : a) x = dist(rng);
  // Host reference for a sample of rows.
  auto reference_row = [&](int r) {
    double m = -INFINITY, s = 0;
    for (int c = 0; c < cols; ++c) m = std::max(m, (double)a[r + (size_t)c * rows]);
    for (int c = 0; c < cols; ++c) s += std::exp(a[r + (size_t)c * rows] - m);
    std::vector<double> out(cols);
    for (int c = 0; c < cols; ++c) out[c] = std::exp(a[r + (size_t)c * rows] - m) / s;
    return out;
  };
  cl_mem da = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, a.data(), &e);
  CHECK(e);
  cl_mem dout = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, nullptr, &e);
  CHECK(e);
  auto median = [&](auto enqueue) {
    std::vector<double> t;
    for (int r = 0; r < 22; ++r) {
      cl_event ev = enqueue();
      CHECK(clWaitForEvents(1, &ev));
      cl_ulong s, x;
      clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof s, &s, nullptr);
      clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof x, &x, nullptr);
      clReleaseEvent(ev);
      if (r > 0) t.push_back((x - s) * 1e-3);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  };
  const double copy_us = median([&] {
    cl_event ev;
    CHECK(clEnqueueCopyBuffer(queue, da, dout, 0, 0, bytes, 0, nullptr, &ev));
    return ev;
  });
  std::printf("copy %.1f us, %.0f GB/s\n", copy_us, 2.0 * bytes / copy_us * 1e-3);
  struct variant { int r, l1, groups_per_unit, online, unroll; };
  std::vector<variant> vs;
  for (int online : {1, 0})
    for (int r : {4, 8, 16, 32})
      for (int l1 : {32, 64, 128})
        for (int g : {1, 2, 4})
          if (r * l1 <= 1024 && r * l1 >= 128) vs.push_back({r, l1, g, online, 8});
  vs.push_back({8, 128, 1, 1, 4});
  vs.push_back({8, 128, 1, 1, 16});
  vs.push_back({16, 64, 1, 1, 16});
  for (const variant& v : vs) {
    const std::string options = "-cl-std=CL1.2 -DR=" + std::to_string(v.r) + " -DL1=" + std::to_string(v.l1) +
                                " -DONLINE=" + std::to_string(v.online) + " -DUNROLL=" + std::to_string(v.unroll);
    const char* s = source.c_str();
    cl_program p = clCreateProgramWithSource(ctx, 1, &s, nullptr, &e);
    CHECK(e);
    if (clBuildProgram(p, 1, &dev, options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
      size_t len;
      clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, nullptr, &len);
      std::string log(len, ' ');
      clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, len, log.data(), nullptr);
      std::printf("build failed (%s): %s\n", options.c_str(), log.c_str());
      continue;
    }
    cl_kernel k = clCreateKernel(p, "softmax_reread", &e);
    CHECK(e);
    CHECK(clSetKernelArg(k, 0, sizeof da, &da));
    CHECK(clSetKernelArg(k, 1, sizeof dout, &dout));
    CHECK(clSetKernelArg(k, 2, sizeof rows, &rows));
    CHECK(clSetKernelArg(k, 3, sizeof cols, &cols));
    const size_t local = size_t(v.r) * v.l1;
    const size_t blocks = (rows + v.r - 1) / v.r;
    const size_t groups = std::min<size_t>(blocks, size_t(v.groups_per_unit) * units);
    const size_t global = groups * local;
    const double us = median([&] {
      cl_event ev;
      CHECK(clEnqueueNDRangeKernel(queue, k, 1, nullptr, &global, &local, 0, nullptr, &ev));
      return ev;
    });
    std::vector<float> got(n);
    CHECK(clEnqueueReadBuffer(queue, dout, CL_TRUE, 0, bytes, got.data(), 0, nullptr, nullptr));
    double worst = 0;
    for (int r : {0, 1, rows / 3, rows - 1}) {
      const auto want = reference_row(r);
      for (int c = 0; c < cols; ++c)
        worst = std::max(worst, std::fabs(got[r + (size_t)c * rows] - want[c]) / (std::fabs(want[c]) + 1e-30));
    }
    std::printf("R %2d x L1 %3d, %d group(s) per unit (%4zu), %s, unroll %2d: %7.1f us  copy_ratio %.3f  worst rel err %.1e%s\n",
                v.r, v.l1, v.groups_per_unit, groups, v.online ? "online" : "3 pass", v.unroll, us, copy_us / us,
                worst, worst < 1e-4 ? "" : "  WRONG");
    std::fflush(stdout);
    clReleaseKernel(k);
    clReleaseProgram(p);
  }
  return 0;
}
