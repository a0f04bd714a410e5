// Issue 13 exploration on NVIDIA OpenCL: what inline PTX the compiler accepts (ldmatrix, cp.async,
// mma f16/bf16), how much local memory a work-group may really take, the mma.sync peak, and a
// prototype TF32 GEMM (column-major NN, tile multiples only). See NOTES.md; run.sh runs it all.
// g++ -O2 -std=c++17 probe.cpp -lOpenCL -o probe && ./probe MODE|kernel.cl [variant]
#include "probe_opencl.hpp"

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

static cl_program build(const std::string& src, const std::string& opts, bool quiet = false) {
  const char* s = src.c_str();
  cl_int e;
  cl_program p = clCreateProgramWithSource(ctx, 1, &s, nullptr, &e);
  CHECK(e);
  e = clBuildProgram(p, 1, &dev, opts.c_str(), nullptr, nullptr);
  if (e != CL_SUCCESS) {
    size_t n = 0;
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
    std::string log(n, 0);
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
    if (!quiet) std::printf("  BUILD FAILED (%d): %.1500s\n", e, log.c_str());
    clReleaseProgram(p);
    return nullptr;
  }
  return p;
}

static cl_mem buf(size_t bytes, const void* host = nullptr) {
  cl_int e;
  cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0), bytes, (void*)host, &e);
  CHECK(e);
  return m;
}

// ---- probes -------------------------------------------------------------------------------
static const char* probe_ldmatrix = R"(
kernel void probe(global uint* out) {
  local ushort sh[8 * 8 * 4] __attribute__((aligned(16)));
  const int l = get_local_id(0);
  for (int i = l; i < 256; i += 32) sh[i] = (ushort)i;
  barrier(CLK_LOCAL_MEM_FENCE);
  // x4: lanes 8i..8i+7 give the row addresses of matrix i (8 rows of 8 b16)
  uint addr = (uint)(size_t)(sh + (l / 8) * 64 + (l % 8) * 8);
  uint r0, r1, r2, r3;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
  out[l * 4 + 0] = r0; out[l * 4 + 1] = r1; out[l * 4 + 2] = r2; out[l * 4 + 3] = r3;
}
)";

static const char* probe_pointer = R"(
kernel void probe(global ulong* out) {
  local uint sh[64] __attribute__((aligned(16)));
  local uint sh2[64] __attribute__((aligned(16)));
  sh[get_local_id(0)] = 1; sh2[get_local_id(0)] = 2;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[0] = (ulong)(size_t)sh; out[1] = (ulong)(size_t)sh2; out[2] = sh[0] + sh2[1];
  ulong gen;
  asm volatile("cvta.shared.u64 %0, %1;" : "=l"(gen) : "l"((ulong)(size_t)sh));
  out[3] = gen;
}
)";

static const char* probe_localmem = R"(
kernel void probe(global float* out) {
  local float big[LOCAL_FLOATS];
  const int l = get_local_id(0);
  for (int i = l; i < LOCAL_FLOATS; i += 256) big[i] = (float)i;
  barrier(CLK_LOCAL_MEM_FENCE);
  float s = 0;
  for (int i = l; i < LOCAL_FLOATS; i += 256) s += big[LOCAL_FLOATS - 1 - i];
  out[get_global_id(0)] = s;
}
)";

static const char* probe_cp_async = R"(
kernel void probe(global const uint* in, global uint* out) {
  local uint sh[128] __attribute__((aligned(16)));
  const int l = get_local_id(0);
  uint dst = (uint)(size_t)(sh + l * 4);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(in + l * 4));
  asm volatile("cp.async.commit_group;" ::);
  asm volatile("cp.async.wait_group 0;" ::);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int i = 0; i < 4; ++i) out[l * 4 + i] = sh[((l + 1) % 32) * 4 + i];
}
)";

