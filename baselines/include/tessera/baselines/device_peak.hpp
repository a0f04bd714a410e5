#pragma once
// An upper bound of what a device can compute, from what OpenCL reports of it: no honest GEMM
// figure lies above it, so a row that claims more is a failed measurement (the tuner's
// plausibility guard). Generous on purpose: it has to catch a timing that missed most of the
// work (CLBlast's 800,266 GFLOP/s on an H200), never a good kernel.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <tessera/baselines/gemm_problem.hpp>
#include <tessera/runtime/device.hpp>

namespace tessera::baselines {

struct device_peak {
  double gflops = 0;
  std::string derivation;  // how it was computed, for the report
};

/// compute units x clock x lanes per compute unit x 2 (a fused multiply-add is two operations).
/// Lanes per compute unit: on a CPU the native vector width x 2 (two FMA pipes per core); on a
/// GPU or other device 256, above every vendor's FP32 lanes per compute unit (NVIDIA 128 per
/// SM, AMD 64 per CU or 128 dual-issued, Intel 8 to 16 per EU). Tensor-core or matrix-engine
/// math is not covered: a kernel using it needs an explicit peak (the tuner's --peak-gflops).
/// nullopt when the clock or the compute units are unknown (0).
std::optional<device_peak> estimate_peak(runtime::device_type type, std::uint32_t compute_units,
                                         std::uint32_t clock_mhz, std::uint32_t native_vector_width);

/// estimate_peak for a discovered device and element size (4: float, 8: double), reading the
/// clock and native vector width from the driver; nullopt for a device without a handle.
std::optional<device_peak> estimate_peak(const runtime::device_info& device, std::size_t element_bytes);

/// The bound for tensor-core products (TF32, or FP16/BF16 operands) on a device with tensor cores
/// (blas::device_limits): compute units x clock x multiply-adds per compute unit and clock x 2,
/// at twice Hopper's dense rate per SM (TF32 1024 multiply-adds a clock, 16-bit 2048: H100's
/// 494 / 989 TFLOP/s over 132 SMs at 1.83 GHz) so that a faster tensor core still fits;
/// estimate_peak(device, 4) for fp32 or a device without tensor cores.
std::optional<device_peak> estimate_peak(const runtime::device_info& device, gemm_precision precision);

}  // namespace tessera::baselines
