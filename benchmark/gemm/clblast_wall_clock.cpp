// An independent check of the tuner's CLBlast row (issue 11's acceptance): CLBlastSgemm timed by
// a wall clock to clFinish with nothing of tessera's in between (raw OpenCL, its own buffers).
// Each sample runs calls back to back until a millisecond has passed, then clFinish, as every
// row of tune_* is timed; a sample of one call would add clFinish's latency to short calls.
//   clblast_wall_clock M N K [SAMPLES]      column-major NN, alpha 1, beta 0, first GPU
// prints: clblast_wall_clock MxNxK: median_ms=... min_ms=... max_ms=... gflops=...
#include <CL/cl.h>
#include <clblast_c.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

void check(cl_int status, const char* what) {
  if (status != CL_SUCCESS) {
    std::fprintf(stderr, "clblast_wall_clock: %s failed with %d\n", what, status);
    std::exit(1);
  }
}

cl_device_id first_device() {
  cl_uint platforms = 0;
  check(clGetPlatformIDs(0, nullptr, &platforms), "clGetPlatformIDs");
  std::vector<cl_platform_id> ids(platforms);
  check(clGetPlatformIDs(platforms, ids.data(), nullptr), "clGetPlatformIDs");
  for (const cl_device_type type : {cl_device_type(CL_DEVICE_TYPE_GPU), cl_device_type(CL_DEVICE_TYPE_ALL)})
    for (auto platform : ids) {
      cl_device_id device = nullptr;
      if (clGetDeviceIDs(platform, type, 1, &device, nullptr) == CL_SUCCESS) return device;
    }
  std::fprintf(stderr, "clblast_wall_clock: no OpenCL device\n");
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: clblast_wall_clock M N K [SAMPLES]\n");
    return 2;
  }
  const std::size_t m = std::strtoull(argv[1], nullptr, 10), n = std::strtoull(argv[2], nullptr, 10),
                    k = std::strtoull(argv[3], nullptr, 10);
  const int samples = argc > 4 ? std::atoi(argv[4]) : 9;
  if (m == 0 || n == 0 || k == 0 || samples < 1) {
    std::fprintf(stderr, "clblast_wall_clock: sizes and samples must be positive\n");
    return 2;
  }
  cl_int status = CL_SUCCESS;
  cl_device_id device = first_device();
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
  check(status, "clCreateContext");
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, nullptr, &status);
  check(status, "clCreateCommandQueueWithProperties");
  const auto buffer = [&](std::size_t elements) {
    cl_mem b = clCreateBuffer(context, CL_MEM_READ_WRITE, elements * sizeof(float), nullptr, &status);
    check(status, "clCreateBuffer");
    const float value = 0.5f;
    check(clEnqueueFillBuffer(queue, b, &value, sizeof value, 0, elements * sizeof(float), 0, nullptr, nullptr),
          "clEnqueueFillBuffer");
    return b;
  };
  cl_mem a = buffer(m * k), b = buffer(k * n), c = buffer(m * n);
  const auto call = [&] {
    const CLBlastStatusCode code = CLBlastSgemm(CLBlastLayoutColMajor, CLBlastTransposeNo, CLBlastTransposeNo, m, n, k,
                                                1.f, a, 0, m, b, 0, k, 0.f, c, 0, m, &queue, nullptr);
    if (code != CLBlastSuccess) {
      std::fprintf(stderr, "clblast_wall_clock: CLBlastSgemm returned %d\n", int(code));
      std::exit(1);
    }
  };
  using clock_type = std::chrono::steady_clock;
  const auto seconds_of = [&](int calls) {
    check(clFinish(queue), "clFinish");
    const auto start = clock_type::now();
    for (int i = 0; i < calls; ++i) call();
    check(clFinish(queue), "clFinish");
    return std::chrono::duration<double>(clock_type::now() - start).count() / calls;
  };
  seconds_of(1);  // CLBlast compiles its kernels
  const double once = seconds_of(1);
  const int calls = std::clamp(int(1e-3 / std::max(once, 1e-9)) + 1, 1, 1000);
  std::vector<double> times;
  for (int s = 0; s < samples; ++s) times.push_back(seconds_of(calls));
  std::sort(times.begin(), times.end());
  const double median = times[times.size() / 2];
  std::printf("clblast_wall_clock %zux%zux%zu: median_ms=%.6f min_ms=%.6f max_ms=%.6f gflops=%.1f calls=%d\n", m, n, k,
              median * 1e3, times.front() * 1e3, times.back() * 1e3, 2.0 * double(m) * double(n) * double(k) / median * 1e-9,
              calls);
  clReleaseMemObject(a), clReleaseMemObject(b), clReleaseMemObject(c);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  return 0;
}
