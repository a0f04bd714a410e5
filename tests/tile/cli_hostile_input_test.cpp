// tessera-tile given what a hostile but realistic user gives it (issue 15): outputs it cannot
// write, a full disk, interrupted runs, malformed .npy files, bytes that are not UTF-8, numbers
// out of range and huge sizes. Each ends with a message naming the problem, a non-zero exit,
// and no earlier output destroyed.
#include <gmock/gmock.h>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <thread>

#include <sys/stat.h>

#include "tile_cli.hpp"
#include "tile_testing.hpp"

#include <tessera/tile/npy.hpp>

namespace tessera::tile {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

const char* const matmul = "function (A[M, L], B[L, N]) -> (C) {\n  C[i, j: M, N] = +(A[i, k] * B[k, j]);\n}\n";

class CliHostileInput : public Cli {
 protected:
  void SetUp() override {
    Cli::SetUp();
    file("mm.tile", matmul);
    const auto a = testing::random_tensor<double>({40, 30}), b = testing::random_tensor<double>({30, 40});
    write_npy(dir_ / "a.npy", a.dims, a.values, element_type::float64);
    write_npy(dir_ / "b.npy", b.dims, b.values, element_type::float64);
    // An earlier result that a failed run must leave as it was.
    write_npy(dir_ / "c.npy", {2}, {1.5, -2.5}, element_type::float64);
    earlier_ = slurp_bytes(dir_ / "c.npy");
  }
  static std::string slurp_bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  void expect_earlier_output_intact() {
    EXPECT_EQ(slurp_bytes(dir_ / "c.npy"), earlier_) << "the earlier c.npy was changed";
    for (const auto& entry : fs::directory_iterator(dir_))
      EXPECT_THAT(entry.path().filename().string(), Not(HasSubstr(".tmp"))) << "a temporary file was left behind";
  }
  /// Runs mm.tile with A and B, C written to `out`.
  cli_result run_to(const std::string& out, const std::string& before = "", const std::string& extra = "") {
    return run_with(before, "run mm.tile --in A=a.npy --in B=b.npy --out C=" + out + " " + extra);
  }

  std::string earlier_;
};

TEST_F(CliHostileInput, AnOutputInAMissingFolderFailsBeforeTheRun) {
  const auto r = run_to("missing/c.npy");
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.err, HasSubstr("missing/c.npy: its folder does not exist"));
  EXPECT_THAT(r.out, Not(HasSubstr("written")));
  EXPECT_FALSE(fs::exists(dir_ / "missing"));
}

TEST_F(CliHostileInput, AnOutputThatIsADirectoryIsRefused) {
  fs::create_directory(dir_ / "folder.npy");
  const auto r = run_to("folder.npy");
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.err, HasSubstr("folder.npy: is a directory"));
  EXPECT_TRUE(fs::is_directory(dir_ / "folder.npy"));
}

TEST_F(CliHostileInput, DevFullIsRefusedAndLeftAlone) {
  const auto r = run_to("/dev/full");
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.err, HasSubstr("/dev/full: exists and is not a regular file"));
  struct stat st {};
  ASSERT_EQ(::stat("/dev/full", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/full was replaced";
}

// A full disk, without root: a file size limit (ulimit -f, SIGXFSZ ignored) makes write() fail
// part-way through the file as ENOSPC does (here with EFBIG). Mounting a small filesystem would
// need root or user namespaces, which CI lacks. --reference: the driver writes files of its own.
TEST_F(CliHostileInput, AFullDiskLeavesTheEarlierOutputIntact) {
  const auto r = run_to("c.npy", "trap '' XFSZ; ulimit -f 4", "--reference");  // 4 KiB; C takes 12.9 KB
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.err, AllOf(HasSubstr("c.npy: cannot write"), HasSubstr("File too large")));
  EXPECT_THAT(r.out, Not(HasSubstr("written")));
  expect_earlier_output_intact();
}

