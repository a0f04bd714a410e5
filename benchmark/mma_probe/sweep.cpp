// Exploration (issue 13): builds mma_gemm.cl for each variant given on the command line (or one per
// line on stdin), runs it on fresh random data at tile-multiple sizes and prints time, TFLOP/s and
// the error against an FP64 reference of the values the kernel was given.
//   g++ -O2 -std=c++20 -Iinclude sweep.cpp -lOpenCL -o sweep   (from the repository root)
//   ./sweep mma_gemm.cl "elem=1 ta=0 tb=0 bm=128 bn=256 bk=32 wm=64 wn=64 st=3 group=8 m=8192 n=8192 k=8192"
#include "probe_opencl.hpp"

#include <tessera/runtime/float16.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

struct variant {
  std::map<std::string, int> v{{"elem", 0}, {"ta", 0}, {"tb", 0}, {"bm", 128}, {"bn", 128}, {"bk", 32},
                               {"wm", 64},  {"wn", 64}, {"st", 3},  {"group", 8}, {"round", 0}, {"m", 8192},
                               {"n", 8192}, {"k", 8192}, {"reps", 5}, {"maxreg", 0}, {"pipe", 1}, {"perm", 1}};
  std::string text;
  int operator[](const char* key) const { return v.at(key); }
};

static variant parse(const std::string& line) {
  variant out;
  out.text = line;
  std::istringstream in(line);
  std::string word;
  while (in >> word) {
    const auto eq = word.find('=');
    if (eq == std::string::npos) continue;
    out.v[word.substr(0, eq)] = std::atoi(word.c_str() + eq + 1);
  }
  return out;
}

struct problem {
  int elem, ta, tb, m, n, k;
  std::vector<float> a, b;  // the values the kernel sees, as floats, in stored layout
  cl_mem da = nullptr, db = nullptr, dc = nullptr;
};

static problem* current = nullptr;

static problem& get_problem(const variant& v) {
  if (current && current->elem == v["elem"] && current->ta == v["ta"] && current->tb == v["tb"] &&
      current->m == v["m"] && current->n == v["n"] && current->k == v["k"])
    return *current;
  if (current) {
    clReleaseMemObject(current->da), clReleaseMemObject(current->db), clReleaseMemObject(current->dc);
    delete current;
  }
  current = new problem{v["elem"], v["ta"], v["tb"], v["m"], v["n"], v["k"], {}, {}};
  problem& p = *current;
  std::mt19937_64 rng(std::random_device{}());
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  const size_t na = (size_t)p.m * p.k, nb = (size_t)p.k * p.n;
  p.a.resize(na), p.b.resize(nb);
  cl_int e;
  auto upload = [&](std::vector<float>& values, cl_mem& buffer) {
    if (p.elem == 0) {
      for (auto& x : values) x = dist(rng);
      buffer = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, values.size() * 4, values.data(), &e);
    } else {
      std::vector<unsigned short> bits(values.size());
      for (size_t i = 0; i < values.size(); ++i) {
        const float x = dist(rng);
        using tessera::runtime::bfloat16, tessera::runtime::float16;
        bits[i] = p.elem == 1 ? float16(x).bits : bfloat16(x).bits;
        values[i] = p.elem == 1 ? float(float16::from_bits(bits[i])) : float(bfloat16::from_bits(bits[i]));
      }
      buffer = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bits.size() * 2, bits.data(), &e);
    }
    CHECK(e);
  };
  upload(p.a, p.da);
  upload(p.b, p.db);
  p.dc = clCreateBuffer(ctx, CL_MEM_READ_WRITE, (size_t)p.m * p.n * 4, nullptr, &e);
  CHECK(e);
  return p;
}

