#!/usr/bin/env bash
# One run on the GPU machine (see ../shared/gpu/README.md): build, run the fused-GEMM tests on
# the GPU, then bench_fused_gemm at M = N = 4096, K in {64, 256, 4096}: fused relu(A*B + bias)
# against tessera's GEMM + a separate kernel and CLBlast + a separate kernel. Results and logs
# go to $OUT (bench_fused_gemm.json, tests.log, build.log). About 3 minutes.
# Usage, from the repository root there: benchmark/fused_gemm/gpu_run.sh PATH/TO/.gpu
set -uo pipefail
source "${1:?the folder .gpu made by shared/gpu/pack.sh}/env.sh"
out=${OUT:-/tmp/fused-gemm-out}
build=/tmp/fused-gemm-build
mkdir -p "$out"
export TESSERA_DEVICE=gpu
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee "$out/gpu.txt"

start=$(date +%s)
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >"$out/build.log" 2>&1 &&
  cmake --build "$build" -j16 --target bench_fused_gemm tessera_fused_gemm_tests tessera-info \
    >>"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
echo "built in $(( $(date +%s) - start )) s"
"$build/tools/tessera-info" | head -12

start=$(date +%s)
(cd "$build" && timeout 60 ctest -R "KernelGeneratorMatmul" -j16 --output-on-failure >"$out/tests.log" 2>&1)
grep -E "tests passed|FAILED|Failed" "$out/tests.log" | head -20
echo "tests in $(( $(date +%s) - start )) s"

start=$(date +%s)
timeout 100 "$build/benchmark/fused_gemm/bench_fused_gemm" --benchmark_filter='/4096x4096x' \
  --benchmark_out="$out/bench_fused_gemm.json" --benchmark_out_format=json 2>&1 | cut -c1-160
echo "benchmarks in $(( $(date +%s) - start )) s"
