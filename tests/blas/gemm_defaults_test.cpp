// The defaults table: problem classes, device keys, the fallback chain.
#include <tessera/blas/gemm_defaults.hpp>
#include <tessera/runtime/context.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace blas = tessera::blas;
namespace rt = tessera::runtime;

namespace {

rt::device_info device(std::string name, std::string vendor, rt::device_type type, std::uint64_t local_bytes,
                       std::size_t max_wg, std::string platform = "Some platform") {
  rt::device_info d;
  d.name = std::move(name), d.vendor = std::move(vendor), d.type = type, d.platform_name = std::move(platform);
  d.local_memory_bytes = local_bytes, d.max_work_group_size = max_wg, d.has_fp64 = true;
  return d;
}

TEST(GemmDefaults, ProblemClasses) {
  EXPECT_EQ(blas::classify_problem(4096, 4096, 4096, 1), blas::gemm_problem_class::large);
  EXPECT_EQ(blas::classify_problem(8192, 64, 8192, 1), blas::gemm_problem_class::medium);
  EXPECT_EQ(blas::classify_problem(256, 256, 256, 1), blas::gemm_problem_class::medium);
  EXPECT_EQ(blas::classify_problem(128, 128, 128, 1), blas::gemm_problem_class::small);
  EXPECT_EQ(blas::classify_problem(7, 100000, 100000, 1), blas::gemm_problem_class::small);
  EXPECT_EQ(blas::classify_problem(64, 64, 64, 256), blas::gemm_problem_class::batched);
}

TEST(GemmDefaults, DeviceKeysNormaliseVendorAndArchitecture) {
  const auto pocl = blas::describe_device(device("pthread-skylake-avx512-Intel(R) Xeon(R) Processor", "GenuineIntel",
                                                 rt::device_type::cpu, 2 << 20, 4096, "Portable Computing Language"));
  EXPECT_EQ(pocl.vendor, "pocl");
  EXPECT_EQ(pocl.architecture, "skylake-avx512");
  EXPECT_EQ(pocl.type, "cpu");
  const auto nv = blas::describe_device(device("NVIDIA H200", "NVIDIA Corporation", rt::device_type::gpu, 49152, 1024));
  EXPECT_EQ(nv.vendor, "nvidia");
  EXPECT_EQ(nv.type, "gpu");
  const auto amd = blas::describe_device(device("gfx90a", "Advanced Micro Devices, Inc.", rt::device_type::gpu, 65536, 256));
  EXPECT_EQ(amd.vendor, "amd");
  EXPECT_EQ(amd.architecture, "gfx90a");
}

TEST(GemmDefaults, EveryEntryIsValidForItsPrecisions) {
  for (const auto& e : blas::gemm_defaults_table()) {
    for (int bytes : {4, 8}) {
      if (e.element_bytes != 0 && e.element_bytes != bytes) continue;
      EXPECT_THAT(blas::check_gemm_rules(e.params, bytes), ::testing::ElementsAre())
          << blas::to_string(e.params) << " for " << bytes << "-byte elements";
    }
  }
}

TEST(GemmDefaults, VendorEntriesWinOverTheGenericOnes) {
  // A device without tuned entries of its own (configs/defaults/ has none for it).
  const auto nv = device("NVIDIA A100-SXM4-80GB", "NVIDIA Corporation", rt::device_type::gpu, 49152, 1024);
  const auto choice = blas::choose_default(nv, 4, false, false, blas::gemm_problem_class::large);
  ASSERT_NE(choice.entry, nullptr);
  EXPECT_EQ(choice.entry->level, blas::gemm_match_level::vendor);
  EXPECT_EQ(choice.entry->problem, "large");
  EXPECT_EQ(choice.entry->element_bytes, 4);
  const auto cpu = device("pthread-haswell-AMD EPYC", "AuthenticAMD", rt::device_type::cpu, 2 << 20, 4096,
                          "Portable Computing Language");
  EXPECT_EQ(blas::choose_default(cpu, 4, false, false, blas::gemm_problem_class::large).entry->level,
            blas::gemm_match_level::type);
}

TEST(GemmDefaults, TunedWinnersOfTheDeviceComeFirst) {
  // configs/defaults/nvidia_gpu.json (tune_all on an H200) is rendered into the table by the build.
  const auto h200 = device("NVIDIA H200", "NVIDIA Corporation", rt::device_type::gpu, 49152, 1024);
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      const auto choice = blas::choose_default(h200, 4, ta, tb, blas::gemm_problem_class::large);
      ASSERT_NE(choice.entry, nullptr);
      EXPECT_EQ(choice.entry->level, blas::gemm_match_level::name);
      EXPECT_THAT(choice.entry->origin, ::testing::StartsWith("tuned "));
      EXPECT_EQ(choice.entry->transposes, (std::string{ta ? 't' : 'n', tb ? 't' : 'n'}));
    }
  // Problem classes the tuning run did not cover fall back to the vendor's entries.
  EXPECT_EQ(blas::choose_default(h200, 4, false, false, blas::gemm_problem_class::small).entry->level,
            blas::gemm_match_level::vendor);
}

TEST(GemmDefaults, UnknownDevicesGetTheGenericEntries) {
  const auto other = device("Mystery Accelerator", "Nobody", rt::device_type::accelerator, 65536, 1024);
  const auto choice = blas::choose_default(other, 8, true, false, blas::gemm_problem_class::small);
  ASSERT_NE(choice.entry, nullptr);
  EXPECT_EQ(choice.entry->level, blas::gemm_match_level::any);
}

TEST(GemmDefaults, EntriesThatDoNotFitAreSkippedDownToOneThatDoes) {
  const auto tiny = device("NVIDIA Tiny", "NVIDIA Corporation", rt::device_type::gpu, 1024, 16);
  for (auto problem : {blas::gemm_problem_class::small, blas::gemm_problem_class::large}) {
    const auto choice = blas::choose_default(tiny, 4, false, false, problem);
    EXPECT_THAT(blas::check_gemm_rules(choice.params, 4, blas::device_limits(tiny)), ::testing::ElementsAre());
  }
  const auto one = device("Single", "Nobody", rt::device_type::other, 0, 1);
  EXPECT_EQ(blas::choose_default(one, 4, false, false, blas::gemm_problem_class::large).params.family,
            blas::gemm_family::naive);
}

TEST(GemmDefaults, TheTestDeviceGetsAConfigurationThatFitsIt) {
  const auto& d = rt::context::get().device();
  for (auto problem : {blas::gemm_problem_class::small, blas::gemm_problem_class::medium,
                       blas::gemm_problem_class::large, blas::gemm_problem_class::batched}) {
    const auto choice = blas::choose_default(d, 4, false, true, problem);
    EXPECT_THAT(blas::check_gemm_rules(choice.params, 4, blas::device_limits(d)), ::testing::ElementsAre());
  }
}

}  // namespace
