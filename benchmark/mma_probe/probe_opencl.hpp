#pragma once
// What probe.cpp and sweep.cpp share: the first GPU's context and profiling queue, a status
// check that ends the program naming the call, and the device's name. Plain OpenCL C API on
// purpose: the probes stand apart from tessera's runtime, so what they measure is the driver.
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <cstdio>
#include <cstdlib>
#include <string>

static cl_context ctx;
static cl_command_queue q;
static cl_device_id dev;

#define CHECK(x)                                                        \
  do {                                                                  \
    cl_int e_ = (x);                                                    \
    if (e_ != CL_SUCCESS) {                                             \
      std::printf("%s:%d: %s = %d\n", __FILE__, __LINE__, #x, (int)e_); \
      std::exit(1);                                                     \
    }                                                                   \
  } while (0)

/// Opens the first GPU of any platform into dev, ctx and q; false (after saying so) when none.
static bool open_first_gpu() {
  cl_platform_id plats[8];
  cl_uint np = 0;
  CHECK(clGetPlatformIDs(8, plats, &np));
  bool found = false;
  for (cl_uint i = 0; i < np && !found; ++i)
    if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_GPU, 1, &dev, nullptr) == CL_SUCCESS) found = true;
  if (!found) {
    std::printf("no GPU\n");
    return false;
  }
  cl_int e;
  ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &e);
  CHECK(e);
  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  q = clCreateCommandQueueWithProperties(ctx, dev, props, &e);
  CHECK(e);
  return true;
}

static std::string device_name() {
  char name[256];
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, nullptr);
  return name;
}
