// Must not compile: a traced value is an immutable constant of the kernel; reassigning it in a
// for_ body would not carry over to the next iteration. The fix is auto sum = var(...).
#include <tessera/unified/unified.hpp>

using namespace tessera::unified;

void assignment_to_traced_value(array<float>& x, array<int>& row_ptrs) {
  run_kernel(opencl_executor::create(), [](auto row, auto row_ptrs, auto x) {
    auto sum = x[0] * 0;
    for_(row_ptrs[row], row_ptrs[row + 1], [&](auto k) { sum = sum + x[k]; });
    x[row] = sum;
  }, row_ptrs.size() - 1, row_ptrs, x);
}
