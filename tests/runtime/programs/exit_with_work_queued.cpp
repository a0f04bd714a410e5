// Enqueues kernels that the driver still has to compile and run, then returns from main
// without waiting: the runtime must finish every queue before the driver is torn down
// (issue 15, item 1: PoCL's worker compiling while exit unloads LLVM crashed).
#include <tessera/runtime/context.hpp>
#include <tessera/runtime/kernel.hpp>
#include <tessera/runtime/matrix.hpp>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace rt = tessera::runtime;

namespace {
// A static object of the program, made before the driver is loaded: exit destroys it after the
// statics the driver's libraries make later (LLVM's, during a compile), so its slow destructor
// holds the process in the window where those are gone and the driver's threads still work.
struct slow_to_destroy {
  ~slow_to_destroy() { std::this_thread::sleep_for(std::chrono::milliseconds(300)); }
} program_static;
}  // namespace

int main(int argc, char** argv) {
  // A source of its own per run, so that the driver compiles it (PoCL specializes kernels per
  // work-group size on its worker threads, when the launch runs).
  const std::string tag = argc > 1 ? argv[1]
                                   : std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
  const std::string source = "kernel void spin(global float* x, int rounds) {\n"
                             "  const size_t i = get_global_id(0);\n"
                             "  float v = x[i];\n"
                             "  for (int r = 0; r < rounds; ++r) v = v * 0.999f + " + tag + ".0f * 1e-30f;\n"
                             "  x[i] = v;\n"
                             "}\n";
  auto& ctx = rt::context::get();
  const auto program = ctx.programs().get("exit_with_work_queued", source);
  const rt::kernel spin = program->make_kernel("spin");
  rt::matrix<float> x(std::vector<float>(4096, 1.5f), 4096, 1);
  // Several local sizes: each one is another specialization for PoCL to compile.
  for (const std::size_t local : {0, 1, 64}) spin.launch(ctx, rt::launch_range::one_d(4096, local), x, 100);
  // Submitted to the device, so that its threads are busy compiling when main returns.
  ctx.queue().flush();
  return 0;  // no finish(): the queue still holds work
}
