// runtime::kernel_cache: one entry per (context, key), built once however many threads ask.
#include <tessera/runtime/context.hpp>
#include <tessera/runtime/kernel_cache.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace rt = tessera::runtime;

namespace {
rt::context& second_context() {
  static rt::context* const ctx = new rt::context(rt::context::get().device(), std::nullopt);
  return *ctx;
}
}  // namespace

TEST(KernelCache, TheSameKeyIsBuiltOnceAndSharedByEveryThread) {
  rt::kernel_cache<std::string, int> cache;
  auto& ctx = rt::context::get();
  std::atomic<int> builds{0};
  std::vector<std::shared_ptr<int>> seen(8);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < seen.size(); ++t)
    threads.emplace_back([&, t] {
      seen[t] = cache.get(ctx, "k", [&] {
        ++builds;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));  // let the others arrive while it builds
        return 42;
      });
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(builds.load(), 1);
  for (const auto& value : seen) EXPECT_EQ(value, seen.front());
  EXPECT_EQ(*seen.front(), 42);
  EXPECT_EQ(cache.size(), 1u);
}

TEST(KernelCache, KeysAndContextsSeparateEntries) {
  rt::kernel_cache<int, std::string> cache;
  auto& first = rt::context::get();
  auto& second = second_context();
  const auto a = cache.get(first, 1, [] { return std::string("first 1"); });
  const auto b = cache.get(first, 2, [] { return std::string("first 2"); });
  const auto c = cache.get(second, 1, [] { return std::string("second 1"); });
  EXPECT_EQ(*a, "first 1");
  EXPECT_EQ(*b, "first 2");
  EXPECT_EQ(*c, "second 1");
  EXPECT_EQ(cache.get(first, 1, [] { return std::string("not built again"); }), a);
  EXPECT_EQ(cache.size(), 3u);
}

TEST(KernelCache, ABuildThatThrowsLeavesNoEntryAndTheNextCallBuilds) {
  rt::kernel_cache<int, int> cache;
  auto& ctx = rt::context::get();
  EXPECT_THROW(cache.get(ctx, 7, []() -> int { throw std::runtime_error("the build failed"); }), std::runtime_error);
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(*cache.get(ctx, 7, [] { return 3; }), 3);
  EXPECT_EQ(cache.size(), 1u);
}
