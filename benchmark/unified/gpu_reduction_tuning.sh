#!/usr/bin/env bash
# Issue 14's unified reductions on a GPU in one device call: builds the unified tests and
# bench_unified, runs the tests, then BM_reduction at 2^26 floats once per GPU tuning below
# (TESSERA_REDUCTION_TUNING, reduction_layout.hpp), the first with the hand-written kernels too.
# t0 is the defaults (chosen from the H100 run of 2026-11-26, benchmark/RESULTS.md); the others
# change one key each around them, columns first (2^26 x 1's column sum was the case below 0.8).
# Everything lands in OUT_DIR as three files (the device tool returns eight at most): build.log,
# tests.txt and reductions.tar (t<N>.json per tuning, tunings.txt naming them, a run log).
#
#   source .gpu/env.sh && BUILD_DIR=/tmp/b benchmark/unified/gpu_reduction_tuning.sh $OUT
#
# SOURCE_DIR (default: this tree) builds another copy, e.g. a `git archive HEAD` unpacked on the
# device, when the working tree there holds someone's unfinished changes; BUILD_DIR (default
# /tmp/b) is the build tree.
set -u
out=${1:?usage: gpu_reduction_tuning.sh OUT_DIR}
source_dir=${SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${BUILD_DIR:-/tmp/b}
{ cmake -S "$source_dir" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTUNING_TARGET=CI &&
  cmake --build "$build" -j"$(nproc)" --target tessera_unified_tests bench_unified; } > "$out/build.log" 2>&1 ||
  { tail -30 "$out/build.log"; exit 1; }
export TESSERA_DEVICE=gpu TESSERA_CACHE_DIR=${TESSERA_CACHE_DIR:-/tmp/tc} TESSERA_BENCH_REDUCTION_LARGE=1
timeout 150 "$build/tests/unified/tessera_unified_tests" > "$out/tests.txt" 2>&1
echo "tests: rc=$?"; tail -1 "$out/tests.txt"

work=$(mktemp -d)
shapes='(8192x8192|1024x65536|65536x1024|1x67108864|67108864x1)'
tunings=(
  ""
  "col_unroll=2"
  "col_groups=16"
  "col_width=16"
  "col_width=64"
  "row_min_terms=32"
  "row_groups=8"
)
for i in "${!tunings[@]}"; do
  cases='copy|row_sum|col_sum|row_max|col_max'
  [ "$i" = 0 ] && cases="$cases|full_sum|hand_row_sum|hand_col_sum|hand_copy4"
  echo "t$i ${tunings[$i]}" >> "$work/tunings.txt"
  TESSERA_REDUCTION_TUNING="${tunings[$i]}" timeout 100 "$build/benchmark/unified/bench_unified" \
    --benchmark_filter="BM_reduction/$shapes/($cases)/" --benchmark_min_time=0.1 --benchmark_format=json \
    > "$work/t$i.json" 2>> "$work/run.log"
  echo "t$i [${tunings[$i]}]: rc=$? after ${SECONDS}s" | tee -a "$work/run.log"
done
tar -cf "$out/reductions.tar" -C "$work" .
