#!/usr/bin/env bash
# On the GPU machine, from the repository root: source .gpu/env.sh && benchmark/mma_probe/sweep.sh variants.txt
set -uo pipefail
here=benchmark/mma_probe
out=${OUT:-/tmp/mma-sweep}
mkdir -p "$out"
g++ -O2 -std=c++20 -Iinclude $here/sweep.cpp -lOpenCL -o /tmp/mma_sweep || exit 1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$out/gpu.txt"
grep -v '^#' "${1:-$here/variants_1.txt}" | timeout "${SWEEP_SECONDS:-420}" /tmp/mma_sweep $here/mma_gemm.cl 2>&1 | tee "$out/sweep.txt"
[ "${TORCH_REF:-1}" = 1 ] && timeout 120 python3 $here/torch_ref.py 2>&1 | tee "$out/cublas.txt"
