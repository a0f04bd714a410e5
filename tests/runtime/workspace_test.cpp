// The scratch memory a call leases from its context (runtime/workspace.hpp).
#include <tessera/runtime/context.hpp>
#include <tessera/runtime/workspace.hpp>

#include <gtest/gtest.h>

#include <vector>

#include "support/test_data.hpp"

namespace rt = tessera::runtime;

namespace {

// A GEMM that copies both operands takes buffer 1, then buffer 2, and launches on both: the first
// reference must survive the second request (a vector of buffers reallocated under it).
TEST(WorkspaceLease, ABufferStaysPutWhileTheLeaseTakesOthers) {
  auto& ctx = rt::context::get();
  rt::workspace_lease lease(ctx, rt::workspace_owner::gemm);
  const auto values = tessera::testing::random_values<float>(257);
  const rt::device_buffer& first = lease.buffer(1, values.size() * sizeof(float));
  first.write(0, values.size() * sizeof(float), values.data());
  for (std::size_t k = 2; k < 40; ++k) lease.buffer(k, 64);
  EXPECT_EQ(&first, &lease.buffer(1, 16)) << "a buffer large enough is the one kept";
  std::vector<float> back(values.size());
  first.read(0, back.size() * sizeof(float), back.data());
  EXPECT_EQ(back, values);
}

// A buffer asked to grow is replaced by a larger one; one large enough is reused as it is.
TEST(WorkspaceLease, GrowsABufferOnlyWhenAskedForMore) {
  auto& ctx = rt::context::get();
  rt::workspace_lease lease(ctx, rt::workspace_owner::gemm);
  const std::size_t start = lease.buffer(0, 1).bytes();
  EXPECT_GE(start, 1u);
  EXPECT_EQ(lease.buffer(0, start).bytes(), start);
  EXPECT_GE(lease.buffer(0, start + 1).bytes(), start + 1);
}

}  // namespace