// One m16n8k16 product of 16-bit values given as ushort bit patterns; C (16 x 8) as floats.
static const char* probe_mma16 = R"(
#if IS_BF16
#define MMA16 "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
#else
#define MMA16 "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
#endif
kernel void probe(global const ushort* A, global const ushort* B, global float* C) {
  // A 16 x 16 row-major, B 16 x 8 stored column-major (B[n * 16 + k]).
  const int l = get_local_id(0), g = l >> 2, t = l & 3;
  #define PACK(lo, hi) ((uint)(lo) | ((uint)(hi) << 16))
  uint a0 = PACK(A[g * 16 + 2 * t], A[g * 16 + 2 * t + 1]);
  uint a1 = PACK(A[(g + 8) * 16 + 2 * t], A[(g + 8) * 16 + 2 * t + 1]);
  uint a2 = PACK(A[g * 16 + 2 * t + 8], A[g * 16 + 2 * t + 9]);
  uint a3 = PACK(A[(g + 8) * 16 + 2 * t + 8], A[(g + 8) * 16 + 2 * t + 9]);
  uint b0 = PACK(B[g * 16 + 2 * t], B[g * 16 + 2 * t + 1]);
  uint b1 = PACK(B[g * 16 + 2 * t + 8], B[g * 16 + 2 * t + 9]);
  float c0 = 0, c1 = 0, c2 = 0, c3 = 0;
  asm volatile(MMA16 " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3)
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  C[g * 8 + 2 * t] = c0; C[g * 8 + 2 * t + 1] = c1; C[(g + 8) * 8 + 2 * t] = c2; C[(g + 8) * 8 + 2 * t + 1] = c3;
}
)";

static float half_to_float(unsigned short h) {
  unsigned s = (h >> 15) & 1, e = (h >> 10) & 31, m = h & 1023;
  float v = e == 0 ? std::ldexp((float)m, -24) : e == 31 ? (m ? NAN : INFINITY) : std::ldexp((float)(m | 1024), (int)e - 25);
  return s ? -v : v;
}
static unsigned short float_to_half_simple(float f) {  // values exactly representable only
  if (f == 0) return 0;
  int e;
  float m = std::frexp(std::fabs(f), &e);  // f = m * 2^e, m in [0.5, 1)
  unsigned mant = (unsigned)std::lround(m * 2048) - 1024;
  unsigned short h = (unsigned short)(((e + 14) << 10) | mant);
  return f < 0 ? (h | 0x8000) : h;
}

