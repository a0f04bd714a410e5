#include <tessera/codegen/kernel_builder.hpp>
#include <tessera/runtime/context.hpp>
#include <tessera/runtime/error.hpp>
#include <tessera/runtime/matrix.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/test_data.hpp"

namespace cg = tessera::codegen;
namespace rt = tessera::runtime;
using ::testing::HasSubstr;

TEST(KernelBuilder, NamesAreUniquePerPrefix) {
  cg::kernel_builder b("k");
  EXPECT_EQ(b.fresh_name("v"), "v1");
  EXPECT_EQ(b.fresh_name("v"), "v2");
  EXPECT_EQ(b.fresh_name("acc"), "acc1");
}

TEST(KernelBuilder, WritesAKernelWithHelpersOnceAndBlocks) {
  cg::kernel_builder b("scale");
  b.add_helper("square", "float square(float x) { return x * x; }");
  b.add_helper("square", "float square(float x) { return x * x; }");
  const auto x = b.add_pointer_parameter<float>("x", false);
  const auto n = b.add_scalar_parameter<int>("n");
  b.declare("int", "i", "get_global_id(0)");
  b.open_block("if (i < " + n + ")");
  b.assign(x + "[i]", "square(" + x + "[i])");
  b.close_block();
  EXPECT_EQ(b.source(),
            "float square(float x) { return x * x; }\n"
            "\n"
            "kernel void scale(\n"
            "    global float* x,\n"
            "    int n) {\n"
            "  int i = get_global_id(0);\n"
            "  if (i < n) {\n"
            "    x[i] = square(x[i]);\n"
            "  }\n"
            "}\n");
}

TEST(KernelBuilder, DoubleEnablesFp64) {
  cg::kernel_builder b("k");
  b.add_scalar_parameter<double>("alpha");
  EXPECT_THAT(b.source(), HasSubstr("#pragma OPENCL EXTENSION cl_khr_fp64 : enable"));
}

TEST(KernelBuilder, UnclosedBlocksAreAnError) {
  cg::kernel_builder b("k");
  b.open_block("if (1)");
  EXPECT_THROW(b.source(), tessera::error);
  b.close_block();
  EXPECT_THROW(b.close_block(), tessera::error);
}

TEST(KernelBuilder, FloatLiteralsRoundTrip) {
  EXPECT_EQ(cg::float_literal(0.5, true), "0.5f");
  EXPECT_EQ(cg::float_literal(2.0, false), "2.0");
  EXPECT_EQ(cg::float_literal(-3.0, true), "(-3.0f)");
  EXPECT_EQ(std::stod(cg::float_literal(0.1, false)), 0.1);
}

TEST(KernelBuilder, ItsKernelsBuildAndRun) {
  cg::kernel_builder b("affine");
  const auto y = b.add_pointer_parameter<float>("y", false);
  const auto x = b.add_pointer_parameter<float>("x", true);
  b.declare("int", "i", "get_global_id(0)");
  b.assign(y + "[i]", cg::float_literal(1.5, true) + " * " + x + "[i] + " + cg::float_literal(-0.25, true));
  auto& ctx = rt::context::get();
  auto k = ctx.programs().get("affine", b.source())->make_kernel("affine");
  const auto host = tessera::testing::random_values<float>(37);
  rt::matrix<float> dx(host, 37, 1), dy(37, 1);
  k.launch(ctx, rt::launch_range::one_d(37), dy, dx);
  const auto out = dy.to_host();
  for (int i = 0; i < 37; ++i) EXPECT_NEAR(out[i], 1.5f * host[i] - 0.25f, 1e-6f);
}
