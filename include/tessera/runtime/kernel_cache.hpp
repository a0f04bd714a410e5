#pragma once
// The one cache of built kernels every front door keeps its kernels in: the kernel
// generator (per expression type), unified kernels (per lambda and argument types), Tile
// (per function and input layouts) and GEMM (per build options). The program cache below it
// holds the compiled programs (in memory and on disk); this one holds what a front door made
// from them (kernel objects, a plan of several), so a later call costs one lookup.
//
// Entries are per OpenCL context and key. The same (context, key) is built once however many
// threads ask; different ones build in parallel. A build that throws leaves no entry, so the
// next call tries again.
#include <atomic>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include <tessera/runtime/context.hpp>
#include <tessera/runtime/opencl.hpp>

namespace tessera::runtime {

template <typename Key, typename Value>
class kernel_cache {
 public:
  /// The value of (ctx, key), made by build() (returning a Value) the first time. Value need
  /// not be movable: build's result initializes it in place.
  template <typename Build>
  std::shared_ptr<Value> get(const context& ctx, const Key& key, Build&& build) {
    std::shared_ptr<slot> found;
    {
      std::lock_guard lock(mutex_);
      auto& slots = contexts_.try_emplace(ctx.cl_context()(), ctx.cl_context()).first->second.slots;
      auto it = slots.find(key);  // a hit copies no key
      if (it == slots.end()) it = slots.emplace(key, std::make_shared<slot>()).first;
      found = it->second;
    }
    std::lock_guard build_lock(found->mutex);
    if (!found->value) {
      found->value = std::shared_ptr<Value>(new Value(build()));
      ++built_;
    }
    return found->value;
  }

  /// Entries built so far (for tests and tools).
  std::size_t size() const noexcept { return built_.load(); }

 private:
  struct slot {
    std::mutex mutex;
    std::shared_ptr<Value> value;
  };
  struct of_context {
    // Retained, so that the cl_context handle keying it names this context as long as the
    // entries live: a context made later cannot reuse the handle and find a stranger's kernels.
    explicit of_context(const cl::Context& c) : owner(c) {}
    cl::Context owner;
    std::map<Key, std::shared_ptr<slot>> slots;
  };
  std::mutex mutex_;
  std::atomic<std::size_t> built_{0};
  std::map<cl_context, of_context> contexts_;
};

}  // namespace tessera::runtime