static void run_probes(const std::string& mode) {
  cl_int e;
  if (mode == "pointer") if (cl_program p = build(probe_pointer, "")) {
    cl_kernel k = clCreateKernel(p, "probe", &e);
    cl_mem out = buf(64);
    clSetKernelArg(k, 0, sizeof out, &out);
    size_t g = 32, l = 32;
    clEnqueueNDRangeKernel(q, k, 1, nullptr, &g, &l, 0, nullptr, nullptr);
    unsigned long long r[4] = {0, 0, 0, 0};
    cl_int st = clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof r, r, 0, nullptr, nullptr);
    std::printf("  status %d: sh=%#llx sh2=%#llx check=%llu cvta.shared(sh)=%#llx\n", st, r[0], r[1], r[2], r[3]);
  }
  if (mode == "peak") {
    std::ifstream f(std::getenv("PEAK_CL") ? std::getenv("PEAK_CL") : "benchmark/mma_probe/peak.cl");
    std::stringstream ss;
    ss << f.rdbuf();
    for (int kind = 0; kind < 3; ++kind)
      for (int chains : {4, 8, 16})
        for (int wg : {128, 256}) {
          cl_program pr = build(ss.str(), "-DKIND=" + std::to_string(kind) + " -DCHAINS=" + std::to_string(chains));
          if (!pr) continue;
          cl_kernel k = clCreateKernel(pr, "peak", &e);
          cl_mem out = buf(132 * 16 * 1024 * 4);
          int iters = 4096;
          unsigned seed = 12345;
          clSetKernelArg(k, 0, sizeof out, &out);
          clSetKernelArg(k, 1, 4, &iters);
          clSetKernelArg(k, 2, 4, &seed);
          size_t l = wg, g = 132 * 16 * (size_t)wg;
          double best = 1e9;
          for (int r = 0; r < 4; ++r) {
            cl_event ev;
            clEnqueueNDRangeKernel(q, k, 1, nullptr, &g, &l, 0, nullptr, &ev);
            clFinish(q);
            cl_ulong s0, s1;
            clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, 8, &s0, nullptr);
            clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, 8, &s1, nullptr);
            if (r) best = std::min(best, (s1 - s0) * 1e-9);
          }
          const double flops = (double)(g / 32) * iters * chains * (kind == 0 ? 2048.0 : 4096.0);
          std::printf("  %s chains=%d wg=%d: %.1f TFLOP/s\n", kind == 0 ? "tf32 m16n8k8" : kind == 1 ? "f16 m16n8k16" : "bf16 m16n8k16",
                      chains, wg, flops / best * 1e-12);
          clReleaseMemObject(out);
        }
  }
  if (mode == "localmem")
    for (int kb : {40, 48, 64, 96, 128, 200, 227}) {
      const int floats = kb * 256;
      cl_program pr = build(probe_localmem, "-DLOCAL_FLOATS=" + std::to_string(floats), true);
      if (!pr) { std::printf("  %d KB: build failed\n", kb); continue; }
      cl_kernel k = clCreateKernel(pr, "probe", &e);
      cl_mem out = buf(256 * 4 * 4);
      clSetKernelArg(k, 0, sizeof out, &out);
      size_t g = 1024, l = 256;
      cl_int st = clEnqueueNDRangeKernel(q, k, 1, nullptr, &g, &l, 0, nullptr, nullptr);
      std::vector<float> r(1024);
      cl_int st2 = st ? st : clEnqueueReadBuffer(q, out, CL_TRUE, 0, 4096, r.data(), 0, nullptr, nullptr);
      double want = 0;
      for (int i = 0; i < floats; i += 256) want += floats - 1 - i;
      std::printf("  %d KB: launch %d, read %d, %s\n", kb, st, st2, st2 == 0 && std::fabs(r[0] - want) < 1e-3 * want ? "correct" : "WRONG");
      if (st2) break;
    }
  if (mode == "ldmatrix") if (cl_program p = build(probe_ldmatrix, "")) {
    cl_kernel k = clCreateKernel(p, "probe", &e);
    CHECK(e);
    cl_mem out = buf(32 * 4 * 4);
    CHECK(clSetKernelArg(k, 0, sizeof out, &out));
    size_t g = 32, l = 32;
    CHECK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &g, &l, 0, nullptr, nullptr));
    unsigned r[128];
    if (cl_int st = clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof r, r, 0, nullptr, nullptr)) { std::printf("  ldmatrix run failed: %d\n", st); return; }
    // lane l, register i holds matrix i, row l/4, elements 2*(l%4), +1
    int bad = 0;
    for (int l = 0; l < 32; ++l)
      for (int i = 0; i < 4; ++i) {
        unsigned lo = i * 64 + (l / 4) * 8 + 2 * (l % 4);
        if (r[l * 4 + i] != (lo | ((lo + 1) << 16))) ++bad;
      }
    std::printf("  ldmatrix ran: %s\n", bad ? "WRONG" : "correct");
  }
  if (mode == "cpasync") if (cl_program p = build(probe_cp_async, "")) {
    cl_kernel k = clCreateKernel(p, "probe", &e);
    CHECK(e);
    std::vector<unsigned> in(128);
    for (int i = 0; i < 128; ++i) in[i] = 1000 + i;
    cl_mem bin = buf(512, in.data()), out = buf(512);
    CHECK(clSetKernelArg(k, 0, sizeof bin, &bin));
    CHECK(clSetKernelArg(k, 1, sizeof out, &out));
    size_t g = 32, l = 32;
    CHECK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &g, &l, 0, nullptr, nullptr));
    unsigned r[128];
    if (cl_int st = clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof r, r, 0, nullptr, nullptr)) { std::printf("  cp.async run failed: %d\n", st); return; }
    int bad = 0;
    for (int l = 0; l < 32; ++l)
      for (int i = 0; i < 4; ++i) bad += r[l * 4 + i] != in[((l + 1) % 32) * 4 + i];
    std::printf("  cp.async ran: %s\n", bad ? "WRONG" : "correct");
  }
  if (mode == "mma16") for (const char* type : {"f16", "bf16"}) {
    std::printf("== probe mma m16n8k16 %s\n", type);
    std::string opts = std::string("-DIS_BF16=") + (std::strcmp(type, "bf16") == 0 ? "1" : "0");
    if (cl_program p = build(probe_mma16, opts)) {
      cl_kernel k = clCreateKernel(p, "probe", &e);
      CHECK(e);
      std::mt19937 rng(1);
      std::vector<unsigned short> A(256), B(128);
      std::vector<float> af(256), bf(128);
      auto make = [&](float v) -> unsigned short {
        if (std::strcmp(type, "bf16") == 0) {
          unsigned u;
          std::memcpy(&u, &v, 4);
          return (unsigned short)(u >> 16);
        }
        return float_to_half_simple(v);
      };
      for (int i = 0; i < 256; ++i) { af[i] = (int)(rng() % 17) - 8; af[i] /= 4; A[i] = make(af[i]); }
      for (int i = 0; i < 128; ++i) { bf[i] = (int)(rng() % 17) - 8; bf[i] /= 8; B[i] = make(bf[i]); }
      cl_mem ba = buf(512, A.data()), bb = buf(256, B.data()), bc = buf(512);
      CHECK(clSetKernelArg(k, 0, sizeof ba, &ba));
      CHECK(clSetKernelArg(k, 1, sizeof bb, &bb));
      CHECK(clSetKernelArg(k, 2, sizeof bc, &bc));
      size_t g = 32, l = 32;
      CHECK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &g, &l, 0, nullptr, nullptr));
      float c[128];
      CHECK(clEnqueueReadBuffer(q, bc, CL_TRUE, 0, sizeof c, c, 0, nullptr, nullptr));
      int bad = 0;
      for (int m = 0; m < 16; ++m)
        for (int n = 0; n < 8; ++n) {
          float want = 0;
          for (int kk = 0; kk < 16; ++kk) want += af[m * 16 + kk] * bf[n * 16 + kk];
          bad += std::fabs(want - c[m * 8 + n]) > 1e-6f;
        }
      std::printf("  mma %s ran: %s\n", type, bad ? "WRONG" : "correct");
      (void)half_to_float;
    }
  }
}

