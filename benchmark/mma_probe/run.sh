#!/usr/bin/env bash
# On the GPU machine, from the repository root (see ../shared/gpu/README.md):
#   source .gpu/env.sh && benchmark/mma_probe/run.sh
# Probes (pointer, ldmatrix, cpasync, mma16, localmem, peak) and cuBLAS's figures through PyTorch.
# The prototype GEMM kernels these probes led to became the library's mma family
# (src/blas/gemm_mma.cl); its variants are measured with bench_gemm's TESSERA_BENCH_CONFIGS.
set -uo pipefail
here=benchmark/mma_probe
out=${OUT:-/tmp/mma-probe}
mkdir -p "$out"
g++ -O2 -std=c++17 $here/probe.cpp -I"${GPU_PREFIX:-/usr}/usr/include" -L"${GPU_PREFIX:-/usr}/usr/lib/x86_64-linux-gnu" \
  -lOpenCL -o /tmp/mma_probe || exit 1
for mode in pointer ldmatrix cpasync mma16 localmem peak; do timeout 120 /tmp/mma_probe $mode; done 2>&1 | tee "$out/probes.txt"
python3 $here/torch_ref.py 2>&1 | tee "$out/cublas.txt"
