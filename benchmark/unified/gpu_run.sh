#!/usr/bin/env bash
# On the GPU machine: builds the unified tests and benchmark, checks the unified kernels on the
# GPU (the interleaved reduction split only runs there), then measures the OpenCL executor
# against hand-written OpenCL on the GPU and the OpenMP executor against hand-written OpenMP
# on its host. Run from the tree's root after `source .gpu/env.sh`; results go to $1.
set -euo pipefail
out=${1:?usage: gpu_run.sh OUT_DIR}
build=${TESSERA_GPU_BUILD:-/tmp/b}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DTESSERA_BUILD_TOOLS=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target tessera_unified_tests bench_unified 2>&1 | tail -1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
date -u | tee -a "$out/gpu.txt"
export TESSERA_DEVICE=gpu TESSERA_CACHE_DIR=/tmp/tessera-cache
timeout 45 "$build/tests/unified/tessera_unified_tests" --gtest_filter='*opencl*:unified_tracing*:reduction_layout*' \
  >"$out/tests.txt" 2>&1 && echo "unified tests on the GPU: passed" || { echo "unified tests on the GPU: FAILED"; tail -40 "$out/tests.txt"; }
"$build/benchmark/unified/bench_unified" \
  --benchmark_filter='(opencl.*/(1048576|16777216|67108864))|(omp.*/(1048576|16777216|67108864))' \
  --benchmark_repetitions=5 --benchmark_report_aggregates_only=true --benchmark_min_time=0.05 \
  --benchmark_out="$out/unified.json" --benchmark_out_format=json 2>&1 | grep -E "median|Run on|CPU" | tee "$out/bench.txt"
