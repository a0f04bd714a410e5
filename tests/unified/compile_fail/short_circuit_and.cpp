// Must not compile: && would read x[i - 1] even where i == 0 in the kernel, while the host
// short-circuits. The fix is nested if_ (or & where both sides are safe).
#include <tessera/unified/unified.hpp>

using namespace tessera::unified;

void short_circuit_and(array<float>& x, array<float>& y) {
  run_kernel(opencl_executor::create(), [](auto i, auto x, auto y) {
    y[i] = select(i > 0 && x[i - 1] > 0, 1.0f, 0.0f);
  }, x.size(), x, y);
}
