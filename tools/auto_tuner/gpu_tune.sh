#!/usr/bin/env bash
# Tuning on the GPU machine (see ../shared/gpu/README.md), from the repository root there:
#   tools/auto_tuner/gpu_tune.sh PATH/TO/.gpu STEP     STEP: full | followup
# full: build tune_all for NVIDIA_GPU, tune every configuration at 4096^3 (timed: the
# 5-minute target). followup: the same at 4096^3 with --budget (20% of the configurations)
# and a budgeted run at 8192^3. Results (JSON, tables, logs) go to $OUT.
set -uo pipefail
source "${1:?the folder .gpu made by shared/gpu/pack.sh}/env.sh"
step=${2:-full}
out=${OUT:-/tmp/tune-out}
build=/tmp/tune-build
mkdir -p "$out"
export TESSERA_CACHE_DIR=/tmp/tessera-tune-cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu_$step.txt"
start=$(date +%s)
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DTUNING_TARGET=NVIDIA_GPU -DTESSERA_BUILD_TESTS=OFF \
  -DTESSERA_BUILD_BENCHMARKS=OFF -DCUDAToolkit_ROOT=/usr/local/cuda >"$out/build_$step.log" 2>&1 &&
  cmake --build "$build" -j16 --target tune_all tune_nn >>"$out/build_$step.log" 2>&1 ||
  { tail -40 "$out/build_$step.log"; exit 1; }
echo "built in $(( $(date +%s) - start )) s"
tune=$build/tools/auto_tuner/tune_all
configs=$(grep -c '^BENCH_PARAMS' "$build/tools/auto_tuner/generated/generated_combinations.def")
summary() { grep -E "^== |BEST|FAILED" "$1" | cut -c1-260 | head -40; }
if [ "$step" = full ]; then
  start=$(date +%s)
  timeout 420 "$tune" --m 4096 --n 4096 --k 4096 --reps 5 --json "$out/tune_4096.json" --csv "$out/tune_4096.csv" \
    >"$out/tune_4096.txt" 2>"$out/tune_4096.err"
  echo "tune_all 4096^3, all $configs configurations: exit $?, $(( $(date +%s) - start )) s (builds included)"
  summary "$out/tune_4096.txt"
else
  budget=$(( configs / 5 ))
  start=$(date +%s)
  timeout 200 "$tune" --m 4096 --n 4096 --k 4096 --reps 5 --budget "$budget" --json "$out/budget_4096.json" \
    >"$out/budget_4096.txt" 2>"$out/budget_4096.err"
  echo "tune_all 4096^3 --budget $budget of $configs: exit $?, $(( $(date +%s) - start )) s"
  summary "$out/budget_4096.txt"
  start=$(date +%s)
  timeout 300 "$tune" --m 8192 --n 8192 --k 8192 --reps 3 --budget 24 --json "$out/tune_8192.json" \
    >"$out/tune_8192.txt" 2>"$out/tune_8192.err"
  echo "tune_all 8192^3 --budget 24: exit $?, $(( $(date +%s) - start )) s"
  summary "$out/tune_8192.txt"
fi
