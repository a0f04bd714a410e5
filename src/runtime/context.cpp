#include <tessera/runtime/context.hpp>
#include <tessera/runtime/error.hpp>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace tessera::runtime {

namespace {

// Every live context, so that exit can finish their queues. Work left in a queue when main
// returns is still being compiled and run by the driver's threads (PoCL compiles a kernel for
// its work-group size when the launch runs) while exit destroys the libraries' static objects:
// LLVM torn down under a compiling thread crashed (issue 15). Never destroyed, like the
// default context, so that contexts destroyed during exit still find it.
struct live_contexts {
  std::mutex mutex;
  std::vector<const context*> contexts;
  bool exit_handler_installed = false;
};

live_contexts& registry() {
  static live_contexts* const instance = new live_contexts;
  return *instance;
}

void finish_every_queue() noexcept {
  live_contexts& live = registry();
  std::lock_guard lock(live.mutex);
  for (const context* ctx : live.contexts) (void)ctx->queue().finish();  // nothing to report to at exit
}

// exit() first runs the destructors of the exiting thread's thread_local objects, then the
// atexit handlers and static destructors in the reverse order of their registration. An atexit
// handler alone comes too late: LLVM creates function-local statics during the first compile,
// after any context exists, so their destructors run before it. A thread_local guard on the
// thread that makes or fetches a context (main, in most programs) runs before all of them;
// it also finishes the queues when another such thread ends, which only costs that thread a
// wait. The atexit handler covers programs that exit from a thread without a guard.
struct finish_queues_at_thread_exit {
  ~finish_queues_at_thread_exit() { finish_every_queue(); }
};

void finish_queues_when_this_thread_exits() {
  thread_local finish_queues_at_thread_exit guard;
  (void)guard;
}

void add_live(const context* ctx) {
  live_contexts& live = registry();
  std::lock_guard lock(live.mutex);
  live.contexts.push_back(ctx);
  if (!live.exit_handler_installed) live.exit_handler_installed = std::atexit([] { finish_every_queue(); }) == 0;
}

void remove_live(const context* ctx) {
  live_contexts& live = registry();
  std::lock_guard lock(live.mutex);
  live.contexts.erase(std::remove(live.contexts.begin(), live.contexts.end(), ctx), live.contexts.end());
}

}  // namespace

context::context(device_info device) : context(device, disk_cache_directory_from_environment()) {}

context::context(device_info device, std::optional<std::filesystem::path> disk_cache_directory)
    : device_(std::move(device)) {
  if (!device_.handle()) throw argument_error("context: the device description has no OpenCL device");
  cl_int status = CL_SUCCESS;
  context_ = cl::Context(device_.handle, nullptr, nullptr, nullptr, &status);
  check_cl(status, "clCreateContext");
  queue_ = cl::CommandQueue(context_, device_.handle, CL_QUEUE_PROFILING_ENABLE, &status);
  check_cl(status, "clCreateCommandQueue");
  programs_ = std::make_unique<program_cache>(*this, std::move(disk_cache_directory));
  add_live(this);
  finish_queues_when_this_thread_exits();
}

context::~context() {
  remove_live(this);
  // The queue's work may outlive the context object (OpenCL keeps what it uses alive); it
  // must not outlive the process's exit handlers, which no longer know this queue.
  (void)queue_.finish();
}

context& context::get() {
  // Never destroyed: OpenCL drivers may already be unloaded when static destructors run.
  // Its queue is finished at exit like every other.
  static context* const instance = new context(select_device_from_environment());
  finish_queues_when_this_thread_exits();
  return *instance;
}

void context::finish() const { check_cl(queue_.finish(), "clFinish"); }

}  // namespace tessera::runtime