// ---- the GEMM prototype -------------------------------------------------------------------
static void run_gemm(const std::string& src, const std::string& opts, int M, int N, int K, int threads, int bm,
                     int bn, int reps) {
  cl_program p = build(src, opts);
  if (!p) return;
  if (const char* dir = std::getenv("DUMP_PTX")) {
    size_t n = 0;
    clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof n, &n, nullptr);
    std::vector<unsigned char> bin(n);
    unsigned char* ptr = bin.data();
    clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr);
    std::string name = std::string(dir) + "/k";
    for (char c : opts) name += std::isalnum((unsigned char)c) ? c : '_';
    while (n > 0 && bin[n - 1] == 0) --n;
    std::ofstream(name + ".ptx", std::ios::binary).write((const char*)bin.data(), n);
  }
  cl_int e;
  cl_kernel k = clCreateKernel(p, "mma_gemm", &e);
  CHECK(e);
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> A((size_t)M * K), B((size_t)K * N), C((size_t)M * N);
  for (auto& v : A) v = d(rng);
  for (auto& v : B) v = d(rng);
  cl_mem ba = buf(A.size() * 4, A.data()), bb = buf(B.size() * 4, B.data()), bc = buf(C.size() * 4);
  int lda = M, ldb = K, ldc = M;
  int a = 0;
  CHECK(clSetKernelArg(k, a++, 4, &M));
  CHECK(clSetKernelArg(k, a++, 4, &N));
  CHECK(clSetKernelArg(k, a++, 4, &K));
  CHECK(clSetKernelArg(k, a++, sizeof ba, &ba));
  CHECK(clSetKernelArg(k, a++, 4, &lda));
  CHECK(clSetKernelArg(k, a++, sizeof bb, &bb));
  CHECK(clSetKernelArg(k, a++, 4, &ldb));
  CHECK(clSetKernelArg(k, a++, sizeof bc, &bc));
  CHECK(clSetKernelArg(k, a++, 4, &ldc));
  size_t global[2] = {(size_t)(M / bm) * threads, (size_t)(N / bn)}, local[2] = {(size_t)threads, 1};
  std::vector<double> times;
  for (int r = 0; r < reps + 1; ++r) {
    cl_event ev;
    auto t0 = std::chrono::steady_clock::now();
    e = clEnqueueNDRangeKernel(q, k, 2, nullptr, global, local, 0, nullptr, &ev);
    if (e != CL_SUCCESS) {
      std::printf("  launch failed %d\n", e);
      return;
    }
    CHECK(clFinish(q));
    auto t1 = std::chrono::steady_clock::now();
    cl_ulong s, f;
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, 8, &s, nullptr);
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, 8, &f, nullptr);
    if (r > 0) times.push_back((f - s) * 1e-9);
    (void)t0, (void)t1;
    clReleaseEvent(ev);
  }
  std::sort(times.begin(), times.end());
  const double med = times[times.size() / 2];
  CHECK(clEnqueueReadBuffer(q, bc, CL_TRUE, 0, C.size() * 4, C.data(), 0, nullptr, nullptr));
  // sampled FP64 reference; error relative to sum |a||b| (the scale a dot product's rounding follows)
  double worst = 0, worst_norm = 0;
  std::mt19937 pick(7);
  for (int s = 0; s < 2000; ++s) {
    int m = pick() % M, n = pick() % N;
    double ref = 0, mag = 0;
    for (int kk = 0; kk < K; ++kk) {
      ref += (double)A[m + (size_t)kk * lda] * B[kk + (size_t)n * ldb];
      mag += std::fabs((double)A[m + (size_t)kk * lda] * B[kk + (size_t)n * ldb]);
    }
    double err = std::fabs(C[m + (size_t)n * ldc] - ref);
    if (!(err <= 1e30)) err = 1e30;
    worst = std::max(worst, err / mag);
    worst_norm = std::max(worst_norm, err / std::sqrt((double)K));
  }
  std::printf("  %s M=%d N=%d K=%d: %.3f ms, %.1f TFLOP/s, max |err|/sum|ab| = %.2e\n", opts.c_str(), M, N, K,
              med * 1e3, 2.0 * M * N * (double)K / med * 1e-12, worst);
  clReleaseMemObject(ba), clReleaseMemObject(bb), clReleaseMemObject(bc);
  clReleaseKernel(k), clReleaseProgram(p);
}

