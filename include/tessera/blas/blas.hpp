#pragma once
// tessera's BLAS: GEMM kernel families, their configurations and device-matched defaults.
#include <tessera/blas/gemm.hpp>
#include <tessera/blas/gemm_config.hpp>
#include <tessera/blas/gemm_defaults.hpp>
