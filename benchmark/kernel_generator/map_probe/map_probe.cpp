// Which part of the softmax's last kernel (exp(a - colwise_broadcast(m)) /
// colwise_broadcast(s), m and s finished row vectors) keeps it below the copy:
// the same kernel generator assignment with one part taken out at a time, each
// timed by the device against clEnqueueCopyBuffer of the matrix. Run on the GPU
// machine after building the library (map_probe.sh).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <tessera/kernel_generator/kernel_generator.hpp>
#include <tessera/runtime/covering_event.hpp>
#include <vector>

using namespace tessera;
using namespace tessera::kernel_generator;

namespace {
double device_us(const cl::Event &e) {
  e.wait();
  return (e.getProfilingInfo<CL_PROFILING_COMMAND_END>() - e.getProfilingInfo<CL_PROFILING_COMMAND_START>()) * 1e-3;
}
double median_us(const std::function<cl::Event()> &run) {
  run().wait();
  std::vector<double> t;
  for (int r = 0; r < 15; ++r) t.push_back(device_us(run()));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
}  // namespace

int main() {
  const index_t rows = 8192, cols = 8192;
  std::vector<float> host(static_cast<std::size_t>(rows * cols));
  for (std::size_t k = 0; k < host.size(); ++k) host[k] = static_cast<float>((k * 2654435761u % 1000) / 100.0 - 5);
  const matrix<float> a(host, rows, cols);
  std::vector<float> mv(static_cast<std::size_t>(rows), 5.0f), sv(static_cast<std::size_t>(rows), 3.0f);
  const matrix<float> m(mv, rows, 1), s(sv, rows, 1), r(std::vector<float>(mv.size(), 0.25f), rows, 1);
  matrix<float> d(rows, cols);
  const auto &ctx = runtime::context::get();
  cl::Buffer copy_to(ctx.cl_context(), CL_MEM_READ_WRITE, host.size() * sizeof(float));
  const double copy = median_us([&] {
    cl::Event e;
    ctx.queue().enqueueCopyBuffer(a.buffer(), copy_to, 0, 0, host.size() * sizeof(float), nullptr, &e);
    return e;
  });
  std::printf("copy %.1f us\n", copy);
  const auto report = [&](const char *what, const std::function<cl::Event()> &run) {
    const double us = median_us(run);
    std::printf("%-48s %8.1f us  copy_ratio %.2f\n", what, us, copy / us);
  };
  // The whole softmax and log-sum-exp: the device interval the returned event
  // covers (what the benchmark counts), and the host's time to enqueue the
  // assignment. traffic: the bytes counted against the copy's (a read and a
  // write: 1; a read: 0.5).
  const auto whole = [&](const char *what, double traffic, const std::function<cl::Event()> &run) {
    run().wait();
    std::vector<double> cover, host_us;
    for (int k = 0; k < 15; ++k) {
      ctx.finish();
      const auto t0 = std::chrono::steady_clock::now();
      const cl::Event e = run();
      const auto t1 = std::chrono::steady_clock::now();
      ctx.finish();
      cover.push_back(runtime::elapsed_seconds(e) * 1e6);
      host_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
    std::sort(cover.begin(), cover.end());
    std::sort(host_us.begin(), host_us.end());
    std::printf("%-48s %8.1f us covered (copy_ratio %.2f), %.1f us to enqueue\n", what, cover[7],
                traffic * copy / cover[7], host_us[7]);
  };
  // Does releasing a buffer that a queued kernel still writes wait for the
  // kernel?
  for (int k = 0; k < 3; ++k) {
    ctx.finish();
    const auto t0 = std::chrono::steady_clock::now();
    double enqueued = 0;
    {
      matrix<float> t(rows, cols);
      evaluate(t, a * 2.0f);
      enqueued = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    }
    const double released = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    std::printf(
        "a fresh 2^26-float target: %.1f us to enqueue, %.1f us with "
        "its release\n",
        enqueued, released);
  }
  const auto shifted = exp(a - colwise_broadcast(rowwise_max(a)));
  whole("softmax by rows (a read and a write)", 1.0,
        [&] { return evaluate(d, elt_divide(shifted, colwise_broadcast(rowwise_sum(shifted)))); });
  matrix<float> lse(rows, 1);
  const auto max = rowwise_max(a);
  whole("log-sum-exp by rows (a read)", 0.5,
        [&] { return evaluate(lse, max + log(rowwise_sum(exp(a - colwise_broadcast(max))))); });
  matrix<float> tm(rows, 1), ts(rows, 1);
  whole("results(max, sum) by rows (a read)", 0.5, [&] {
    return evaluate_all(
        std::tuple<load_<matrix<float> &>, load_<matrix<float> &>>(tm, ts),
        std::tuple<const decltype(max) &, const decltype(rowwise_sum(exp(a - colwise_broadcast(max)))) &>(
            max, rowwise_sum(exp(a - colwise_broadcast(max)))));
  });
  report("exp(a - m) / s (the softmax's map)",
         [&] { return evaluate(d, elt_divide(exp(a - colwise_broadcast(m)), colwise_broadcast(s))); });
  report("exp(a - m) * r",
         [&] { return evaluate(d, elt_multiply(exp(a - colwise_broadcast(m)), colwise_broadcast(r))); });
  report("exp(a - m)", [&] { return evaluate(d, exp(a - colwise_broadcast(m))); });
  report("a - m", [&] { return evaluate(d, a - colwise_broadcast(m)); });
  report("a / s", [&] { return evaluate(d, elt_divide(a, colwise_broadcast(s))); });
  report("exp(a)", [&] { return evaluate(d, exp(a)); });
  report("a * 2", [&] { return evaluate(d, a * 2.0f); });
}
