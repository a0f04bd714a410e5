#!/usr/bin/env bash
# One run on the GPU machine (see ../shared/gpu/README.md): build, run the BLAS tests on the
# GPU, then bench_gemm (tessera's default, hand-picked configurations, CLBlast, OpenBLAS and
# cuBLAS in one process). Results and logs go to $OUT.
# Usage, from the repository root there: benchmark/gemm/gpu_run.sh PATH/TO/.gpu
set -uo pipefail
source "${1:?the folder .gpu made by shared/gpu/pack.sh}/env.sh"
out=${OUT:-/tmp/gemm-out}
build=/tmp/gemm-build
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee "$out/gpu.txt"

start=$(date +%s)
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCUDAToolkit_ROOT=/usr/local/cuda >"$out/build.log" 2>&1 &&
  cmake --build "$build" -j16 --target bench_gemm tessera_blas_tests tessera_blas_slow_tests tessera-info \
    >>"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
echo "built in $(( $(date +%s) - start )) s"
"$build/tools/tessera-info" | head -12

start=$(date +%s)
(cd "$build" && timeout 200 ctest -R "Gemm|blas" -LE slow -j16 --output-on-failure >"$out/tests.log" 2>&1)
grep -E "tests passed|FAILED|Failed" "$out/tests.log" | head -20
echo "tests in $(( $(date +%s) - start )) s"

configs=(
  "local vw=4 cls=64 item=8x8 wg=16x16 sg=1x1 db=1"
  "local vw=4 cls=64 item=8x8 wg=16x16 sg=8x4 db=1"
  "local vw=4 cls=32 item=8x8 wg=16x16 sg=4x8 db=1"
  "local vw=4 cls=64 item=8x8 wg=16x16 sg=4x8 db=0"
  "local vw=4 cls=64 item=8x8 wg=16x16 sg=4x8 db=1 nbc_b=1"
  "local vw=4 cls=32 item=8x8 wg=16x16 sg=4x8 db=1 nbc_a=1 nbc_b=1"
  "local vw=4 cls=64 item=8x4 wg=16x32 sg=4x8 db=1"
  "local vw=4 cls=64 item=4x8 wg=32x16 sg=8x4 db=1"
  "local vw=4 cls=64 item=8x8 wg=16x8 sg=4x8 db=1"
  "local vw=4 cls=64 item=8x8 wg=8x16 sg=4x8 db=1"
  "local vw=8 cls=64 item=8x8 wg=16x16 sg=4x8 db=1"
  "local vw=2 cls=64 item=8x8 wg=16x16 sg=4x8 db=1"
)
export TESSERA_BENCH_CONFIGS=$(IFS=';'; echo "${configs[*]}")
export TESSERA_BENCH_TRANSPOSES=nn,nt,tn,tt TESSERA_BENCH_BUILD_LOG=1
start=$(date +%s)
timeout 330 "$build/benchmark/gemm/bench_gemm" \
  --benchmark_filter='^(openblas|clblast|cublas|tessera)/.*(nn/|/(nt|tn|tt)/4096x)|^tessera\[.*/nn/(4096|8192)x' \
  --benchmark_out="$out/bench_gemm.json" --benchmark_out_format=json 2>&1 | grep -v "^  L\|^Load\|^CPU" | cut -c1-150
echo "benchmarks in $(( $(date +%s) - start )) s"
