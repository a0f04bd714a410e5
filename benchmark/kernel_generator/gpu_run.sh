#!/usr/bin/env bash
# The kernel generator on the GPU machine: builds, runs the test suite there (correctness on
# the NVIDIA driver), then the fusion benchmark from 2^20 to 2^28 floats. Writes into $OUT:
# device.txt, tests.txt, bench.txt and bench.json (Google Benchmark JSON, 5 repetitions).
# Run from a copy of the tree, with the packed Debian packages (../shared/gpu/README.md):
#   cd .gpu-work-kgen && source ../.gpu/env.sh && benchmark/kernel_generator/gpu_run.sh
set -euo pipefail
out=${OUT:?set OUT to the directory for the results}
build=${TESSERA_BUILD_DIR:-/tmp/b-kgen}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "$(nproc)" --target tessera-info tessera_kernel_generator_tests bench_kernel_generator \
  >"$out/build.txt" 2>&1 || { tail -50 "$out/build.txt"; exit 1; }
"$build/tools/tessera-info" >"$out/device.txt" 2>&1
date -u >>"$out/device.txt"
TESSERA_CACHE=off "$build/tests/kernel_generator/tessera_kernel_generator_tests" --gtest_brief=1 \
  >"$out/tests.txt" 2>&1 || echo "TESTS FAILED (see tests.txt)"
tail -3 "$out/tests.txt"
TESSERA_BENCH_MAX_LOG2=28 "$build/benchmark/kernel_generator/bench_kernel_generator" \
  --benchmark_repetitions=5 --benchmark_report_aggregates_only=true --benchmark_min_time=0.2 \
  --benchmark_out="$out/bench.json" --benchmark_out_format=json | tee "$out/bench.txt"
