#include <tessera/runtime/context.hpp>
#include <tessera/runtime/matrix.hpp>
#include <tessera/runtime/program_cache.hpp>
#include <tessera/runtime/sha256.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <random>
#include <thread>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

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

// A child process holding an entry's lock, as a process building the same program would,
// writing "pid test-holder" into it as tessera does; stopped (SIGSTOP) when asked.
class lock_holding_process {
 public:
  lock_holding_process(const fs::path& lock_file, bool stopped) {
    fs::create_directories(lock_file.parent_path());
    pid_ = ::fork();
    if (pid_ == 0) hold(lock_file.c_str(), stopped);  // never returns
    // Wait until the child has the lock (and, when asked, has stopped).
    const int fd = ::open(lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    while (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
      ::flock(fd, LOCK_UN);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ::close(fd);
    if (stopped) {
      int status = 0;
      ::waitpid(pid_, &status, WUNTRACED);
    }
  }
  lock_holding_process(const lock_holding_process&) = delete;
  lock_holding_process& operator=(const lock_holding_process&) = delete;
  ~lock_holding_process() { end(); }
  /// Kills the child: the lock is released.
  void end() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  pid_t pid() const noexcept { return pid_; }

 private:
  // Only async-signal-safe calls: the parent has threads (OpenCL's) that fork does not copy.
  [[noreturn]] static void hold(const char* lock_file, bool stopped) {
    const int fd = ::open(lock_file, O_RDWR | O_CREAT, 0644);
    if (fd < 0 || ::flock(fd, LOCK_EX) != 0) ::_exit(1);
    char line[32];
    char* end = line + sizeof line;
    char* at = end;
    for (const char c : {'\n', 'r', 'e', 'd', 'l', 'o', 'h', '-', 't', 's', 'e', 't', ' '}) *--at = c;
    for (long pid = ::getpid(); pid > 0; pid /= 10) *--at = static_cast<char>('0' + pid % 10);
    if (::ftruncate(fd, 0) != 0 || ::write(fd, at, static_cast<std::size_t>(end - at)) < 0) ::_exit(1);
    if (stopped) ::raise(SIGSTOP);
    for (;;) ::pause();
  }
  pid_t pid_ = -1;
};

/// get() on another thread, given at most 60 s: a get() that waits forever fails the test
/// instead of hanging it (the holder is ended, which lets it finish).
std::shared_ptr<const rt::program> get_within_a_minute(rt::context& ctx, const std::string& source,
                                                       lock_holding_process& holder) {
  auto built = std::async(std::launch::async, [&] { return ctx.programs().get("p", source); });
  if (built.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
    holder.end();
    ADD_FAILURE() << "get() was still waiting for the lock after 60 s";
  }
  return built.get();
}

fs::path lock_file_of(const rt::context& ctx, const std::string& source) {
  return fs::path(ctx.programs().entry_path(source, "")).replace_extension(".lock");
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
    EXPECT_THAT(entry.path().extension().string(), ::testing::AnyOf(".clbin", ".lock", ".key"))
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

std::string file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// Issue 15, item 8: an entry whose binary was replaced by junk, with its checksum recomputed,
// crashed PoCL inside clCreateProgramWithBinary (the binary's header was intact). Entries are
// signed with the cache directory's key: one signed with any other key never reaches the driver.
TEST_F(ProgramCacheTest, AForgedEntryIsRefusedBeforeItsBinaryReachesTheDriver) {
  const auto source = unique_source("forged");
  fresh_context(dir_)->programs().get("p", source);
  const fs::path entry = fresh_context(dir_)->programs().entry_path(source, "");
  std::string bytes = file_bytes(entry);
  ASSERT_GT(bytes.size(), 64u);
  const std::size_t signed_size = bytes.size() - 32;
  for (std::size_t i = signed_size / 2; i < signed_size; ++i) bytes[i] = static_cast<char>(i * 131 + 7);
  const auto forged = rt::hmac_sha256("a key that is not the directory's", bytes.substr(0, signed_size));
  bytes.replace(signed_size, 32, reinterpret_cast<const char*>(forged.data()), 32);
  write_bytes(entry, bytes);

  auto reader = fresh_context(dir_);
  const auto program = reader->programs().get("p", source);
  const auto c = reader->programs().counters();
  EXPECT_EQ(c.corrupt_entries, 1u);
  EXPECT_EQ(c.disk_hits, 0u);
  EXPECT_EQ(c.builds, 1u);
  EXPECT_NO_THROW(program->make_kernel("add_one"));
}

// The key inside an entry names the device, driver, options and source: a signed entry moved to
// another entry's place (as one for another device would be) is refused.
TEST_F(ProgramCacheTest, AnEntryForAnotherKeyIsRefused) {
  const auto source = unique_source("moved"), other = unique_source("moved-other");
  auto writer = fresh_context(dir_);
  writer->programs().get("p", source);
  fs::copy_file(writer->programs().entry_path(source, ""), writer->programs().entry_path(other, "-DX=1"));
  auto reader = fresh_context(dir_);
  reader->programs().get("p", other, "-DX=1");
  const auto c = reader->programs().counters();
  EXPECT_EQ(c.corrupt_entries, 1u);
  EXPECT_EQ(c.disk_hits, 0u);
  EXPECT_EQ(c.builds, 1u);
}

TEST_F(ProgramCacheTest, TheSigningKeyIsPrivateToItsOwner) {
  fresh_context(dir_)->programs().get("p", unique_source("key"));
  const auto permissions = fs::status(dir_ / "signing.key").permissions();
  EXPECT_EQ(permissions & (fs::perms::group_all | fs::perms::others_all), fs::perms::none);
  EXPECT_EQ(fs::file_size(dir_ / "signing.key"), 32u);
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

TEST_F(ProgramCacheTest, TheLockFileNamesTheProcessHoldingIt) {
  auto ctx = fresh_context(dir_);
  const auto source = unique_source("holder");
  ctx->programs().get("p", source);
  std::ifstream lock(lock_file_of(*ctx, source));
  std::string line;
  std::getline(lock, line);
  EXPECT_EQ(line, std::to_string(::getpid()) + " " + program_invocation_short_name);
}

// Issue 15, item 6: a stopped process holding an entry's lock made every other process that
// needed the program wait forever.
TEST_F(ProgramCacheTest, AStoppedProcessHoldingTheLockIsNotWaitedFor) {
  auto ctx = fresh_context(dir_);
  const auto source = unique_source("stopped");
  const fs::path lock = lock_file_of(*ctx, source);
  lock_holding_process holder(lock, /*stopped=*/true);
  ::testing::internal::CaptureStderr();
  const auto program = get_within_a_minute(*ctx, source, holder);
  const std::string warnings = ::testing::internal::GetCapturedStderr();

  EXPECT_THAT(warnings, HasSubstr(lock.string()));
  EXPECT_THAT(warnings, HasSubstr("held by process " + std::to_string(holder.pid()) + " test-holder (stopped)"));
  EXPECT_THAT(warnings, HasSubstr("building 'p' without the disk cache"));
  const auto c = ctx->programs().counters();
  EXPECT_EQ(c.lock_timeouts, 1u);
  EXPECT_EQ(c.builds, 1u);
  EXPECT_EQ(c.disk_writes, 0u) << "written without holding the lock";
  // The program works all the same.
  auto k = program->make_kernel("add_one");
  const auto host = tessera::testing::random_values<float>(5);
  rt::matrix<float> x(host, 5, 1, rt::matrix_view::entire, *ctx);
  k.launch(*ctx, rt::launch_range::one_d(5), x);
  const auto out = x.to_host();
  for (std::size_t i = 0; i < host.size(); ++i) EXPECT_FLOAT_EQ(out[i], host[i] + 1.0f);
}

TEST_F(ProgramCacheTest, ARunningHolderIsWaitedForAtMostTheTimeout) {
  ::setenv("TESSERA_CACHE_LOCK_TIMEOUT", "0.3", 1);
  auto ctx = fresh_context(dir_);
  ::unsetenv("TESSERA_CACHE_LOCK_TIMEOUT");
  const auto source = unique_source("slow");
  lock_holding_process holder(lock_file_of(*ctx, source), /*stopped=*/false);
  ::testing::internal::CaptureStderr();
  get_within_a_minute(*ctx, source, holder);
  const std::string warnings = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(warnings, HasSubstr("held by process " + std::to_string(holder.pid()) + " test-holder (waited"));
  EXPECT_EQ(ctx->programs().counters().lock_timeouts, 1u);
  // Once the holder is gone, the entry is written as usual.
  holder.end();
  auto next = fresh_context(dir_);
  next->programs().get("p", source);
  EXPECT_EQ(next->programs().counters().disk_writes, 1u);
}

// The lock file names its last writer; a process that has just taken the lock has not written
// itself yet. A stopped process named there (the previous holder, stopped by LeakSanitizer's
// exit-time ptrace in CI) that holds no lock on the file is not given up on.
TEST_F(ProgramCacheTest, AStoppedProcessNamedByAStaleLockFileIsNotTakenForTheHolder) {
  ::setenv("TESSERA_CACHE_LOCK_TIMEOUT", "0.3", 1);
  auto ctx = fresh_context(dir_);
  ::unsetenv("TESSERA_CACHE_LOCK_TIMEOUT");
  const auto source = unique_source("stale");
  const fs::path lock = lock_file_of(*ctx, source);
  lock_holding_process stopped_elsewhere(dir_ / "another-entry.lock", /*stopped=*/true);
  lock_holding_process holder(lock, /*stopped=*/false);
  // The holder writes itself just after taking the lock: let it, then put the stale name back.
  const auto file_text = [&] {
    std::ifstream in(lock);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  while (file_text().rfind(std::to_string(holder.pid()) + " ", 0) != 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  {
    std::ofstream stale(lock, std::ios::trunc);
    stale << stopped_elsewhere.pid() << " test-holder\n";
  }
  ::testing::internal::CaptureStderr();
  get_within_a_minute(*ctx, source, holder);
  const std::string warnings = ::testing::internal::GetCapturedStderr();
  // Waited the whole timeout for the running holder, not given up at once on the stopped one.
  EXPECT_THAT(warnings, HasSubstr("held by process " + std::to_string(stopped_elsewhere.pid()) +
                                  " test-holder (waited"));
  EXPECT_THAT(warnings, ::testing::Not(HasSubstr("(stopped)")));
  EXPECT_EQ(ctx->programs().counters().lock_timeouts, 1u);
}

TEST(ProgramCacheEnvironment, ALockTimeoutThatIsNotANumberIsNamed) {
  ::setenv("TESSERA_CACHE_LOCK_TIMEOUT", "ten", 1);
  try {
    rt::context ctx(rt::context::get().device(), fs::temp_directory_path());
    ADD_FAILURE() << "no error";
  } catch (const rt::argument_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("TESSERA_CACHE_LOCK_TIMEOUT='ten'"));
  }
  ::unsetenv("TESSERA_CACHE_LOCK_TIMEOUT");
}
