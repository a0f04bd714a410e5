// Does a 1-read-1-write map reach the copy's bandwidth with 16-byte vector accesses where the
// kernel generator's four scalar items a launch's width apart do not? Hand-written kernels over
// 2^26 floats (a column-major 8192 x 8192 matrix), each timed by the device against
// clEnqueueCopyBuffer in the same process. Build and run on the GPU machine: probe.sh.
#include <CL/opencl.hpp>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

static const char* source = R"CL(
kernel void scalar1(global const float* a, global float* b) {
  const size_t g = get_global_id(0);
  b[g] = a[g];
}
kernel void scalar4(global const float* a, global float* b, int step) {
  const size_t g = get_global_id(0);
  const float x0 = a[g], x1 = a[g + step], x2 = a[g + 2 * (size_t)step], x3 = a[g + 3 * (size_t)step];
  b[g] = x0; b[g + step] = x1; b[g + 2 * (size_t)step] = x2; b[g + 3 * (size_t)step] = x3;
}
kernel void vload4_1(global const float* a, global float* b) {
  const size_t g = get_global_id(0);
  vstore4(vload4(g, a), g, b);
}
kernel void cast4_1(global const float* a, global float* b) {
  const size_t g = get_global_id(0);
  ((global float4*)b)[g] = ((global const float4*)a)[g];
}
kernel void cast4_4(global const float* a, global float* b, int step) {
  const size_t g = get_global_id(0);
  global const float4* a4 = (global const float4*)a;
  global float4* b4 = (global float4*)b;
  const float4 x0 = a4[g], x1 = a4[g + step], x2 = a4[g + 2 * (size_t)step], x3 = a4[g + 3 * (size_t)step];
  b4[g] = x0; b4[g + step] = x1; b4[g + 2 * (size_t)step] = x2; b4[g + 3 * (size_t)step] = x3;
}
// exp(a - m[i]) / s[i] on a rows x cols column-major matrix, the kernel generator's layout:
// work-item (i, j) takes columns j, j + step, j + 2 step, j + 3 step.
kernel void softmap_scalar4(global const float* a, global float* b, global const float* m, global const float* s,
                            int rows, int step) {
  const int i = get_global_id(0), j = get_global_id(1);
  const float mi = m[i], si = s[i];
  float x[4];
  for (int u = 0; u < 4; ++u) x[u] = a[i + (long)(j + u * step) * rows];
  for (int u = 0; u < 4; ++u) b[i + (long)(j + u * step) * rows] = exp(x[u] - mi) / si;
}
// The same with four rows per work-item as one float4.
kernel void softmap_cast4(global const float* a, global float* b, global const float* m, global const float* s,
                          int rows, int step) {
  const int i = 4 * get_global_id(0), j = get_global_id(1);
  const float4 mi = *(global const float4*)(m + i), si = *(global const float4*)(s + i);
  float4 x[4];
  for (int u = 0; u < 4; ++u) x[u] = *(global const float4*)(a + i + (long)(j + u * step) * rows);
  for (int u = 0; u < 4; ++u) *(global float4*)(b + i + (long)(j + u * step) * rows) = exp(x[u] - mi) / si;
}
kernel void softmap_cast4_1(global const float* a, global float* b, global const float* m, global const float* s,
                          int rows) {
  const int i = 4 * get_global_id(0), j = get_global_id(1);
  const float4 mi = *(global const float4*)(m + i), si = *(global const float4*)(s + i);
  const float4 x = *(global const float4*)(a + i + (long)j * rows);
  *(global float4*)(b + i + (long)j * rows) = exp(x - mi) / si;
}
// Four consecutive rows per work-item as four scalar loads, clamped and guarded as the kernel
// generator writes them: does the compiler merge them, or do they coalesce as well unmerged?
kernel void softmap_rows4(global const float* a, global float* b, global const float* m, global const float* s,
                          int rows) {
  const int i0 = 4 * get_global_id(0), j = get_global_id(1);
  float x[4], mi[4], si[4];
  for (int u = 0; u < 4; ++u) {
    const int i = min(i0 + u, rows - 1);
    x[u] = a[i + (long)j * rows];
    mi[u] = m[i];
    si[u] = s[i];
  }
  for (int u = 0; u < 4; ++u)
    if (i0 + u < rows) b[i0 + u + (long)j * rows] = exp(x[u] - mi[u]) / si[u];
}
kernel void softmap_rows8(global const float* a, global float* b, global const float* m, global const float* s,
                          int rows) {
  const int i0 = 8 * get_global_id(0), j = get_global_id(1);
  float x[8], mi[8], si[8];
  for (int u = 0; u < 8; ++u) {
    const int i = min(i0 + u, rows - 1);
    x[u] = a[i + (long)j * rows];
    mi[u] = m[i];
    si[u] = s[i];
  }
  for (int u = 0; u < 8; ++u)
    if (i0 + u < rows) b[i0 + u + (long)j * rows] = exp(x[u] - mi[u]) / si[u];
}
// Four consecutive rows as one vload4 where the whole group of four is inside.
kernel void softmap_vload4(global const float* a, global float* b, global const float* m, global const float* s,
                           int rows) {
  const int i0 = 4 * get_global_id(0), j = get_global_id(1);
  if (i0 + 4 <= rows) {
    const float4 x = vload4(0, a + i0 + (long)j * rows);
    vstore4(exp(x - vload4(0, m + i0)) / vload4(0, s + i0), 0, b + i0 + (long)j * rows);
  }
}
)CL";

