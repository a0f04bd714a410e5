// Must not compile: a traced kernel is built once per lambda type, so a captured alpha would be
// frozen into it. The fix is to pass alpha as an argument.
#include <tessera/unified/unified.hpp>

using namespace tessera::unified;

void capturing_kernel(array<float>& x, float alpha) {
  run_kernel(omp_executor::create(), [alpha](auto i, auto x) { x[i] *= alpha; }, x.size(), x);
}
