// Row sums of a column-major matrix on a CPU OpenCL device: each work-item R consecutive rows
// (Kahan), STEP columns a step (rows.cl), the columns split into parts, against clEnqueueCopyBuffer of the same 2^24 floats
// (copy_ratio: bytes read / time against bytes read + written by the copy / its time). What set
// blocked_rows_per_item (reduction_plan.hpp). Run from this folder:
//   g++ -O2 -std=c++17 probe.cpp -lOpenCL -o /tmp/row_block_probe && /tmp/row_block_probe
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
int main() {
  std::ifstream f("rows.cl"); std::stringstream ss; ss << f.rdbuf(); std::string src = ss.str();
  cl_platform_id p; clGetPlatformIDs(1, &p, nullptr); cl_device_id d; clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, nullptr);
  cl_int e; cl_context ctx = clCreateContext(nullptr, 1, &d, nullptr, nullptr, &e);
  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  cl_command_queue q = clCreateCommandQueueWithProperties(ctx, d, props, &e);
  const size_t n = size_t(1) << 24, bytes = n * 4;
  std::vector<float> h(n); for (size_t i = 0; i < n; ++i) h[i] = (i % 97) * 0.01f;
  cl_mem a = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, bytes, h.data(), &e);
  cl_mem b = clCreateBuffer(ctx, 0, bytes, nullptr, &e);
  auto time = [&](auto enqueue) { std::vector<double> t; for (int r = 0; r < 7; ++r) { cl_event ev = enqueue(); clWaitForEvents(1, &ev);
    cl_ulong s, x; clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, 8, &s, nullptr); clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, 8, &x, nullptr);
    t.push_back((x - s) * 1e-6); clReleaseEvent(ev);} std::sort(t.begin(), t.end()); return t[3]; };
  const double copy = time([&] { cl_event ev; clEnqueueCopyBuffer(q, a, b, 0, 0, bytes, 0, nullptr, &ev); return ev; });
  std::printf("copy %.2f ms\n", copy);
  for (auto [rows, cols] : std::vector<std::pair<int,int>>{{4096, 4096}, {256, 65536}, {65536, 256}})
    for (int R : {256, 1024, 4096})
      for (int step : {1, 2, 4}) {
        const int kahan = 1;
        if (rows < R) continue;
        std::string opt = "-DR=" + std::to_string(R) + " -DKAHAN=1 -DSTEP=" + std::to_string(step);
        const char* s = src.c_str(); cl_program pr = clCreateProgramWithSource(ctx, 1, &s, nullptr, &e);
        if (clBuildProgram(pr, 1, &d, opt.c_str(), nullptr, nullptr) != CL_SUCCESS) { std::printf("build failed\n"); continue; }
        cl_kernel k = clCreateKernel(pr, "row_sums", &e);
        clSetKernelArg(k, 0, sizeof a, &a); clSetKernelArg(k, 1, sizeof b, &b); clSetKernelArg(k, 2, 4, &rows); clSetKernelArg(k, 3, 4, &cols);
        for (size_t parts : {1, 2, 4, 8}) {
        size_t items = rows / R; size_t global[2] = {items, parts}; size_t local[2] = {1, 1};  // one item per group: the cores take groups
        const double t = time([&] { cl_event ev; clEnqueueNDRangeKernel(q, k, 2, nullptr, global, local, 0, nullptr, &ev); return ev; });
        // copy_ratio: bytes read / t against (read + written) / copy
        std::printf("%6dx%-6d R=%-4d parts=%zu kahan=%d step=%d  %.2f ms  ratio %.2f\n", rows, cols, R, parts, kahan, step, t, (bytes / t) / (2.0 * bytes / copy));
        }
        clReleaseKernel(k); clReleaseProgram(pr);
      }
}
