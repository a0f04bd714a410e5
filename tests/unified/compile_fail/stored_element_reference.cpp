// Must not compile: r would be a copy on the host but an alias of x[i] in the kernel, so the
// kernel would store the new x[i] into y[i]. The fix is auto r = value(x[i]) or var(x[i]).
#include <tessera/unified/unified.hpp>

using namespace tessera::unified;

void stored_element_reference(array<float>& x, array<float>& y) {
  run_kernel(opencl_executor::create(), [](auto i, auto x, auto y) {
    auto r = x[i];
    x[i] = 0;
    y[i] = r;
  }, x.size(), x, y);
}
