#include <tessera/kernel_generator/assignment.hpp>
#include <tessera/runtime/context.hpp>
#include <tessera/runtime/error.hpp>

namespace tessera::kernel_generator::detail {

cl::Event enqueue_marker(const runtime::context& ctx) {
  cl::Event event;
  runtime::check_cl(ctx.queue().enqueueMarkerWithWaitList(nullptr, &event), "clEnqueueMarkerWithWaitList");
  return event;
}

void throw_different_contexts() {
  throw argument_error(
      "assignment: the matrices of one expression live in different contexts (devices); copy them to one first");
}

}  // namespace tessera::kernel_generator::detail
