#include <tessera/baselines/device_peak.hpp>

#include <fmt/format.h>

#include <tessera/blas/gemm_defaults.hpp>

namespace tessera::baselines {

std::optional<device_peak> estimate_peak(runtime::device_type type, std::uint32_t compute_units,
                                         std::uint32_t clock_mhz, std::uint32_t native_vector_width) {
  if (compute_units == 0 || clock_mhz == 0) return std::nullopt;
  const bool cpu = type == runtime::device_type::cpu;
  const std::uint32_t lanes = cpu ? std::max<std::uint32_t>(native_vector_width, 1) * 2 : 256;
  device_peak peak;
  peak.gflops = double(compute_units) * double(clock_mhz) * 1e-3 * double(lanes) * 2.0;
  peak.derivation = fmt::format("{} compute units x {} MHz x {} lanes{} x 2 (FMA)", compute_units, clock_mhz, lanes,
                                cpu ? fmt::format(" ({}-wide vectors, 2 FMA pipes)", native_vector_width) : "");
  return peak;
}

std::optional<device_peak> estimate_peak(const runtime::device_info& device, std::size_t element_bytes) {
  if (device.handle() == nullptr) return std::nullopt;
  const auto clock = device.handle.getInfo<CL_DEVICE_MAX_CLOCK_FREQUENCY>();
  const auto width = element_bytes == 8 ? device.handle.getInfo<CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE>()
                                        : device.handle.getInfo<CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT>();
  return estimate_peak(device.type, device.compute_units, clock, width);
}

std::optional<device_peak> estimate_peak(const runtime::device_info& device, gemm_precision precision) {
  if (precision == gemm_precision::fp32 || device.handle() == nullptr || blas::device_limits(device).tensor_cores == 0)
    return estimate_peak(device, sizeof(float));
  const auto clock = device.handle.getInfo<CL_DEVICE_MAX_CLOCK_FREQUENCY>();
  if (device.compute_units == 0 || clock == 0) return std::nullopt;
  const std::uint32_t multiply_adds = precision == gemm_precision::tf32 ? 2048 : 4096;
  device_peak peak;
  peak.gflops = double(device.compute_units) * double(clock) * 1e-3 * double(multiply_adds) * 2.0;
  peak.derivation = fmt::format("{} compute units x {} MHz x {} {} tensor-core multiply-adds x 2", device.compute_units,
                                clock, multiply_adds, to_string(precision));
  return peak;
}

}  // namespace tessera::baselines
