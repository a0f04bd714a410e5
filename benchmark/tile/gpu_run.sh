#!/usr/bin/env bash
# One call on the GPU machine: build the Tile benchmark and tests, check Tile's kernels on the
# GPU (the device tests), then time the convolution and matrix-product benchmarks.
# Run from the tree root there, after `source ../.gpu/env.sh`; writes results to $OUT.
set -uo pipefail
out=${OUT:-/tmp/out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt" 2>&1
cmake -S . -B /tmp/b -DCMAKE_BUILD_TYPE=Release -DTESSERA_BUILD_TOOLS=OFF > "$out/build.log" 2>&1 &&
  cmake --build /tmp/b -j16 --target bench_tile tile_tests >> "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
export TESSERA_DEVICE=gpu TESSERA_CACHE_DIR=/tmp/kernel-cache
timeout 60 /tmp/b/tests/tile/tile_tests --gtest_brief=1 > "$out/tests.txt" 2>&1
echo "device tests exit status $?" >> "$out/tests.txt"
tail -3 "$out/tests.txt"
timeout 100 /tmp/b/benchmark/tile/bench_tile --benchmark_filter='conv_tile|conv_im2col|matmul' \
  --benchmark_min_time=0.2 --benchmark_out="$out/tile.json" --benchmark_out_format=json 2>&1 | tee "$out/bench.txt" | tail -14
cat "$out/gpu.txt"
