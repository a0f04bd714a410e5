// tessera-info given bad devices, unusable cache folders and outputs it cannot write (issue 15):
// a message naming where the bad value came from, and the right exit status.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

struct info_result {
  int status;
  std::string out, err;
};

class TesseraInfo : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt::format("tessera-info-{}-{}", ::getpid(),
                                                   ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  static std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  /// tessera-info with arguments, after the environment assignments `environment`.
  info_result run(const std::string& environment, const std::string& arguments) {
    const std::string command =
        fmt::format("cd '{}' && (exec env -u TESSERA_DEVICE {} '{}' {}) > out.txt 2> err.txt", dir_.string(),
                    environment, TESSERA_INFO_CLI, arguments);
    const int status = std::system(command.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir_ / "out.txt"), slurp(dir_ / "err.txt")};
  }
  fs::path dir_;
};

TEST_F(TesseraInfo, ListsTheDevicesAndMarksTheSelectedOne) {
  const auto r = run("", "");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, AllOf(HasSubstr("platform 0:"), HasSubstr("* selected (TESSERA_DEVICE='')")));
}

// Issue 15, item 8: errors blamed TESSERA_DEVICE for a bad --device.
TEST_F(TesseraInfo, ABadDeviceOptionIsNamedAsTheOption) {
  const auto r = run("", "--device no-such-device");
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.err, AllOf(HasSubstr("--device='no-such-device'"), HasSubstr("devices found:")));
  EXPECT_THAT(r.err, Not(HasSubstr("TESSERA_DEVICE")));
}

TEST_F(TesseraInfo, ABadTesseraDeviceIsNamedAsTheVariable) {
  const auto r = run("TESSERA_DEVICE=no-such-device", "");
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.err, HasSubstr("TESSERA_DEVICE='no-such-device'"));
}

TEST_F(TesseraInfo, TheOptionWinsOverTheVariable) {
  const auto r = run("TESSERA_DEVICE=no-such-device", "--device 0:0");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("* selected (--device='0:0')"));
}

TEST_F(TesseraInfo, OutOfRangeAndNonNumericDevicesAreRefused) {
  EXPECT_THAT(run("", "--device 99:99").err, HasSubstr("--device='99:99': there is no device 99:99"));
  EXPECT_THAT(run("", "--device 99999999999999999999999:0").err, HasSubstr("no device name contains it"));
  EXPECT_THAT(run("", "--device x:y").err, HasSubstr("no device name contains it"));
  const auto latin1 = run("", "--device \"$(printf '\\351')\"");  // a Latin-1 byte, not UTF-8
  EXPECT_EQ(latin1.status, 1);
  EXPECT_THAT(latin1.err, HasSubstr("--device="));
  EXPECT_NE(run("", "--no-such-option").status, 0);
}

// Issue 15, item 8: an unusable cache folder was not mentioned; every run then rebuilds.
TEST_F(TesseraInfo, AnUnusableCacheFolderIsWarnedAbout) {
  std::ofstream(dir_ / "a-file") << "not a folder";
  auto r = run(fmt::format("TESSERA_CACHE_DIR='{}'", (dir_ / "a-file").string()), "");
  EXPECT_EQ(r.status, 0) << "a warning, not an error";
  EXPECT_THAT(r.err, AllOf(HasSubstr("warning: the kernel cache"), HasSubstr("a-file exists and is not a folder")));
  r = run(fmt::format("TESSERA_CACHE_DIR='{}'", (dir_ / "a-file" / "below").string()), "--json");
  EXPECT_THAT(r.err, HasSubstr("cannot be created: " + (dir_ / "a-file").string() + " is not a folder"));
  EXPECT_THAT(r.out, HasSubstr("\"cache_problem\": \"cannot be created"));
  r = run(fmt::format("TESSERA_CACHE_DIR='{}'", (dir_ / "fresh" / "cache").string()), "");
  EXPECT_THAT(r.err, Not(HasSubstr("warning"))) << "a folder that can be made is usable";
  EXPECT_FALSE(fs::exists(dir_ / "fresh")) << "tessera-info made the folder";
}

TEST_F(TesseraInfo, JsonSaysNullForACacheThatIsOffOrUsable) {
  auto r = run("TESSERA_CACHE=off", "--json");
  EXPECT_EQ(r.status, 0) << r.err;  // aborted on a std::string built from nullptr
  EXPECT_THAT(r.out, AllOf(HasSubstr("\"cache_directory\": null"), HasSubstr("\"cache_problem\": null")));
  r = run(fmt::format("TESSERA_CACHE_DIR='{}'", dir_.string()), "--json");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"cache_problem\": null"));
}

TEST_F(TesseraInfo, AFullStandardOutputIsAnError) {
  for (const std::string arguments : {"> /dev/full", "--json > /dev/full"}) {
    const auto r = run("", arguments);
    EXPECT_EQ(r.status, 1) << arguments;
    EXPECT_THAT(r.err, HasSubstr("tessera-info: cannot write to the standard output"));
  }
}

}  // namespace
