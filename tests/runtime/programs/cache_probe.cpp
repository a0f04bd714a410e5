// Builds one fixed program through the default context's cache and prints the counters,
// so that a test can see what a second process finds on disk.
#include <tessera/runtime/context.hpp>

#include <iostream>

#include <fmt/format.h>

int main(int argc, char** argv) {
  const std::string tag = argc > 1 ? argv[1] : "probe";
  const std::string source = "kernel void probe_" + tag + "(global float* x) { x[get_global_id(0)] += 1.0f; }\n";
  auto& ctx = tessera::runtime::context::get();
  auto program = ctx.programs().get("cache_probe", source);
  program->make_kernel("probe_" + tag);
  const auto c = ctx.programs().counters();
  std::cout << fmt::format("builds={} disk_hits={} corrupt={} writes={}\n", c.builds, c.disk_hits, c.corrupt_entries,
                           c.disk_writes);
  return 0;
}