int main() {
  cl::Device device = cl::Device::getDefault();
  cl::Context ctx(device);
  cl::CommandQueue q(ctx, device, CL_QUEUE_PROFILING_ENABLE);
  cl::Program program(ctx, source);
  try {
    program.build("-cl-std=CL1.2");
  } catch (...) {
    std::printf("%s\n", program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device).c_str());
    return 1;
  }
  const int rows = 8192, cols = 8192;
  const size_t n = size_t(rows) * cols, bytes = n * sizeof(float);
  std::vector<float> host(n);
  for (size_t k = 0; k < n; ++k) host[k] = float((k * 2654435761u % 1000) / 100.0 - 5);
  cl::Buffer a(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, host.data());
  cl::Buffer b(ctx, CL_MEM_READ_WRITE, bytes);
  std::vector<float> mv(rows, 5.0f), sv(rows, 3.0f);
  cl::Buffer m(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, size_t(rows) * 4, mv.data());
  cl::Buffer s(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, size_t(rows) * 4, sv.data());
  const auto median = [&](const std::function<cl::Event()>& run) {
    run().wait();
    std::vector<double> t;
    for (int r = 0; r < 21; ++r) {
      cl::Event e = run();
      e.wait();
      t.push_back((e.getProfilingInfo<CL_PROFILING_COMMAND_END>() - e.getProfilingInfo<CL_PROFILING_COMMAND_START>()) * 1e-3);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  };
  const double copy = median([&] {
    cl::Event e;
    q.enqueueCopyBuffer(a, b, 0, 0, bytes, nullptr, &e);
    return e;
  });
  std::printf("%s\ncopy %.1f us (%.0f GB/s read + written)\n", device.getInfo<CL_DEVICE_NAME>().c_str(), copy,
              2 * bytes / copy * 1e-3);
  const auto kernel = [&](const char* name, cl::NDRange global, cl::NDRange local, auto... args) {
    cl::Kernel k(program, name);
    int index = 0;
    ((k.setArg(index++, args)), ...);
    const double us = median([&] {
      cl::Event e;
      q.enqueueNDRangeKernel(k, cl::NullRange, global, local, nullptr, &e);
      return e;
    });
    std::printf("%-18s local %4zu  %8.1f us  copy_ratio %.3f\n", name, local[0] * (local.dimensions() > 1 ? local[1] : 1),
                us, copy / us);
  };
  for (size_t wg : {128, 256, 512}) {
    kernel("scalar1", cl::NDRange(n), cl::NDRange(wg), a, b);
    kernel("scalar4", cl::NDRange(n / 4), cl::NDRange(wg), a, b, int(n / 4));
    kernel("vload4_1", cl::NDRange(n / 4), cl::NDRange(wg), a, b);
    kernel("cast4_1", cl::NDRange(n / 4), cl::NDRange(wg), a, b);
    kernel("cast4_4", cl::NDRange(n / 16), cl::NDRange(wg), a, b, int(n / 16));
    kernel("softmap_scalar4", cl::NDRange(rows, cols / 4), cl::NDRange(wg, 1), a, b, m, s, rows, cols / 4);
    kernel("softmap_cast4", cl::NDRange(rows / 4, cols / 4), cl::NDRange(std::min<size_t>(wg, rows / 4), 1), a, b, m, s,
           rows, cols / 4);
    kernel("softmap_cast4_1", cl::NDRange(rows / 4, cols), cl::NDRange(std::min<size_t>(wg, rows / 4), 1), a, b, m, s,
           rows);
    kernel("softmap_rows4", cl::NDRange(rows / 4, cols), cl::NDRange(std::min<size_t>(wg, rows / 4), 1), a, b, m, s, rows);
    kernel("softmap_rows8", cl::NDRange(rows / 8, cols), cl::NDRange(std::min<size_t>(wg, rows / 8), 1), a, b, m, s, rows);
    kernel("softmap_vload4", cl::NDRange(rows / 4, cols), cl::NDRange(std::min<size_t>(wg, rows / 4), 1), a, b, m, s, rows);
  }
}
