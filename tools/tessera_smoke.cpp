// tessera-smoke: builds and runs one kernel on the selected device and checks it on the host.
#include <tessera/runtime/runtime.hpp>

#include <cmath>
#include <iostream>
#include <random>

#include <fmt/format.h>

namespace rt = tessera::runtime;

int main() {
  try {
    auto& ctx = rt::context::get();
    const rt::index_t n = 1'000'003;
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> dist(-1.f, 1.f);
    std::vector<float> a(n), b(n);
    for (auto& v : a) v = dist(rng);
    for (auto& v : b) v = dist(rng);
    rt::matrix<float> da(a, n, 1), db(b, n, 1), dc(n, 1);
    const std::string source =
        "kernel void axpby(global const float* a, global const float* b, global float* c, int n) {\n"
        "  int i = get_global_id(0);\n"
        "  if (i < n) c[i] = 2.0f * a[i] + b[i];\n"
        "}\n";
    auto program = ctx.programs().get("smoke_axpby", source);
    auto kernel = program->make_kernel("axpby");
    auto event = kernel.launch(ctx, rt::launch_range::one_d(rt::round_up(n, 256), 256), da, db, dc,
                               static_cast<int>(n));
    const double seconds = rt::elapsed_seconds(event);
    auto c = dc.to_host();
    double max_error = 0;
    for (rt::index_t i = 0; i < n; ++i) max_error = std::max(max_error, double(std::abs(c[i] - (2 * a[i] + b[i]))));
    const bool ok = max_error <= 1e-6;
    std::cout << fmt::format("smoke kernel c = 2a + b on '{}', n = {}: {:.3f} ms, {:.2f} GB/s, max error {:.2e}: {}\n",
                             ctx.device().name, n, seconds * 1e3, 12.0 * n / seconds / 1e9, max_error,
                             ok ? "OK" : "WRONG");
    const auto counters = ctx.programs().counters();
    std::cout << fmt::format("program cache: {} built, {} from disk, {} from memory\n", counters.builds,
                             counters.disk_hits, counters.memory_hits);
    return ok ? 0 : 1;
  } catch (const tessera::error& e) {
    std::cerr << "tessera-smoke: " << e.what() << '\n';
    return 1;
  }
}