static void run(const std::string& source, const variant& v) {
  problem& p = get_problem(v);
  const int threads = (v["bm"] / v["wm"]) * (v["bn"] / v["wn"]) * 32;
  char opts[512];
  std::snprintf(opts, sizeof opts,
                "-cl-nv-verbose -DELEM=%d -DTRANS_A=%d -DTRANS_B=%d -DBM=%d -DBN=%d -DBK=%d -DWM=%d -DWN=%d "
                "-DSTAGES=%d -DGROUP_M=%d -DROUND=%d -DPIPE=%d -DPERMUTE=%d",
                v["elem"], v["ta"], v["tb"], v["bm"], v["bn"], v["bk"], v["wm"], v["wn"], v["st"], v["group"],
                v["round"], v["pipe"], v["perm"]);
  std::string options = opts;
  if (v["maxreg"] > 0) options += " -cl-nv-maxrregcount=" + std::to_string(v["maxreg"]);
  const char* src = source.c_str();
  cl_int e;
  cl_program prog = clCreateProgramWithSource(ctx, 1, &src, nullptr, &e);
  CHECK(e);
  const cl_int built = clBuildProgram(prog, 1, &dev, options.c_str(), nullptr, nullptr);
  size_t log_size = 0;
  clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, nullptr, &log_size);
  std::string log(log_size, 0);
  clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, log_size, log.data(), nullptr);
  if (built != CL_SUCCESS) {
    std::printf("%-90s BUILD FAILED: %.600s\n", v.text.c_str(), log.c_str());
    clReleaseProgram(prog);
    return;
  }
  // -cl-nv-verbose: ptxas's "Used N registers" and "N bytes spill stores" lines
  std::string resources;
  for (const char* word : {" registers", " bytes spill stores"}) {
    const auto at = log.find(word);
    if (at == std::string::npos) continue;
    auto start = log.find_last_not_of("0123456789", at - 1);
    resources += log.substr(start + 1, at - start - 1) + word + " ";
  }
  cl_kernel kern = clCreateKernel(prog, "mma_gemm", &e);
  CHECK(e);
  const int lda = p.ta ? p.k : p.m, ldb = p.tb ? p.n : p.k, ldc = p.m;
  const float alpha = 1.f, beta = 0.f;
  int a = 0;
  CHECK(clSetKernelArg(kern, a++, 4, &p.m));
  CHECK(clSetKernelArg(kern, a++, 4, &p.n));
  CHECK(clSetKernelArg(kern, a++, 4, &p.k));
  CHECK(clSetKernelArg(kern, a++, 4, &alpha));
  CHECK(clSetKernelArg(kern, a++, sizeof p.da, &p.da));
  CHECK(clSetKernelArg(kern, a++, 4, &lda));
  CHECK(clSetKernelArg(kern, a++, sizeof p.db, &p.db));
  CHECK(clSetKernelArg(kern, a++, 4, &ldb));
  CHECK(clSetKernelArg(kern, a++, 4, &beta));
  CHECK(clSetKernelArg(kern, a++, sizeof p.dc, &p.dc));
  CHECK(clSetKernelArg(kern, a++, 4, &ldc));
  const float nan = NAN;
  CHECK(clEnqueueFillBuffer(q, p.dc, &nan, 4, 0, (size_t)p.m * p.n * 4, 0, nullptr, nullptr));
  const size_t blocks = (size_t)(p.m / v["bm"]) * (p.n / v["bn"]);
  const size_t global = blocks * threads, local = threads;
  std::vector<double> times;
  for (int r = 0; r <= v["reps"]; ++r) {
    cl_event ev;
    e = clEnqueueNDRangeKernel(q, kern, 1, nullptr, &global, &local, 0, nullptr, &ev);
    if (e != CL_SUCCESS) {
      std::printf("%-90s LAUNCH FAILED %d\n", v.text.c_str(), e);
      clReleaseKernel(kern), clReleaseProgram(prog);
      return;
    }
    e = clFinish(q);
    if (e != CL_SUCCESS) {
      std::printf("%-90s RUN FAILED %d\n", v.text.c_str(), e);
      std::exit(1);  // the context is gone
    }
    cl_ulong s0, s1;
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, 8, &s0, nullptr);
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, 8, &s1, nullptr);
    if (r > 0) times.push_back((s1 - s0) * 1e-9);
    clReleaseEvent(ev);
  }
  std::sort(times.begin(), times.end());
  const double med = times[times.size() / 2];
  std::vector<float> c((size_t)p.m * p.n);
  CHECK(clEnqueueReadBuffer(q, p.dc, CL_TRUE, 0, c.size() * 4, c.data(), 0, nullptr, nullptr));
  size_t unwritten = 0;
  for (float x : c) unwritten += std::isnan(x);
  double worst = 0;
  std::mt19937 pick(7);
  for (int s = 0; s < 1500; ++s) {
    const int mi = pick() % p.m, ni = pick() % p.n;
    double ref = 0, mag = 0;
    for (int kk = 0; kk < p.k; ++kk) {
      const double x = p.a[p.ta ? kk + (size_t)mi * lda : mi + (size_t)kk * lda];
      const double y = p.b[p.tb ? ni + (size_t)kk * ldb : kk + (size_t)ni * ldb];
      ref += x * y;
      mag += std::fabs(x * y);
    }
    double err = std::fabs(c[mi + (size_t)ni * ldc] - ref) / mag;
    if (!(err <= 1e30)) err = 1e30;
    worst = std::max(worst, err);
  }
  std::printf("%-90s %8.3f ms %7.1f TFLOP/s err %.1e [%s]%s\n", v.text.c_str(), med * 1e3,
              2.0 * p.m * (double)p.n * p.k / med * 1e-12, worst, resources.c_str(),
              unwritten ? (" UNWRITTEN " + std::to_string(unwritten)).c_str() : "");
  std::fflush(stdout);
  clReleaseKernel(kern), clReleaseProgram(prog);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::printf("usage: sweep kernel.cl [variant...] (or variants on stdin)\n");
    return 2;
  }
  if (!open_first_gpu()) return 1;
  std::printf("device %s\n", device_name().c_str());
  std::ifstream f(argv[1]);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string source = ss.str();
  std::vector<std::string> lines;
  for (int i = 2; i < argc; ++i) lines.push_back(argv[i]);
  if (lines.empty())
    for (std::string line; std::getline(std::cin, line);)
      if (!line.empty() && line[0] != '#') lines.push_back(line);
  for (const auto& line : lines) run(source, parse(line));
  return 0;
}
