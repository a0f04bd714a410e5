#!/usr/bin/env bash
# cuBLAS's own kernels at given shapes, one call on the GPU machine (../shared/gpu/README.md):
#   benchmark/gemm/cublas_probe/run.sh MxNxK:TT [MxNxK:TT ...]
# Builds cublas_probe.cu with nvcc, runs it with cublasLt's log (the algorithm's tile, stages,
# split of K and reduction scheme per call: $OUT/cublaslt.log, summarized in $OUT/choices.txt),
# then once more under Nsight Compute (one call per shape: each kernel's name, grid, registers
# and time: $OUT/ncu.txt). The timings printed are of the first run, outside the profiler.
set -uo pipefail
out=${OUT:?set OUT to the folder for the results}
[ $# -gt 0 ] || { sed -n '2,3p' "$0"; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
/usr/local/cuda/bin/nvcc -O2 -o /tmp/cublas_probe "$here/cublas_probe.cu" -lcublas || { echo "build failed"; exit 1; }
CUBLASLT_LOG_LEVEL=5 CUBLASLT_LOG_FILE="$out/cublaslt.log" /tmp/cublas_probe "$@" || exit 1
# One line per distinct call: C's sizes as cuBLAS sees them (column-major C^T: n x m) and the algorithm.
grep '\[Trace\]\[cublasLtSSSMatmul\]' "$out/cublaslt.log" |
  sed -E 's/.*Cdesc=\[type=R_32F rows=([0-9]+) cols=([0-9]+).*(algo=\[[^]]*\]).*/C^T \1 x \2: \3/' | sort -u > "$out/choices.txt"
cat "$out/choices.txt"
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
CUBLAS_PROBE_REPS=0 timeout 240 "$ncu" --clock-control none \
  --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread \
  /tmp/cublas_probe "$@" > "$out/ncu.txt" 2>&1
echo "ncu: exit $?"
grep -E '^  [A-Za-z_].*\(|gpu__time_duration|launch__grid_size|registers_per_thread' "$out/ncu.txt" |
  sed -E 's/, Context.*//; s/ +/ /g'
