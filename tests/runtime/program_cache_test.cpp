#include <tessera/runtime/context.hpp>
#include <tessera/runtime/matrix.hpp>
#include <tessera/runtime/program_cache.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "support/test_data.hpp"

namespace fs = std::filesystem;
namespace rt = tessera::runtime;
using ::testing::HasSubstr;

namespace {

// A fresh directory per test, removed afterwards.
class ProgramCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tessera-cache-test-" + std::to_string(tessera::testing::fresh_seed()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A context of its own, so memory caches of other tests do not interfere.
  std::unique_ptr<rt::context> fresh_context(std::optional<fs::path> disk) const {
    return std::make_unique<rt::context>(rt::context::get().device(), std::move(disk));
  }

  std::string unique_source(const std::string& tag) const {
    return "kernel void add_one(global float* x) { x[get_global_id(0)] += 1.0f; } // " + tag + " " +
           dir_.filename().string() + "\n";
  }

  fs::path dir_;
};

std::string run_probe(const fs::path& cache_dir, const std::string& tag, const std::string& extra_env = "") {
  const std::string command =
      extra_env + " TESSERA_CACHE_DIR='" + cache_dir.string() + "' '" TESSERA_CACHE_PROBE "' " + tag + " 2>&1";
  std::string output;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return "popen failed";
  std::array<char, 256> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe)) output += buffer.data();
  const int status = ::pclose(pipe);
  return status == 0 ? output : "probe failed: " + output;
}

}  // namespace

TEST_F(ProgramCacheTest, TheSameSourceBuildsOncePerProcess) {
  auto ctx = fresh_context(std::nullopt);
  const auto source = unique_source("memory");
  auto first = ctx->programs().get("p", source);
  auto second = ctx->programs().get("p", source);
  EXPECT_EQ(first.get(), second.get());
  const auto c = ctx->programs().counters();
  EXPECT_EQ(c.builds, 1u);
  EXPECT_EQ(c.memory_hits, 1u);
  EXPECT_GT(c.build_seconds, 0.0);
}

TEST_F(ProgramCacheTest, OptionsArePartOfTheKey) {
  auto ctx = fresh_context(std::nullopt);
  const auto source = unique_source("options");
  ctx->programs().get("p", source, "-DA=1");
  ctx->programs().get("p", source, "-DA=2");
  EXPECT_EQ(ctx->programs().counters().builds, 2u);
}

TEST_F(ProgramCacheTest, ASecondProcessLoadsFromDiskAndBuildsNothing) {
  const std::string tag = "t" + std::to_string(tessera::testing::fresh_seed() % 1000000);
  EXPECT_THAT(run_probe(dir_, tag), HasSubstr("builds=1 disk_hits=0 corrupt=0 writes=1"));
  EXPECT_THAT(run_probe(dir_, tag), HasSubstr("builds=0 disk_hits=1 corrupt=0 writes=0"));
}

TEST_F(ProgramCacheTest, ProcessesWritingTheSameEntryConcurrentlyLeaveAValidEntry) {
  const std::string tag = "race" + std::to_string(tessera::testing::fresh_seed() % 1000000);
  std::vector<std::thread> writers;
  std::vector<std::string> outputs(4);
  for (int p = 0; p < 4; ++p) writers.emplace_back([&, p] { outputs[p] = run_probe(dir_, tag); });
  for (auto& w : writers) w.join();
  // The entry lock lets one process build; the others wait and load what it wrote.
  int builds = 0;
  for (const auto& out : outputs) {
    EXPECT_THAT(out, HasSubstr("corrupt=0"));
    builds += out.find("builds=1") != std::string::npos ? 1 : 0;
  }
  EXPECT_EQ(builds, 1) << outputs[0] << outputs[1] << outputs[2] << outputs[3];
  // Whatever the interleaving, the entry left behind is whole: the next process loads it.
  EXPECT_THAT(run_probe(dir_, tag), HasSubstr("builds=0 disk_hits=1 corrupt=0"));
  for (const auto& entry : fs::directory_iterator(dir_))
    EXPECT_THAT(entry.path().extension().string(), ::testing::AnyOf(".clbin", ".lock"))
        << "temporary file left behind: " << entry.path();
}

TEST_F(ProgramCacheTest, ShowKernelsPrintsTheSourceOnFirstUse) {
  const std::string tag = "show" + std::to_string(tessera::testing::fresh_seed() % 1000000);
  const auto out = run_probe(dir_, tag, "TESSERA_SHOW_KERNELS=1");
  EXPECT_THAT(out, HasSubstr("kernel void probe_" + tag));
  EXPECT_THAT(run_probe(dir_, tag), ::testing::Not(HasSubstr("kernel void")));
}

