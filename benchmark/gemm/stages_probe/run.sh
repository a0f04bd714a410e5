#!/bin/bash
# The local family's cp.async stages measured beside the register path on the GPU machine
# (benchmark/RESULTS.md, issue 12, "FP32 tiles staged by cp.async"). Run from the project root
# after `source .gpu/env.sh`, results into $OUT:
#   benchmark/gemm/stages_probe/run.sh variants   7 blocks the database uses, each as shipped and
#                                                 with stages 2-4, padded and not, at the mid-size
#                                                 draw and 4096^3 (about 270 s)
#   benchmark/gemm/stages_probe/run.sh added      5 staged configurations beside 4 the database
#                                                 timed at nearly every measured shape, at 155 of
#                                                 its measured shapes, for select_defaults.py --added
# tune_all stops after TESSERA_PROBE_SECONDS (500; the JSON then marks the cut shape partial).
# Each builds tune_all with the list's configurations alone (gen/database_tuning_set.py).
set -uo pipefail
here=$(dirname "$0")
build=${TESSERA_GPU_BUILD:-/tmp/tessera-stages-build}
case ${1:-} in
  variants) list=$here/variants.json shapes=(configs/shapes/mid_size_draw.json "$here/square_4096.json") ;;
  added) list=$here/added.json shapes=("$here/added_shapes.json") ;;
  *) sed -n '2,/^set/p' "$0" | grep '^#'; exit 2 ;;
esac
out=${OUT:?set OUT to the folder for the results}
python3 gen/database_tuning_set.py "$list" --output "$build-set.json" || exit 1
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DTUNING_TARGET=NVIDIA_GPU -DCUDAToolkit_ROOT=/usr/local/cuda \
  -DTUNING_CONFIG="$build-set.json" > /dev/null && cmake --build "$build" -j"$(nproc)" --target tune_all > /dev/null || exit 1
TESSERA_DEVICE=${TESSERA_DEVICE:-gpu} timeout -s TERM "${TESSERA_PROBE_SECONDS:-500}" "$build/tools/auto_tuner/tune_all" \
  --shapes "${shapes[@]}" --reps 3 --rounds 3 --finalists 1 --json "$out/stages_$1.json"
