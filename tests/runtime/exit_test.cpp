// A program that returns from main with work still queued must exit cleanly (issue 15, item 1).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>

#include <sys/wait.h>

namespace {

struct probe_result {
  int status = 0;
  std::string output;
};

probe_result run_exit_probe(int run) {
  // Caches off: each run's source is new to tessera and to PoCL, so the driver compiles it.
  const std::string command = "TESSERA_CACHE=off POCL_KERNEL_CACHE=0 '" TESSERA_EXIT_PROBE "' " +
                              std::to_string(run) + " 2>&1";
  probe_result result;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return {-1, "popen failed"};
  std::array<char, 256> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe)) result.output += buffer.data();
  result.status = ::pclose(pipe);
  return result;
}

std::string describe(int status) {
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  return "wait status " + std::to_string(status);
}

}  // namespace

// Before the fix every run crashed (SIGSEGV or SIGABRT, "Failed to create kernel compiler
// pass"): exit destroyed LLVM's statics while PoCL's threads compiled the queued kernels.
TEST(runtime_exit, returning_from_main_with_work_queued_exits_cleanly) {
  for (int run = 0; run < 2; ++run) {
    const probe_result r = run_exit_probe(run);
    EXPECT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0)
        << "run " << run << ": " << describe(r.status) << "\n" << r.output;
  }
}
