#!/usr/bin/env bash
# The split-K probe, one call on the GPU machine (../shared/gpu/README.md):
#   source .gpu/env.sh && benchmark/gemm/split_probe/run.sh
# tune_all built with set.json alone (two blocks at fixed split counts) times every count at every
# shape of shapes.json: $OUT/split-probe.json, which benchmark/gemm/split_model_fit.py reads.
set -uo pipefail
out=${OUT:?set OUT to the folder for the results}
here=$(cd "$(dirname "$0")" && pwd)
build=${TESSERA_PROBE_BUILD:-/tmp/tessera-split-probe}
export TESSERA_DEVICE=${TESSERA_DEVICE:-gpu} TESSERA_CACHE_DIR=${TESSERA_CACHE_DIR:-/tmp/tessera-gpu-cache}
start=$SECONDS
cmake -S "$here/../../.." -B "$build" -DCMAKE_BUILD_TYPE=Release -DTUNING_TARGET=NVIDIA_GPU \
  -DCUDAToolkit_ROOT=/usr/local/cuda -DTUNING_CONFIG="$here/set.json" > "$out/split-probe-build.log" 2>&1 &&
  cmake --build "$build" -j"$(nproc)" --target tune_all >> "$out/split-probe-build.log" 2>&1 || { echo "build failed"; exit 1; }
echo "build: $((SECONDS - start)) s"
timeout 420 "$build/tools/auto_tuner/tune_all" --shapes "$here/shapes.json" --reps 3 --rounds 3 --finalists 1 \
  --json "$out/split-probe.json" > "$out/split-probe.log" 2>&1
status=$?
echo "tune_all: exit $status, $((SECONDS - start)) s"
tail -3 "$out/split-probe.log"
exit $status
