#pragma once
// Running tessera-tile in a fresh folder per test: the fixture of the command-line tests.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

namespace tessera::tile {

namespace fs = std::filesystem;

struct cli_result {
  int status;  // the exit status; -1 when killed by a signal
  std::string out, err;
};

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           fmt::format("tessera-tile-cli-{}-{}", ::getpid(), ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path file(const std::string& name, const std::string& contents) {
    std::ofstream(dir_ / name, std::ios::binary) << contents;
    return dir_ / name;
  }
  static std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  cli_result run(const std::string& arguments) { return run_with("", arguments); }
  /// The command run after shell commands `before` (a ulimit, a trap) in the test's folder.
  cli_result run_with(const std::string& before, const std::string& arguments) {
    const std::string command = fmt::format("cd '{}' && ({} exec '{}' {}) > out.txt 2> err.txt", dir_.string(),
                                            before.empty() ? "" : before + ";", TESSERA_TILE_CLI, arguments);
    const int status = std::system(command.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir_ / "out.txt"), slurp(dir_ / "err.txt")};
  }

  fs::path dir_;
};

}  // namespace tessera::tile
