#include <tessera/runtime/workspace.hpp>

#include <algorithm>
#include <deque>

#include <tessera/runtime/context.hpp>
#include <tessera/runtime/kernel_cache.hpp>

namespace tessera::runtime {

struct workspace_lease::buffers {
  struct make {};
  explicit buffers(make) {}
  std::mutex mutex;
  // A deque: growing it keeps the references buffer() returned earlier in the same lease
  // valid (a vector's reallocation left a GEMM's copy of A dangling once B's was taken).
  std::deque<device_buffer> kept;
};

namespace {
// Per context (kernel_cache keeps one value per context and key, made once).
kernel_cache<int, workspace_lease::buffers>& workspaces() {
  static kernel_cache<int, workspace_lease::buffers> cache;
  return cache;
}
}  // namespace

workspace_lease::workspace_lease(const context& ctx, workspace_owner owner)
    : ctx_(&ctx),
      held_(workspaces().get(ctx, static_cast<int>(owner), [] { return buffers::make{}; }).get()),
      lock_(held_->mutex) {}

const device_buffer& workspace_lease::buffer(std::size_t k, std::size_t bytes) {
  if (held_->kept.size() <= k) held_->kept.resize(k + 1);
  device_buffer& kept = held_->kept[k];
  if (kept.bytes() < bytes) kept = device_buffer(*ctx_, std::max<std::size_t>(bytes, 4096));
  return kept;
}

}  // namespace tessera::runtime