int main(int argc, char** argv) {
  if (!open_first_gpu()) return 1;
  cl_ulong lmem;
  clGetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE, 8, &lmem, nullptr);
  std::printf("device %s, local memory %llu\n", device_name().c_str(), (unsigned long long)lmem);
  if (argc < 2) return 0;
  const std::string mode = argv[1];
  if (mode.size() < 3 || mode.substr(mode.size() - 3) != ".cl") {
    std::printf("== probe %s\n", mode.c_str());
    run_probes(mode);
    return 0;
  }
  std::ifstream f(argv[1]);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string src = ss.str();
  struct variant { int bm, bn, bk, wm, wn, stages, round; };
  const variant variants[] = {{128, 256, 32, 64, 64, 3, 0}, {128, 256, 16, 64, 64, 4, 0}, {256, 128, 16, 64, 64, 4, 0},
                              {128, 128, 32, 64, 64, 3, 0}, {128, 256, 32, 64, 64, 3, 1}};
  std::printf("== prototype TF32 GEMM (NN)\n");
  int index = 0;
  for (const auto& v : variants) {
    if (argc > 2 && std::atoi(argv[2]) != index++) continue;
    const int threads = (v.bm / v.wm) * (v.bn / v.wn) * 32;
    char opts[256];
    std::snprintf(opts, sizeof opts, "-DBM=%d -DBN=%d -DBK=%d -DWM=%d -DWN=%d -DSTAGES=%d -DWAIT=%d -DROUND=%d", v.bm, v.bn, v.bk, v.wm, v.wn, v.stages, v.stages - 2, v.round);
    run_gemm(src, opts, 1024, 1024, 1024, threads, v.bm, v.bn, 3);
    run_gemm(src, opts, 8192, 8192, 8192, threads, v.bm, v.bn, 5);
  }
  return 0;
}
