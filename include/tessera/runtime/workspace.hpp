#pragma once
// Device scratch memory of a context (reductions' partial results), kept and grown from call to
// call instead of made and released per call: a buffer made for a call and released at its end
// cost the host about as long as the kernels using it on an H200 (NVIDIA driver 580: a log-sum-exp
// of 8192 x 8192 by rows took 117 us to enqueue for 85 us of kernels, 52 us with kept buffers),
// time in which the call's next kernel was not enqueued and the device idled. The one home of
// such memory for every front door (the kernel generator's reductions, unified kernels').
#include <cstddef>
#include <mutex>
#include <vector>

#include <tessera/runtime/buffer.hpp>

namespace tessera::runtime {

class context;

/// The context's scratch buffers, held while a call enqueues the kernels that use them: on the
/// context's in-order queue the next holder's kernels run after those, so it may write the same
/// memory. A default-constructed lease holds nothing.
/// Whose scratch buffers: each owner's have their own lock, so that a GEMM enqueued while an
/// expression holds the expressions' lease does not wait on it.
enum class workspace_owner { expressions, gemm };

class workspace_lease {
 public:
  workspace_lease() = default;
  explicit workspace_lease(const context& ctx, workspace_owner owner = workspace_owner::expressions);
  /// Buffer k, at least bytes long (grown if shorter; OpenCL keeps a replaced buffer alive until
  /// the kernels using it finish). The reference stays valid while the lease is held, whatever
  /// other buffers it takes, until buffer k itself is asked to grow.
  const device_buffer& buffer(std::size_t k, std::size_t bytes);

  struct buffers;  // a context's kept buffers and their lock (workspace.cpp)

 private:
  const context* ctx_ = nullptr;
  buffers* held_ = nullptr;
  std::unique_lock<std::mutex> lock_;
};

}  // namespace tessera::runtime
