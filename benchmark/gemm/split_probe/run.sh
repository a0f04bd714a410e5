#!/usr/bin/env bash
# The split-K probe, one call on the GPU machine (../shared/gpu/README.md):
#   source .gpu/env.sh && benchmark/gemm/split_probe/run.sh [SET SHAPES]  (TESSERA_PROBE_SECONDS: tune_all's limit, 420)
# tune_all built with SET alone (blocks at fixed split counts; set.json by default,
# narrow_set.json, tall_set.json, mid_set.json, long_set.json, k_groups_set.json, tall_mid_k_set.json,
# ninety_six_set.json, beside_set.json, fill_set.json or short_k_fill_set.json)
# times every count at every shape of SHAPES (shapes.json, narrow_shapes.json, tall_shapes.json,
# mid_shapes.json, long_shapes.json, k_groups_shapes.json or tall_mid_k_shapes.json):
# $OUT/split-probe.json, which benchmark/gemm/split_model_fit.py reads. mid_set.json / mid_shapes.json: whole against
# split at mid-size calls that the H200 database splits in 2 to 5. long_set.json / long_shapes.json:
# the 128 x 64, 128 x 32 and 128 x 128 blocks at long-K calls with few waves. k_groups_set.json /
# k_groups_shapes.json: the database's k-group blocks at calls of 30 to 130 of their blocks.
# tall_mid_k_set.json / tall_mid_k_shapes.json: three blocks at tall calls of few column blocks.
# ninety_six_set.json / ninety_six_shapes.json: blocks 96 wide beside the 128, 64 and 32 wide ones
# at drawn outputs with a side of 60-110. beside_set.json / beside_shapes.json: the 64 x 96 block
# beside configurations the H200 database measured at its shapes with a side of 192 or less (the
# run's figures become its measured entries: gen/select_defaults.py --added); beside_mid_shapes.json
# the same at its shapes with a shorter side of 193-700 (timed, not taken: benchmark/RESULTS.md).
# fill_set.json / fill_shapes.json: the configurations the database measured at some of its measured
# shapes but not all, beside four it measured at every one, at each shape that lacks one (--added
# fills them in). short_k_fill_set.json / short_k_fill_shapes.json: the same for the configurations
# the short-K draw added, at the 146 measured shapes outside that draw. On a machine of several GPUs,
# one tune_all rank per GPU shares the shapes out.
set -uo pipefail
out=${OUT:?set OUT to the folder for the results}
here=$(cd "$(dirname "$0")" && pwd)
set_file=$here/${1:-set.json} shapes_file=$here/${2:-shapes.json}
build=${TESSERA_PROBE_BUILD:-/tmp/tessera-split-probe}
export TESSERA_DEVICE=${TESSERA_DEVICE:-gpu} TESSERA_CACHE_DIR=${TESSERA_CACHE_DIR:-/tmp/tessera-gpu-cache}
# One tune_all rank per GPU where the machine has several (the ranks share the shapes out).
source "$here/../../../scripts/gpu-mpi.sh"
start=$SECONDS
cmake -S "$here/../../.." -B "$build" -DCMAKE_BUILD_TYPE=Release -DTUNING_TARGET=NVIDIA_GPU \
  -DCUDAToolkit_ROOT=/usr/local/cuda -DTUNING_CONFIG="$set_file" ${mpicxx:+-DMPI_CXX_COMPILER=$mpicxx} > "$out/split-probe-build.log" 2>&1 &&
  cmake --build "$build" -j"$(nproc)" --target tune_all >> "$out/split-probe-build.log" 2>&1 || { echo "build failed"; exit 1; }
echo "build: $((SECONDS - start)) s"
tuner_command "$build"
timeout "${TESSERA_PROBE_SECONDS:-420}" "${tuner[@]}" --shapes "$shapes_file" --reps 3 --rounds 3 --finalists 1 \
  --json "$out/split-probe.json" > "$out/split-probe.log" 2>&1
status=$?
echo "tune_all: exit $status, $((SECONDS - start)) s"
tail -3 "$out/split-probe.log"
exit $status
