#include <tessera/runtime/device.hpp>
#include <tessera/runtime/error.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>

namespace rt = tessera::runtime;
using ::testing::AllOf;
using ::testing::HasSubstr;

namespace {

rt::device_info fake(std::size_t p, std::size_t d, std::string name, rt::device_type type) {
  rt::device_info info;
  info.platform_index = p;
  info.device_index = d;
  info.name = std::move(name);
  info.platform_name = "Platform " + std::to_string(p);
  info.type = type;
  return info;
}

// Two platforms: a CPU first, then two GPUs, so "first GPU" and "first device" differ.
std::vector<rt::device_info> mixed_devices() {
  return {fake(0, 0, "pthread-skylake-avx512", rt::device_type::cpu),
          fake(1, 0, "NVIDIA H200", rt::device_type::gpu), fake(1, 1, "NVIDIA H100 80GB HBM3", rt::device_type::gpu)};
}

std::string message_of(std::string_view spec, const std::vector<rt::device_info>& devices) {
  try {
    rt::select_device(spec, devices);
  } catch (const rt::device_selection_error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(DeviceSelection, DefaultPrefersTheFirstGpu) {
  auto devices = mixed_devices();
  EXPECT_EQ(rt::select_device("", devices).name, "NVIDIA H200");
}

TEST(DeviceSelection, DefaultFallsBackToTheFirstCpu) {
  std::vector<rt::device_info> devices{fake(0, 0, "accel", rt::device_type::accelerator),
                                       fake(0, 1, "cpu-a", rt::device_type::cpu)};
  EXPECT_EQ(rt::select_device("", devices).name, "cpu-a");
}

TEST(DeviceSelection, ByTypeIgnoringCase) {
  auto devices = mixed_devices();
  EXPECT_EQ(rt::select_device("gpu", devices).name, "NVIDIA H200");
  EXPECT_EQ(rt::select_device("CPU", devices).name, "pthread-skylake-avx512");
}

TEST(DeviceSelection, ByPlatformAndDeviceIndex) {
  auto devices = mixed_devices();
  EXPECT_EQ(rt::select_device("1:1", devices).name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(rt::select_device("0:0", devices).name, "pthread-skylake-avx512");
}

// The ranks of an MPI job on one host ask with their local rank: each takes the next of the
// devices its request matches, in turn.
TEST(DeviceSelection, TheNthMatchInTurnForTheRanksOfAHost) {
  auto devices = mixed_devices();
  EXPECT_EQ(rt::select_device("", devices, "TESSERA_DEVICE", 0).name, "NVIDIA H200");
  EXPECT_EQ(rt::select_device("", devices, "TESSERA_DEVICE", 1).name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(rt::select_device("", devices, "TESSERA_DEVICE", 2).name, "NVIDIA H200");
  EXPECT_EQ(rt::select_device("gpu", devices, "TESSERA_DEVICE", 3).name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(rt::select_device("nvidia", devices, "TESSERA_DEVICE", 1).name, "NVIDIA H100 80GB HBM3");
  // One match: every rank takes it (the CI's two ranks on one CPU device).
  EXPECT_EQ(rt::select_device("cpu", devices, "TESSERA_DEVICE", 1).name, "pthread-skylake-avx512");
  EXPECT_EQ(rt::select_device("1:0", devices, "TESSERA_DEVICE", 1).name, "NVIDIA H200");
  std::vector<rt::device_info> cpus{fake(0, 0, "cpu-a", rt::device_type::cpu), fake(0, 1, "cpu-b", rt::device_type::cpu)};
  EXPECT_EQ(rt::select_device("", cpus, "TESSERA_DEVICE", 1).name, "cpu-b");
  EXPECT_THAT(message_of("amd", devices), HasSubstr("no device name contains it"));
}

TEST(DeviceSelection, ByCaseInsensitiveNameSubstring) {
  auto devices = mixed_devices();
  EXPECT_EQ(rt::select_device("h100", devices).name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(rt::select_device("SKYLAKE", devices).name, "pthread-skylake-avx512");
}

TEST(DeviceSelection, UnknownNameListsTheDevicesFound) {
  auto devices = mixed_devices();
  EXPECT_THAT(message_of("radeon", devices),
              AllOf(HasSubstr("TESSERA_DEVICE='radeon'"), HasSubstr("0:0 pthread-skylake-avx512"),
                    HasSubstr("1:0 NVIDIA H200"), HasSubstr("1:1 NVIDIA H100 80GB HBM3")));
}

TEST(DeviceSelection, MissingIndexOrTypeIsAnError) {
  EXPECT_THAT(message_of("2:0", mixed_devices()), HasSubstr("there is no device 2:0"));
  std::vector<rt::device_info> cpu_only{fake(0, 0, "cpu", rt::device_type::cpu)};
  EXPECT_THAT(message_of("gpu", cpu_only), AllOf(HasSubstr("there is no gpu device"), HasSubstr("0:0 cpu")));
  EXPECT_THAT(message_of("", {}), HasSubstr("no OpenCL devices were found"));
}

TEST(DeviceSelection, RealDevicesAreFoundAndSelectable) {
  const auto devices = rt::list_devices();
  ASSERT_FALSE(devices.empty()) << "tests need an OpenCL device (PoCL in CI)";
  for (const auto& d : devices) {
    const std::string index = std::to_string(d.platform_index) + ":" + std::to_string(d.device_index);
    EXPECT_EQ(&rt::select_device(index, devices), &d);
    EXPECT_GT(d.compute_units, 0u);
    EXPECT_GT(d.global_memory_bytes, 0u);
    EXPECT_GT(d.max_work_group_size, 0u);
    std::string upper = d.name;
    std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
    EXPECT_EQ(rt::select_device(upper, devices).name, d.name);
  }
  EXPECT_THROW(rt::select_device("no-such-device-anywhere", devices), rt::device_selection_error);
}

TEST(DeviceSelection, DoubleWithoutFp64IsAClearError) {
  auto device = fake(0, 0, "half-only", rt::device_type::gpu);
  device.has_fp64 = false;
  try {
    rt::require_fp64(device);
    FAIL() << "expected unsupported_error";
  } catch (const rt::unsupported_error& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("cl_khr_fp64"), HasSubstr("half-only")));
  }
  device.has_fp64 = true;
  EXPECT_NO_THROW(rt::require_fp64(device));
}
