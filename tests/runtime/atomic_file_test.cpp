#include <tessera/runtime/atomic_file.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

namespace rt = tessera::runtime;
namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace {

class AtomicFile : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() /
              ("tessera-atomic-" + std::to_string(::getpid()) + "-" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(folder_);
    fs::create_directories(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }

  static std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  // Everything in the folder but the named file: leftover temporary files show here.
  std::vector<std::string> others(const fs::path& keep) const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(folder_))
      if (entry.path() != keep) names.push_back(entry.path().filename().string());
    return names;
  }

  fs::path folder_;
};

TEST_F(AtomicFile, WritesANewFileWithReadableMode) {
  const auto path = folder_ / "out.json";
  rt::write_file_atomically(path, "{\"a\": 1}\n");
  EXPECT_EQ(read(path), "{\"a\": 1}\n");
  const auto perms = fs::status(path).permissions();
  EXPECT_NE(perms & fs::perms::group_read, fs::perms::none) << "mkstemp's 0600 was not widened";
  EXPECT_TRUE(others(path).empty());
}

TEST_F(AtomicFile, ReplacesAnExistingFileWhole) {
  const auto path = folder_ / "out.json";
  rt::write_file_atomically(path, std::string(100000, 'x'));
  rt::write_file_atomically(path, "short");
  EXPECT_EQ(read(path), "short");
  EXPECT_TRUE(others(path).empty());
}

TEST_F(AtomicFile, AMissingFolderIsAnErrorNamingThePath) {
  const auto path = folder_ / "missing" / "out.json";
  try {
    rt::write_file_atomically(path, "x");
    FAIL() << "expected file_error";
  } catch (const rt::file_error& e) {
    EXPECT_EQ(e.path(), path);
    EXPECT_THAT(e.what(), HasSubstr(path.string()));
    EXPECT_THAT(e.what(), HasSubstr("folder does not exist"));
  }
}

TEST_F(AtomicFile, ADirectoryIsNotOverwritten) {
  EXPECT_THROW(rt::write_file_atomically(folder_, "x"), rt::file_error);
  EXPECT_TRUE(fs::is_directory(folder_));
}

TEST_F(AtomicFile, ADeviceFileIsRefusedAndLeftInPlace) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  try {
    rt::write_file_atomically("/dev/full", "x");
    FAIL() << "expected file_error";
  } catch (const rt::file_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("/dev/full"));
  }
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
}

TEST_F(AtomicFile, AnUnwritableFolderKeepsTheOldFile) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores folder permissions";
  const auto path = folder_ / "out.json";
  rt::write_file_atomically(path, "old");
  fs::permissions(folder_, fs::perms::owner_read | fs::perms::owner_exec);
  EXPECT_THROW(rt::write_file_atomically(path, "new"), rt::file_error);
  fs::permissions(folder_, fs::perms::owner_all);
  EXPECT_EQ(read(path), "old");
}

TEST_F(AtomicFile, CheckWritableLeavesAnExistingFileAndNoProbeBehind) {
  const auto path = folder_ / "out.json";
  rt::write_file_atomically(path, "old");
  rt::check_writable(path);
  rt::check_writable(folder_ / "new.json");
  EXPECT_EQ(read(path), "old");
  EXPECT_TRUE(others(path).empty()) << "neither new.json nor a probe file may be left";
}

TEST_F(AtomicFile, CheckWritableRefusesWhatAWriteWouldRefuseNamingThePath) {
  const auto missing = folder_ / "missing" / "out.json";
  try {
    rt::check_writable(missing);
    FAIL() << "expected file_error";
  } catch (const rt::file_error& e) {
    EXPECT_EQ(e.path(), missing);
    EXPECT_THAT(e.what(), HasSubstr("folder does not exist"));
  }
  EXPECT_THROW(rt::check_writable(folder_), rt::file_error);
  if (fs::exists("/dev/full")) {
    EXPECT_THROW(rt::check_writable("/dev/full"), rt::file_error);
  }
}

}  // namespace
