// tessera-tile, the command line: check, run on .npy files, emit kernels, report errors.
#include <gmock/gmock.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tile_cli.hpp"
#include "tile_testing.hpp"

#include <tessera/tile/npy.hpp>

namespace tessera::tile {
namespace {

using ::testing::HasSubstr;

const char* matmul = "function (A[M, L], B[L, N]) -> (C) {\n  C[i, j: M, N] = +(A[i, k] * B[k, j]);\n}\n";

TEST_F(Cli, CheckAcceptsAValidProgram) {
  file("mm.tile", matmul);
  const auto r = run("check mm.tile");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("mm.tile: ok"));
}

TEST_F(Cli, CheckReportsFileLineAndColumn) {
  file("bad.tile", "function (A) -> (O) {\n  O = A + B;\n}\n");
  const auto r = run("check bad.tile");
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.err, HasSubstr("bad.tile:2:11: undefined tensor 'B'"));
}

TEST_F(Cli, RunReadsAndWritesNpyInBothPrecisions) {
  file("mm.tile", matmul);
  for (const auto type : {element_type::float32, element_type::float64}) {
    const auto a = testing::random_tensor<double>({5, 3}), b = testing::random_tensor<double>({3, 4});
    write_npy(dir_ / "a.npy", a.dims, a.values, type);
    write_npy(dir_ / "b.npy", b.dims, b.values, type);
    const auto r = run("run mm.tile --in A=a.npy --in B=b.npy --out C=c.npy");
    ASSERT_EQ(r.status, 0) << r.err;
    const npy_array c = read_npy(dir_ / "c.npy");
    EXPECT_EQ(c.type, type);
    ASSERT_EQ(c.dims, (shape{5, 4}));
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 4; ++j) {
        double e = 0;
        for (int k = 0; k < 3; ++k) {
          const double x = a.values[i * 3 + k], y = b.values[k * 4 + j];
          e += type == element_type::float32 ? double(float(x)) * double(float(y)) : x * y;
        }
        EXPECT_NEAR(c.values[i * 4 + j], e, type == element_type::float32 ? 1e-5 : 1e-12);
      }
  }
}

TEST_F(Cli, ReferenceInterpreterGivesTheSameFile) {
  file("pool.tile", "function (I[N]) -> (O) { O[i: (N + 1) / 2] = >(I[2 * i + j]), j < 2; }");
  const auto in = testing::random_tensor<double>({9});
  write_npy(dir_ / "i.npy", in.dims, in.values, element_type::float64);
  ASSERT_EQ(run("run pool.tile --in I=i.npy --out O=device.npy").status, 0);
  ASSERT_EQ(run("run pool.tile --in I=i.npy --out O=host.npy --reference").status, 0);
  EXPECT_EQ(read_npy(dir_ / "device.npy").values, read_npy(dir_ / "host.npy").values);
}

TEST_F(Cli, EmitOpenclPrintsTheKernels) {
  file("mm.tile", matmul);
  const auto a = testing::random_tensor<double>({5, 3});
  write_npy(dir_ / "a.npy", a.dims, a.values, element_type::float32);
  write_npy(dir_ / "b.npy", {3, 2}, std::vector<double>(6, 1.0), element_type::float32);
  const auto r = run("run mm.tile --in A=a.npy --in B=b.npy --emit opencl");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("kernel void tile_contraction_0_C("));
  EXPECT_THAT(r.out, HasSubstr("dispatched to GEMM"));
  const auto e = run("emit mm.tile --in A=a.npy --in B=b.npy");
  EXPECT_EQ(e.status, 0);
  EXPECT_THAT(e.out, HasSubstr("kernel void"));
}

TEST_F(Cli, ShapeErrorsNameTheSource) {
  file("mm.tile", matmul);
  write_npy(dir_ / "a.npy", {2, 3}, std::vector<double>(6, 1.0), element_type::float32);
  write_npy(dir_ / "b.npy", {4, 2}, std::vector<double>(8, 1.0), element_type::float32);
  const auto r = run("run mm.tile --in A=a.npy --in B=b.npy --out C=c.npy");
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.err, HasSubstr("mm.tile:1:22: dimension 'L' is 3"));
}

TEST_F(Cli, MissingOrUnknownInputsAreUsageErrors) {
  file("mm.tile", matmul);
  write_npy(dir_ / "a.npy", {2, 3}, std::vector<double>(6, 1.0), element_type::float32);
  EXPECT_THAT(run("run mm.tile --in A=a.npy").err, HasSubstr("input 'B' needs --in B=FILE.npy"));
  EXPECT_THAT(run("run mm.tile --in A=a.npy --in B=a.npy --in Q=a.npy").err, HasSubstr("no input named 'Q'"));
  EXPECT_THAT(run("run mm.tile --in A=a.npy --in B=missing.npy").err, HasSubstr("missing.npy: cannot open"));
}

}  // namespace
}  // namespace tessera::tile
