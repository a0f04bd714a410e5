// The event of a call with several commands covers them all, for waiting and for profiling
// (issue 15, item 3).
#include <tessera/runtime/context.hpp>
#include <tessera/runtime/covering_event.hpp>
#include <tessera/runtime/kernel.hpp>
#include <tessera/runtime/matrix.hpp>

#include <gtest/gtest.h>

#include "support/test_data.hpp"

namespace rt = tessera::runtime;

namespace {

const char* const scale_source =
    "kernel void scale(global float* x, float by) { x[get_global_id(0)] *= by; }\n";

std::uint64_t profiling_time(const cl::Event& event, cl_profiling_info what) {
  EXPECT_EQ(event.wait(), CL_SUCCESS);  // a marker may complete before the driver records its predecessor's end
  cl_ulong value = 0;
  EXPECT_EQ(event.getProfilingInfo(what, &value), CL_SUCCESS);
  return value;
}

class covering_event : public ::testing::Test {
 protected:
  rt::context& ctx = rt::context::get();
  rt::kernel scale = ctx.programs().get("scale", scale_source)->make_kernel("scale");
  std::vector<float> host = tessera::testing::random_values<float>(4099);
  rt::matrix<float> x{host, 4099, 1};
  cl::Event launch() { return scale.launch(ctx, rt::launch_range::one_d(4099), x, 1.5f); }
};

TEST_F(covering_event, is_profiled_from_the_first_commands_start_to_the_last_ones_end) {
  const cl::Event first = launch(), last = launch();
  const cl::Event covering = rt::covering_event(ctx, first);
  const rt::device_interval span = rt::profiled_interval(covering);
  EXPECT_EQ(span.start_ns, profiling_time(first, CL_PROFILING_COMMAND_START));
  EXPECT_GE(span.end_ns, profiling_time(last, CL_PROFILING_COMMAND_END));
  // The queue is in order, so the span holds both commands' whole run times.
  const auto run_time = [](const cl::Event& e) {
    return profiling_time(e, CL_PROFILING_COMMAND_END) - profiling_time(e, CL_PROFILING_COMMAND_START);
  };
  EXPECT_GE(span.end_ns - span.start_ns, run_time(first) + run_time(last));
  EXPECT_DOUBLE_EQ(rt::elapsed_seconds(covering), static_cast<double>(span.end_ns - span.start_ns) * 1e-9);
}

TEST_F(covering_event, covering_a_covering_event_starts_at_the_first_command) {
  const cl::Event first = launch();
  const cl::Event inner = rt::covering_event(ctx, first);
  launch();
  const cl::Event outer = rt::covering_event(ctx, inner);
  EXPECT_EQ(rt::first_command(outer)(), first());
  EXPECT_EQ(rt::profiled_interval(outer).start_ns, profiling_time(first, CL_PROFILING_COMMAND_START));
}

TEST_F(covering_event, a_start_marker_stands_for_commands_enqueued_by_nested_calls) {
  const cl::Event start = rt::start_marker(ctx);
  const cl::Event nested = launch();
  const cl::Event covering = rt::covering_event(ctx, start);
  EXPECT_LE(rt::profiled_interval(covering).start_ns, profiling_time(nested, CL_PROFILING_COMMAND_START));
}

TEST_F(covering_event, any_other_event_is_its_own_first_command) {
  const cl::Event plain = launch();
  EXPECT_EQ(rt::first_command(plain)(), plain());
  const rt::device_interval span = rt::profiled_interval(plain);
  EXPECT_EQ(span.start_ns, profiling_time(plain, CL_PROFILING_COMMAND_START));
  EXPECT_EQ(span.end_ns, profiling_time(plain, CL_PROFILING_COMMAND_END));
}

}  // namespace