TEST_F(CliHostileInput, AnInterruptedRunLeavesTheEarlierOutputOrTheWholeNewOne) {
  // A contraction long enough in the reference interpreter to be interrupted while it runs.
  const auto big = testing::random_tensor<double>({400, 400});  // about a second of interpreting
  write_npy(dir_ / "big.npy", big.dims, big.values, element_type::float64);
  for (const int signal : {SIGINT, SIGTERM}) {
    const std::string command =
        fmt::format("cd '{}' && exec '{}' run mm.tile --in A=big.npy --in B=big.npy --out C=c.npy --reference "
                    "> out.txt 2> err.txt",
                    dir_.string(), TESSERA_TILE_CLI);
    const pid_t child = ::fork();
    if (child == 0) {
      ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ::kill(child, signal);
    int status = 0;
    ::waitpid(child, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      // It finished first: then the new output is whole.
      EXPECT_EQ(read_npy(dir_ / "c.npy").dims, (shape{400, 400}));
      write_npy(dir_ / "c.npy", {2}, {1.5, -2.5}, element_type::float64);
    } else {
      EXPECT_TRUE(WIFSIGNALED(status) || WEXITSTATUS(status) != 0);
      expect_earlier_output_intact();
    }
  }
}

TEST_F(CliHostileInput, MalformedNpyInputsAreNamedWithTheReason) {
  const auto header = [](const std::string& dict) {
    std::string h = dict;
    h.append((64 - (10 + h.size() + 1) % 64) % 64, ' ');
    h += '\n';
    std::string out("\x93NUMPY\x01\x00", 8);
    out += static_cast<char>(h.size() & 0xff);
    out += static_cast<char>(h.size() >> 8);
    return out + h;
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"not a numpy file at all\n", "not a .npy file"},
      {std::string("\x93NUMPY\x01\x00\x40", 9), "not a .npy file"},  // shorter than a header
      {std::string("\x93NUMPY\x09\x00", 8) + std::string(64, ' '), "unsupported .npy format version 9"},
      {std::string("\x93NUMPY\x01\x00\xff\x00", 10) + "{'descr': '<f8'", "truncated header"},
      {header("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }") + std::string(8, '\1'),
       "element type '<i4' is not supported"},
      {header("{'descr': '>f8', 'fortran_order': False, 'shape': (2,), }") + std::string(16, '\1'),
       "element type '>f8' is not supported"},
      {header("{'descr': '<f8', 'fortran_order': Maybe, 'shape': (2,), }") + std::string(16, '\1'),
       "bad fortran_order 'Maybe'"},
      {header("{'descr': '<f8', 'fortran_order': False, 'shape': (two,), }") + std::string(16, '\1'), "bad shape"},
      {header("{'descr': '<f8', 'fortran_order': False, 'shape': (-2,), }") + std::string(16, '\1'), "bad shape"},
      {header("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }") + std::string(16, '\1'),
       "needs 24 bytes of data, the file has 16"},
      {header("{'descr': '<f8', 'fortran_order': False, 'shape': (3000000000, 3000000000), }"),
       "needs 9000000000000000000 elements"},
      {header("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,), }"), "is too large"},
      {header("{'descr': '<f8', 'fortran_order': False, 'shape': (4000000000, 4000000000, 4000000000), }"),
       "is too large"},
      {header("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), \xff\xfe }") + std::string(16, '\1'), ""},
  };
  for (const auto& [bytes, reason] : cases) {
    SCOPED_TRACE(reason);
    file("bad.npy", bytes);
    const auto r = run("run mm.tile --in A=bad.npy --in B=b.npy --out C=c.npy");
    if (reason.empty()) {
      EXPECT_THAT(r.status, ::testing::AnyOf(0, 1)) << "a crash: " << r.err;  // the \xff bytes are outside the values read
    } else {
      EXPECT_EQ(r.status, 1) << r.err;
      EXPECT_THAT(r.err, AllOf(HasSubstr("bad.npy"), HasSubstr(reason)));
    }
  }
  fs::create_directory(dir_ / "dir.npy");
  EXPECT_THAT(run("run mm.tile --in A=dir.npy --in B=b.npy").err, HasSubstr("dir.npy: is a directory"));
  expect_earlier_output_intact();
}

TEST_F(CliHostileInput, BytesThatAreNotUtf8AreASyntaxErrorAtTheirPosition) {
  file("latin1.tile", "function (A) -> (O) {\n  O = A * \xe9;\n}\n");
  const auto r = run("check latin1.tile");
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.err, HasSubstr("latin1.tile:2:11: unexpected byte 0xe9"));
  file("binary.tile", std::string("\x7f" "ELF\x02\x01\x01\0\0\0", 10));
  EXPECT_EQ(run("check binary.tile").status, 1);
}

TEST_F(CliHostileInput, NumbersOutOfRangeAreNamed) {
  file("big_int.tile", "function (A[N]) -> (O) { O[i: 99999999999999999999] = +(A[i]); }");
  auto r = run("check big_int.tile");
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.err, HasSubstr("big_int.tile:1:"));
  file("big_float.tile", "function (A) -> (O) { O = A * 1e99999; }");
  r = run("check big_float.tile");
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.err, HasSubstr("big_float.tile:1:"));
}

TEST_F(CliHostileInput, HugeSizesAreRefusedWithAMessage) {
  file("huge.tile", "function (A[N]) -> (O) { O[i, j, k: N * 1000000, N * 1000000, N] = +(A[k]); }");
  write_npy(dir_ / "v.npy", {40}, testing::random_tensor<double>({40}).values, element_type::float64);
  for (const std::string mode : {"", "--reference"}) {
    SCOPED_TRACE(mode);
    const auto r = run("run huge.tile --in A=v.npy --out O=c.npy " + mode);
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_THAT(r.err, Not(HasSubstr("bad_alloc")));
    EXPECT_THAT(r.err, ::testing::ContainsRegex("huge.tile:1:[0-9]+: |tessera-tile: "));
  }
  expect_earlier_output_intact();
}

TEST_F(CliHostileInput, AFullStandardOutputIsAnError) {
  const auto r = run_with("", "emit mm.tile --in A=a.npy --in B=b.npy > /dev/full");
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.err, HasSubstr("standard output"));
}

}  // namespace
}  // namespace tessera::tile
