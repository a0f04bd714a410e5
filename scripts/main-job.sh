#!/usr/bin/env bash
# The main job: install, build, describe the OpenCL device, then tune GEMM on it: tune_all
# at a small size prints the ranked table (system BLAS, tessera's default, each configuration).
# TESSERA_TUNING_TARGET picks the configuration set (default: NVIDIA_GPU on an NVIDIA GPU,
# else CPU); TESSERA_TUNE_ARGS replaces the tune_all arguments.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
build=${TESSERA_BUILD_DIR:-$root/build}
target=${TESSERA_TUNING_TARGET:-}
if [ -z "$target" ]; then
  if clinfo -l 2>/dev/null | grep -qi nvidia; then target=NVIDIA_GPU; else target=CPU; fi
fi
"$root/scripts/build.sh" -DTUNING_TARGET="$target" -DTESSERA_BUILD_BENCHMARKS=ON
"$build/tools/tessera-info"
"$build/tools/tessera-smoke"
# On the CPU set a budgeted search keeps the run to minutes on two cores.
default_args="--m 256 --n 256 --k 256 --reps 3"
[ "$target" = CPU ] && default_args="$default_args --budget 12"
# shellcheck disable=SC2086
"$build/tools/auto_tuner/tune_all" ${TESSERA_TUNE_ARGS:-$default_args} --json "$build/tune_all.json"
echo "main-job: results in $build/tune_all.json (gen/select_defaults.py turns them into configs/defaults/)"
