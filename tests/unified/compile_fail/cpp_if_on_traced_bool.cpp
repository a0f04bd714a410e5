// Must not compile: a C++ if cannot branch on a traced condition (the host cannot know which
// way the kernel goes). The fix is if_(x[i] > 0, [&] { x[i] = 0; }).
#include <tessera/unified/unified.hpp>

using namespace tessera::unified;

void cpp_if_on_traced_bool(array<float>& x) {
  run_kernel(opencl_executor::create(), [](auto i, auto x) {
    if (x[i] > 0) x[i] = 0;
  }, x.size(), x);
}
