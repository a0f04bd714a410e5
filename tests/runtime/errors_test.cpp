#include <tessera/runtime/context.hpp>
#include <tessera/runtime/error.hpp>
#include <tessera/runtime/matrix.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/test_data.hpp"

namespace rt = tessera::runtime;
using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(OpenclErrors, StatusCodesHaveTheirNames) {
  EXPECT_EQ(rt::cl_error_name(-5), "CL_OUT_OF_RESOURCES");
  EXPECT_EQ(rt::cl_error_name(CL_INVALID_KERNEL_ARGS), "CL_INVALID_KERNEL_ARGS");
  EXPECT_EQ(rt::cl_error_name(-9999), "unknown OpenCL status");
  const rt::opencl_error e("clEnqueueNDRangeKernel", -5);
  EXPECT_STREQ(e.what(), "clEnqueueNDRangeKernel failed: CL_OUT_OF_RESOURCES (-5)");
}

TEST(OpenclErrors, AFailedCallNamesTheCallAndTheStatus) {
  auto& ctx = rt::context::get();
  auto program = ctx.programs().get("two_args", "kernel void two_args(global float* x, int n) { if (n > 0) x[0] = n; }");
  auto k = program->make_kernel("two_args");
  rt::matrix<float> x(tessera::testing::random_values<float>(4), 4, 1);
  // One argument of two: the driver refuses the launch.
  try {
    k.launch(ctx, rt::launch_range::one_d(4), x);
    FAIL() << "expected opencl_error";
  } catch (const rt::opencl_error& e) {
    EXPECT_EQ(e.call(), "clEnqueueNDRangeKernel");
    EXPECT_EQ(e.code(), CL_INVALID_KERNEL_ARGS);
    EXPECT_THAT(e.what(), AllOf(HasSubstr("CL_INVALID_KERNEL_ARGS"), HasSubstr("two_args")));
  }
}

TEST(OpenclErrors, AMissingKernelNameIsNamed) {
  auto& ctx = rt::context::get();
  auto program = ctx.programs().get("has_one", "kernel void present(global int* x) { x[0] = 1; }");
  try {
    program->make_kernel("absent");
    FAIL();
  } catch (const rt::opencl_error& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("CL_INVALID_KERNEL_NAME"), HasSubstr("'absent'"), HasSubstr("has_one")));
  }
}

TEST(BuildErrors, CarryTheBuildLogAndTheProgramName) {
  auto& ctx = rt::context::get();
  try {
    ctx.programs().get("broken_kernel", "kernel void broken(global float* x) { x[0] = undeclared_name; }");
    FAIL() << "expected build_error";
  } catch (const rt::build_error& e) {
    EXPECT_EQ(e.program_name(), "broken_kernel");
    EXPECT_THAT(e.build_log(), HasSubstr("undeclared_name"));
    EXPECT_THAT(e.what(), AllOf(HasSubstr("broken_kernel"), HasSubstr("undeclared_name")));
  }
}

TEST(BuildErrors, AreNotCachedAsSuccesses) {
  auto& ctx = rt::context::get();
  const std::string bad = "kernel void again(global float* x) { x[0] = still_undeclared; }";
  EXPECT_THROW(ctx.programs().get("again", bad), rt::build_error);
  EXPECT_THROW(ctx.programs().get("again", bad), rt::build_error);
}