TEST_F(ProgramCacheTest, ACorruptEntryIsDetectedAndRebuilt) {
  const auto source = unique_source("corrupt");
  {
    auto writer = fresh_context(dir_);
    writer->programs().get("p", source);
    ASSERT_EQ(writer->programs().counters().disk_writes, 1u);
  }
  const fs::path entry = fresh_context(dir_)->programs().entry_path(source, "");
  ASSERT_TRUE(fs::exists(entry));

  // Flip one byte in the middle of the binary: the checksum must catch it.
  {
    std::fstream f(entry, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(fs::file_size(entry) / 2));
    char c = 0;
    f.read(&c, 1);
    f.seekp(static_cast<std::streamoff>(fs::file_size(entry) / 2));
    c = static_cast<char>(c ^ 0x5a);
    f.write(&c, 1);
  }
  auto reader = fresh_context(dir_);
  auto program = reader->programs().get("p", source);
  auto c = reader->programs().counters();
  EXPECT_EQ(c.corrupt_entries, 1u);
  EXPECT_EQ(c.disk_hits, 0u);
  EXPECT_EQ(c.builds, 1u);

  // The rebuilt program works, and the entry was rewritten whole.
  auto k = program->make_kernel("add_one");
  const auto host = tessera::testing::random_values<float>(8);
  rt::matrix<float> x(host, 8, 1, rt::matrix_view::entire, *reader);
  k.launch(*reader, rt::launch_range::one_d(8), x);
  const auto out = x.to_host();
  for (std::size_t i = 0; i < host.size(); ++i) EXPECT_FLOAT_EQ(out[i], host[i] + 1.0f);
  auto third = fresh_context(dir_);
  third->programs().get("p", source);
  EXPECT_EQ(third->programs().counters().disk_hits, 1u);
}

TEST_F(ProgramCacheTest, ATruncatedEntryIsRebuilt) {
  const auto source = unique_source("truncated");
  fresh_context(dir_)->programs().get("p", source);
  const fs::path entry = fresh_context(dir_)->programs().entry_path(source, "");
  fs::resize_file(entry, fs::file_size(entry) / 3);
  auto reader = fresh_context(dir_);
  reader->programs().get("p", source);
  EXPECT_EQ(reader->programs().counters().corrupt_entries, 1u);
  EXPECT_EQ(reader->programs().counters().builds, 1u);
}

TEST_F(ProgramCacheTest, DisabledDiskCacheWritesNothing) {
  auto ctx = fresh_context(std::nullopt);
  ctx->programs().get("p", unique_source("off"));
  EXPECT_FALSE(fs::exists(dir_));
  EXPECT_EQ(ctx->programs().counters().disk_writes, 0u);
}

TEST(ProgramCacheEnvironment, DirectoryFollowsTheVariables) {
  const auto saved_cache = std::getenv("TESSERA_CACHE") ? std::string(std::getenv("TESSERA_CACHE")) : "";
  const auto saved_dir = std::getenv("TESSERA_CACHE_DIR") ? std::string(std::getenv("TESSERA_CACHE_DIR")) : "";
  ::setenv("TESSERA_CACHE_DIR", "/some/where", 1);
  ::unsetenv("TESSERA_CACHE");
  EXPECT_EQ(rt::disk_cache_directory_from_environment(), fs::path("/some/where"));
  ::unsetenv("TESSERA_CACHE_DIR");
  ::setenv("XDG_CACHE_HOME", "/xdg", 1);
  EXPECT_EQ(rt::disk_cache_directory_from_environment(), fs::path("/xdg/tessera"));
  ::unsetenv("XDG_CACHE_HOME");
  ::setenv("HOME", "/home/someone", 1);
  EXPECT_EQ(rt::disk_cache_directory_from_environment(), fs::path("/home/someone/.cache/tessera"));
  ::setenv("TESSERA_CACHE", "off", 1);
  EXPECT_EQ(rt::disk_cache_directory_from_environment(), std::nullopt);
  if (saved_cache.empty()) ::unsetenv("TESSERA_CACHE"); else ::setenv("TESSERA_CACHE", saved_cache.c_str(), 1);
  if (!saved_dir.empty()) ::setenv("TESSERA_CACHE_DIR", saved_dir.c_str(), 1);
}

TEST_F(ProgramCacheTest, ConcurrentRequestsBuildOnce) {
  auto ctx = fresh_context(std::nullopt);
  const auto source = unique_source("threads");
  std::vector<std::thread> threads;
  std::vector<const rt::program*> seen(4);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] { seen[t] = ctx->programs().get("p", source).get(); });
  for (auto& t : threads) t.join();
  for (auto* p : seen) EXPECT_EQ(p, seen[0]);
  EXPECT_EQ(ctx->programs().counters().builds, 1u);
  EXPECT_EQ(ctx->programs().counters().memory_hits, 3u);
}
