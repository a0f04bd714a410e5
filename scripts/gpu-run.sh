#!/usr/bin/env bash
# Every run on the GPU machine (../shared/gpu/README.md), one step or a few per call:
#   source .gpu/env.sh && scripts/gpu-run.sh STEP [STEP ...]          (from the repository root)
#
# Steps:
#   gemm              BLAS tests on the GPU, then bench_gemm (tessera's default and hand-picked
#                     configurations, CLBlast, OpenBLAS, cuBLAS; TESSERA_BENCH_CONFIGS to change them)
#   mma               the tensor-core family's tests (GemmMma*, the fused TF32 matmul), then
#                     bench_gemm with TF32 and 16-bit rows: tessera and cuBLAS in TF32 and FP32 at
#                     8192^3 for every transpose and TF32 at the other shapes NN, FP16 and BF16 at
#                     8192^3 for every transpose; TESSERA_MMA_FUSED=1 adds the fused GEMM at K = 64
#                     in TF32 (mma-fused.json)
#   mma-numerics      bench_gemm at NN 2048 x 2048 x K, K = 64, 1024, 8192, in FP32, TF32, FP16 and
#                     BF16, tessera and cuBLAS: max_rel_err against the FP64 product per format
#   mma-profile       the tensor-core tests, then TF32 at 8192^3 for every transpose (the defaults,
#                     TESSERA_BENCH_CONFIGS beside them, cuBLAS), then Nsight Compute on the PTX of
#                     the kernels that ran whose names match TESSERA_PROFILE_MATCH (default
#                     'n[nt]_tf32': NN and NT) through benchmark/mma_probe/profile_ptx.py (ncu does
#                     not see OpenCL kernels): occupancy, issue, stall reasons, bank conflicts
#   gemm-profile      bench_gemm's float defaults (and cuBLAS) at TESSERA_PROFILE_SIZE^3 (4096) for
#                     every transpose, then Nsight Compute on the PTX of the local-family kernels that
#                     ran whose names match TESSERA_PROFILE_MATCH (default: all) through
#                     benchmark/mma_probe/profile_ptx.py: throughput, shared-memory wavefronts and bank
#                     conflicts, global sectors, DRAM bytes and the warps' stall reasons per issue
#   tune-precision    TESSERA_TUNE_TOOL (tune_nt) --precision TESSERA_TUNE_PRECISION (tf32) at
#                     TESSERA_TUNE_SIZE^3 (8192) with --budget TESSERA_TUNE_BUDGET (16); several
#                     precisions in one step: TESSERA_TUNE_PRECISION="tf32 fp16" (one JSON each,
#                     kept as a list in tune-precision.json)
#   fused_gemm        fused-GEMM tests, then bench_fused_gemm at M = N = 4096
#   kernel_generator  kernel-generator tests, then the fusion benchmark up to 2^28 floats
#   tile              Tile tests on the GPU, then the convolution and matrix-product benchmarks
#   unified           unified-kernel tests on the GPU, then bench_unified
#   reductions        kernel-generator and unified tests on the GPU, then bench_kernel_generator_reductions
#                     at 2^24 and 2^26 floats (TESSERA_BENCH_LARGE=1): reductions.json, its table
#                     (reductions_table.py) in the log; bench_unified is built for a later step
#   tune              tune_all, every NVIDIA_GPU configuration at 4096^3 (about 5 minutes)
#   tune-budget       tune_all at 4096^3 with --budget (a fifth of the configurations)
#   tune-8192         tune_all at 8192^3 with --budget 24
#   baseline-check    tune_nn at 3001x2999x1003, 1000^3 and 12288x768x3072 (a budget of 8): each
#                     baseline row verified, and the CLBlast row within 15% of an independent
#                     wall-clock timing of CLBlastSgemm + clFinish (clblast_wall_clock);
#                     TESSERA_CHECK_SHAPES="MxNxK ..." for other shapes
#   shapes-tune       tune_all --budget over the shipped tuning suites (configs/shapes/, all but the
#                     untuned held_out.json and untuned_random.json, and cpu.json; under 10 minutes
#                     with the build), then
#                     select_defaults.py: shapes-tune.json (the run) and nvidia_gpu.json (the new
#                     database, to commit as configs/defaults/nvidia_gpu.json) in $OUT
#   shapes-bench      bench_gemm_shapes over every GPU suite, held_out.json and untuned_random.json:
#                     tessera with the defaults (the shapes-tune database of this machine when there is one, else
#                     the shipped ones; TESSERA_SHAPES_SHIPPED=1 forces those), CLBlast, OpenBLAS,
#                     cuBLAS: shapes-bench.json and shapes-bench.png
#   shapes-split      bench_gemm_shapes as shapes-bench with the shipped database, but the NVIDIA float
#                     class entries' split chosen per call (benchmark/gemm/nvidia_classes_split_chosen.json):
#                     shapes-split.json and shapes-split.png
#   selection-matrix  tune_all rebuilt with the configurations of the database (as shapes-bench picks
#                     it) alone, measuring each at every shape of the GPU suites, held_out.json and
#                     untuned_random.json, no budget: selection-matrix.json, and the database as
#                     selection-matrix-database.json (gen/selection_replay.py --matrix reads both);
#                     after shapes-tune on the same machine, also its database with these timings
#                     as measured entries (select_defaults.py --measured): nvidia_gpu.json, the one
#                     to commit
#   coverage-tune     tune_all --budget (TESSERA_COVERAGE_BUDGET, 24) at the shapes of
#                     TESSERA_COVERAGE_TUNE_SHAPES (default configs/shapes/coverage_tune.json: the coverage
#                     shapes where no configuration of the database reached 0.9x cuBLAS; gen/weak_shapes.py
#                     picked them; narrow_tune.json: narrow outputs; long_k_draw.json: long K beside few
#                     blocks, drawn; TESSERA_COVERAGE_SECONDS, 450, stops it:
#                     213 s on two H200s, about twice that on one), then select_defaults.py into a
#                     copy of the shipped database: coverage-tune.json
#                     and nvidia_gpu.json; a coverage-matrix step after it on the machine times that one
#   coverage-matrix   tune_all rebuilt with the database's configurations alone (coverage-tune's on this
#                     machine, else the shipped one), measuring each at every shape of
#                     TESSERA_COVERAGE_SHAPES (one file or several separated by spaces; default
#                     configs/shapes/coverage.json: shapes drawn for evidence, none held out;
#                     coverage_second_draw.json is a second draw, timed on 2026-11-30 and not
#                     taken: benchmark/RESULTS.md; long_k_draw.json, 24 of its 40 shapes
#                     timed on 2026-11-30 and taken; short_side_draw.json and short_k_draw.json, timed
#                     on 2026-11-30 and taken; thin_transposes_draw.json, TT and NT where the database had
#                     the fewest measured shapes, timed on 2026-12-01 and taken; short_k_second_draw.json and
#                     narrow_draw.json, timed on 2026-12-02 and taken; mid_size_draw.json, timed on 2026-12-02,
#                     not taken; mid_size_second_draw.json, timed on 2026-12-02 with 60 configurations
#                     (configuration-set), not taken; TESSERA_MATRIX_SECONDS, default
#                     430, stops it), then select_defaults.py --measured --evidence: that database
#                     with those timings as measured entries: coverage-matrix.json and nvidia_gpu.json
#                     Both run one tune_all rank per GPU (mpirun) where the machine has several GPUs.
#   configuration-set tune_all rebuilt with the configurations of TESSERA_SET alone (a defaults file, or a
#                     list in its form: benchmark/gemm/stages_probe/variants.json, added.json), measuring
#                     each at every shape of TESSERA_SET_SHAPES (files separated by spaces);
#                     TESSERA_MATRIX_SECONDS, default 500, stops it: configuration-set.json (for
#                     select_defaults.py --added where the list holds references the database timed)
#   launch            bench_launch_overhead, three repetitions: a launch's host cost through the runtime and
#                     each front door (GEMM unsplit and split along K), and the OpenCL call alone with and
#                     without an event, on the profiling queue and on one without: launch.json
#   mpi-tune          shapes-tune's sweep (tune_all --shapes, --budget 10) on one GPU, then under
#                     `mpirun -n G` on the machine's G GPUs (one rank each), each with a cold kernel
#                     cache of its own: mpi-tune.json ({"one": ..., "ranks": ...}: both results) and the
#                     times, the ratio and the winners compared in mpi-tune.log. OpenMPI from the
#                     machine or from .gpu (GPU_EXTRA_DEBS, see README's "Tuning with MPI")
#
# Every step leaves the same two files in $OUT: STEP.log (the build, the tests, the run's output and
# a summary) and STEP.json (its results: Google Benchmark JSON or tune_* JSON); $OUT/device.txt
# describes the GPU once. At most three steps per call: eight files come back. The summary of
# each step is also printed. Exit status: the number of steps that failed.
set -uo pipefail
out=${OUT:?set OUT to the folder for the results}
build=${TESSERA_GPU_BUILD:-/tmp/tessera-gpu-build}
jobs=$(nproc)
export TESSERA_DEVICE=${TESSERA_DEVICE:-gpu} TESSERA_CACHE_DIR=${TESSERA_CACHE_DIR:-/tmp/tessera-gpu-cache}
mkdir -p "$out"
usage() { sed -n '2,/^[^#]/p' "$0" | grep '^#'; exit 2; }
[ $# -gt 0 ] || usage
[ $# -le 3 ] || { echo "gpu-run: at most three steps per call (8 files come back)"; exit 2; }

# OpenMPI (mpicxx, mpirun) and tuner_command BUILD.
source "$(dirname "$0")/gpu-mpi.sh"
configure() {
  [ -f "$build/CMakeCache.txt" ] && return 0
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DTUNING_TARGET=NVIDIA_GPU -DCUDAToolkit_ROOT=/usr/local/cuda \
    ${mpicxx:+-DMPI_CXX_COMPILER=$mpicxx}
}
targets() { configure && cmake --build "$build" -j"$jobs" --target "$@"; }
# Slow suites are built only on request; their NOT_BUILT placeholder tests would fail every step.
device_tests() { (cd "$build" && timeout "${2:-300}" ctest -R "$1" -E _NOT_BUILT -j"$jobs" --output-on-failure); }
bench() {  # bench SECONDS BINARY STEP ARGS...: Google Benchmark JSON into STEP.json, killed after SECONDS
  local seconds=$1 binary=$2 step=$3
  shift 3
  timeout "$seconds" "$build/$binary" --benchmark_out="$out/$step.json" --benchmark_out_format=json "$@"
}

step_gemm() {
  targets bench_gemm tessera_blas_tests tessera_baselines_tests || return 1
  device_tests "Gemm|blas|Baselines" 300
  : "${TESSERA_BENCH_CONFIGS:=local vw=4 cls=64 item=8x8 wg=16x16 sg=4x8 db=1;local vw=4 cls=64 item=8x8 wg=16x16 sg=8x4 db=1}"
  TESSERA_BENCH_CONFIGS=$TESSERA_BENCH_CONFIGS TESSERA_BENCH_TRANSPOSES=nn,nt,tn,tt TESSERA_BENCH_BUILD_LOG=1 \
    bench 330 benchmark/gemm/bench_gemm gemm \
    --benchmark_filter='^(openblas|clblast|cublas|tessera)/.*(nn/|/(nt|tn|tt)/4096x)|^tessera\[.*/nn/(4096|8192)x'
}

step_mma() {
  targets bench_gemm bench_fused_gemm tessera_blas_tests tessera_fused_gemm_tests || return 1
  device_tests "Mma|Tf32" 300
  # The fused benchmark's samples are 10 ms each: minutes per row (TESSERA_MMA_FUSED=1 runs it).
  [ -z "${TESSERA_MMA_FUSED:-}" ] ||
    bench 300 benchmark/fused_gemm/bench_fused_gemm mma-fused --benchmark_filter='_tf32/(4096x4096x64|1024x1024x64)/'
  TESSERA_BENCH_TF32=1 TESSERA_BENCH_16BIT=1 TESSERA_BENCH_TRANSPOSES=nn,nt,tn,tt \
    bench 400 benchmark/gemm/bench_gemm mma \
    --benchmark_filter='^(tessera|tessera_tf32|cublas|cublas_tf32)/float/(nn|nt|tn|tt)/8192x|^(tessera_tf32|cublas_tf32)/float/nn/|^(tessera|cublas)_(fp16|bf16)/float/(nn|nt|tn|tt)/8192x8192'
}

step_mma-numerics() {
  targets bench_gemm || return 1
  TESSERA_BENCH_NUMERICS=1 TESSERA_BENCH_TF32=1 TESSERA_BENCH_16BIT=1 bench 200 benchmark/gemm/bench_gemm mma-numerics \
    --benchmark_filter='^(tessera|cublas)(_tf32|_fp16|_bf16)?/float/nn/2048x2048x(64|1024|8192)/' --benchmark_min_time=0.05
}

step_mma-profile() {
  targets bench_gemm tessera_blas_tests || return 1
  device_tests "Mma|Tf32" 300
  # A cache of its own, so that it holds the benchmarked kernels alone.
  local cache=/tmp/mma-profile-cache ptx_dir=/tmp/mma-profile-ptx failed=0
  rm -rf "$cache" "$ptx_dir"
  TESSERA_CACHE_DIR=$cache TESSERA_BENCH_TF32=1 TESSERA_BENCH_TRANSPOSES=nn,nt,tn,tt \
    bench 300 benchmark/gemm/bench_gemm mma-profile \
    --benchmark_filter='^(tessera_tf32|cublas_tf32)[^/]*/float/(nn|nt|tn|tt)/8192x8192x8192'
  python3 benchmark/mma_probe/profile_ptx.py extract "$cache" "$ptx_dir" || return 1
  local ncu=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
  for ptx in "$ptx_dir"/*.ptx; do
    [[ $(basename "$ptx") =~ ^${TESSERA_PROFILE_MATCH:-n[nt]_tf32} && $ptx != *_unaligned* ]] || continue
    echo "==== $(basename "$ptx" .ptx)"
    timeout 180 "$ncu" --clock-control none -k tessera_gemm -s 1 -c 1 --section SpeedOfLight \
      --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
      --section LaunchStats --section Occupancy --section SchedulerStats --section WarpStateStats \
      --section InstructionStats --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,\
smsp__inst_executed_pipe_lsu.sum,smsp__inst_executed.sum,sm__inst_executed_pipe_tensor_op_hmma.sum \
      python3 benchmark/mma_probe/profile_ptx.py run "$ptx" 8192 8192 8192 --reps 1 || failed=1
  done
  return $failed
}

step_gemm-profile() {
  targets bench_gemm || return 1
  local cache=/tmp/gemm-profile-cache ptx_dir=/tmp/gemm-profile-ptx size=${TESSERA_PROFILE_SIZE:-4096} failed=0
  rm -rf "$cache" "$ptx_dir"
  TESSERA_CACHE_DIR=$cache TESSERA_BENCH_TRANSPOSES=nn,nt,tn,tt bench 300 benchmark/gemm/bench_gemm gemm-profile \
    --benchmark_filter="^(tessera|cublas)/float/(nn|nt|tn|tt)/${size}x${size}x${size}/"
  python3 benchmark/mma_probe/profile_ptx.py extract "$cache" "$ptx_dir" --family local || return 1
  local ncu=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)} stalls="" reason
  for reason in barrier short_scoreboard long_scoreboard mio_throttle lg_throttle not_selected math_pipe_throttle \
      wait dispatch_stall no_instruction branch_resolving membar drain; do
    stalls+=",smsp__average_warps_issue_stalled_${reason}_per_issue_active.ratio"
  done
  for ptx in "$ptx_dir"/*.ptx; do
    [[ $(basename "$ptx") =~ ${TESSERA_PROFILE_MATCH:-.} && $ptx != *_unaligned* ]] || continue
    echo "==== $(basename "$ptx" .ptx)"
    timeout 180 "$ncu" --clock-control none -k tessera_gemm -s 1 -c 1 --section SpeedOfLight \
      --section LaunchStats --section Occupancy --section WarpStateStats \
      --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,\
l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,dram__bytes_read.sum,smsp__inst_executed.sum,\
smsp__inst_executed_pipe_fma.sum,smsp__issue_active.avg.pct_of_peak_sustained_active$stalls \
      python3 benchmark/mma_probe/profile_ptx.py run "$ptx" "$size" "$size" "$size" --reps 3 || failed=1
  done
  return $failed
}

step_tune-precision() {
  local tool=${TESSERA_TUNE_TOOL:-tune_nt} size=${TESSERA_TUNE_SIZE:-8192} failed=0 runs=()
  targets "$tool" || return 1
  for precision in ${TESSERA_TUNE_PRECISION:-tf32}; do
    local start=$SECONDS json="/tmp/tune-precision-$precision.json"
    timeout 300 "$build/tools/auto_tuner/$tool" --precision "$precision" --m "$size" --n "$size" --k "$size" --reps 3 \
      --rounds 5 --budget "${TESSERA_TUNE_BUDGET:-16}" --json "$json" || failed=1
    echo "$tool --precision $precision: $((SECONDS - start)) s"
    runs+=("$json")
  done
  python3 - "$out/tune-precision.json" "${runs[@]}" <<'EOF'
import json, sys
documents = [json.load(open(path)) for path in sys.argv[2:]]
json.dump(documents, open(sys.argv[1], "w"), indent=1)
EOF
  return $failed
}

step_fused_gemm() {
  targets bench_fused_gemm tessera_fused_gemm_tests || return 1
  device_tests "KernelGeneratorMatmul" 120
  bench 200 benchmark/fused_gemm/bench_fused_gemm fused_gemm --benchmark_filter='/4096x4096x'
}

step_kernel_generator() {
  targets tessera_kernel_generator_tests tessera_kernel_generator_cache_tests bench_kernel_generator || return 1
  TESSERA_CACHE=off timeout 120 "$build/tests/kernel_generator/tessera_kernel_generator_tests" --gtest_brief=1
  TESSERA_CACHE=off timeout 60 "$build/tests/kernel_generator/tessera_kernel_generator_cache_tests" --gtest_brief=1
  TESSERA_BENCH_MAX_LOG2=28 bench 300 benchmark/kernel_generator/bench_kernel_generator kernel_generator \
    --benchmark_repetitions=5 --benchmark_report_aggregates_only=true --benchmark_min_time=0.2
}

step_tile() {
  targets tile_tests bench_tile || return 1
  timeout 120 "$build/tests/tile/tile_tests" --gtest_brief=1
  bench 200 benchmark/tile/bench_tile tile --benchmark_filter='conv_tile|conv_im2col|matmul' \
    --benchmark_min_time=0.2
}

step_unified() {
  targets tessera_unified_tests tessera_unified_tracing_tests bench_unified || return 1
  timeout 120 "$build/tests/unified/tessera_unified_tests" --gtest_filter='*opencl*:reduction_layout*'
  timeout 60 "$build/tests/unified/tessera_unified_tracing_tests"
  bench 300 benchmark/unified/bench_unified unified \
    --benchmark_filter='(opencl.*/(1048576|16777216|67108864))|(omp.*/(1048576|16777216|67108864))' \
    --benchmark_repetitions=5 --benchmark_report_aggregates_only=true --benchmark_min_time=0.05
}

step_reductions() {
  targets tessera_kernel_generator_tests tessera_kernel_generator_cache_tests tessera_unified_tests \
    tessera_unified_tracing_tests bench_kernel_generator_reductions bench_unified || return 1
  device_tests '^(KernelGenerator|unified_kernels|unified_tracing|kernel_semantics|reduction_layout)' 300
  local tests=$?
  TESSERA_BENCH_LARGE=1 bench 240 benchmark/kernel_generator/bench_kernel_generator_reductions reductions \
    --benchmark_min_time=0.2
  local status=$?
  python3 benchmark/kernel_generator/reductions_table.py "$out/reductions.json" || status=1
  [ $tests -eq 0 ] && [ $status -eq 0 ]
}

tune_all() {  # tune_all STEP ARGS...
  local step=$1
  shift
  targets tune_all || return 1
  local start=$SECONDS
  timeout 560 "$build/tools/auto_tuner/tune_all" "$@" --json "$out/$step.json"
  local status=$?
  echo "tune_all $*: exit $status, $((SECONDS - start)) s"
  return $status
}

configurations() { grep -c '^BENCH_PARAMS' "$build/tools/auto_tuner/generated/generated_combinations.def"; }
step_tune() { tune_all tune --m 4096 --n 4096 --k 4096 --reps 5; }
step_tune-budget() { configure && tune_all tune-budget --m 4096 --n 4096 --k 4096 --reps 5 --budget "$(($(configurations) / 5))"; }
step_tune-8192() { tune_all tune-8192 --m 8192 --n 8192 --k 8192 --reps 3 --budget 24; }

step_baseline-check() {
  targets tune_nn clblast_wall_clock || return 1
  local failed=0 runs=()
  local shapes=${TESSERA_CHECK_SHAPES:-3001x2999x1003 1000x1000x1000 12288x768x3072}
  for shape in $shapes; do
    set -- ${shape//x/ }
    local json="/tmp/baseline-check-$1x$2x$3.json"
    timeout 300 "$build/tools/auto_tuner/tune_nn" --m "$1" --n "$2" --k "$3" --reps 9 --budget 8 --json "$json"
    local independent
    independent=$(timeout 120 "$build/benchmark/gemm/clblast_wall_clock" "$1" "$2" "$3" 9) || { failed=1; continue; }
    echo "$independent"
    runs+=("$json")
    python3 - "$json" "$independent" <<'EOF' || failed=1
import json, re, sys
run = json.load(open(sys.argv[1]))["runs"][0]
independent = float(re.search(r"median_ms=([0-9.]+)", sys.argv[2]).group(1))
baselines = [r for r in run["results"] if r["kind"] == "baseline"]
ok = True
for r in baselines:
    print(f"  {r['name']}: {r['status']}" + (f" ({r['reason']})" if r["reason"] else ""))
    ok &= r["status"] == "ok"
clblast = next(r for r in baselines if r["name"] == "CLBlast")
if clblast["status"] == "ok":
    ms = clblast["seconds"]["median"] * 1e3
    ratio = ms / independent
    verdict = "PASS" if 0.85 <= ratio <= 1.15 else "FAIL"
    print(f"  {verdict} CLBlast {run['m']}x{run['n']}x{run['k']}: tune_nn {ms:.4f} ms, wall clock {independent:.4f} ms, "
          f"ratio {ratio:.3f}")
    ok &= verdict == "PASS"
sys.exit(0 if ok else 1)
EOF
  done
  # The three runs in one results file, as select_defaults.py and plot_results.py read them.
  python3 - "$out/baseline-check.json" "${runs[@]}" <<'EOF'
import json, sys
documents = [json.load(open(path)) for path in sys.argv[2:]]
if documents:
    merged = documents[0]
    merged["runs"] = [run for d in documents for run in d["runs"]]
    json.dump(merged, open(sys.argv[1], "w"), indent=1)
EOF
  return $failed
}

shape_suites=(configs/shapes/square.json configs/shapes/transformer.json configs/shapes/convolution.json
              configs/shapes/tall_skinny.json configs/shapes/batched_small.json configs/shapes/backward.json)
# Shapes no suite tunes: the benchmark's check of the selection rule away from the tuned shapes.
untuned_suites=(configs/shapes/held_out.json configs/shapes/untuned_random.json)
shapes_database=$build/shapes/nvidia_gpu.json
step_shapes-tune() {
  targets tune_all || return 1
  local start=$SECONDS
  # SIGTERM before the 10 minutes are up: what was tuned is saved, the last shape marked partial.
  timeout -s TERM "${TESSERA_SHAPES_SECONDS:-400}" "$build/tools/auto_tuner/tune_all" --shapes "${shape_suites[@]}" \
    --budget "${TESSERA_SHAPES_BUDGET:-10}" --reps 3 --rounds 5 --json "$out/shapes-tune.json"
  echo "tune_all --shapes: exit $?, $((SECONDS - start)) s"
  mkdir -p "$build/shapes"
  cp configs/defaults/nvidia_gpu.json "$shapes_database"
  python3 gen/select_defaults.py "$out/shapes-tune.json" --target nvidia_gpu --output_dir "$build/shapes" || return 1
  cp "$shapes_database" "$out/nvidia_gpu.json"
  cp "$out/shapes-tune.json" "$build/shapes/shapes-tune.json"  # for selection-matrix's measured entries
  echo "tuning and selection: $((SECONDS - start)) s"
}
step_shapes-bench() {
  targets bench_gemm_shapes || return 1
  local database=
  [ -f "$shapes_database" ] && [ -z "${TESSERA_SHAPES_SHIPPED:-}" ] && database=$shapes_database
  echo "defaults: ${database:-the shipped configs/defaults/nvidia_gpu.json}"
  # --time-limit: a run that reaches it still writes the shapes it ran (exit 3); timeout stops a hung one.
  TESSERA_GEMM_DEFAULTS=$database timeout 560 "$build/benchmark/gemm/bench_gemm_shapes" \
    --shapes "${shape_suites[@]}" "${untuned_suites[@]}" --reps 5 --time-limit 530 --json "$out/shapes-bench.json"
  local status=$?
  python3 gen/plot_shapes.py "$out/shapes-bench.json" "$out/shapes-bench.png"
  return $status
}

# time_database_set DATABASE JSON SECONDS SUITE...: the build's tuner rebuilt with DATABASE's
# configurations alone times each at every shape of the suites (no budget) into JSON, stopped after
# SECONDS (TESSERA_MATRIX_SECONDS overrides it); the build is configured back after. Fails where the
# build or tune_all does (a stopped run still leaves its JSON, its cut shapes marked partial).
time_database_set() {
  local database=$1 json=$2 seconds=$3 set=$build/database-set.json status=0
  shift 3
  configure && python3 gen/database_tuning_set.py "$database" --output "$set" || return 1
  cmake -S . -B "$build" -DTUNING_CONFIG="$set" > /dev/null && cmake --build "$build" -j"$jobs" --target tune_all || status=1
  if [ $status -eq 0 ]; then
    local start=$SECONDS
    tuner_command "$build"
    timeout -s TERM "${TESSERA_MATRIX_SECONDS:-$seconds}" "${tuner[@]}" \
      --shapes "$@" --reps 3 --rounds 3 --finalists 1 --json "$json" || status=1
    echo "tune_all over the database's configurations: $((SECONDS - start)) s"
  fi
  cmake -S . -B "$build" -DTUNING_CONFIG= > /dev/null
  return $status
}

# Every configuration of the database (the shapes-tune one of this machine when there is one, else
# the shipped one) measured at every shape, tuned and untuned: the matrix on which
# gen/selection_replay.py --matrix scores the selection rule at shapes it did not see.
step_selection-matrix() {
  local database=$shapes_database status=0
  [ -f "$database" ] && [ -z "${TESSERA_SHAPES_SHIPPED:-}" ] || database=configs/defaults/nvidia_gpu.json
  echo "database: $database"
  time_database_set "$database" "$out/selection-matrix.json" 460 "${untuned_suites[@]}" "${shape_suites[@]}" || status=1
  cp "$database" "$out/selection-matrix-database.json"
  # After shapes-tune on this machine: its database with the timings as measured entries.
  if [ $status -eq 0 ] && [ "$database" = "$shapes_database" ] && [ -f "$build/shapes/shapes-tune.json" ]; then
    python3 gen/select_defaults.py "$build/shapes/shapes-tune.json" --measured "$out/selection-matrix.json" \
      --target nvidia_gpu --output_dir "$build/shapes" > /dev/null && cp "$shapes_database" "$out/nvidia_gpu.json" || status=1
  fi
  return $status
}

# select_into FOLDER DATABASE ARGS...: select_defaults.py ARGS into a copy of DATABASE in FOLDER (made
# anew), the last of its notes printed; the result also to $out/nvidia_gpu.json.
select_into() {
  local folder=$1 database=$2
  shift 2
  rm -rf "$folder" && mkdir -p "$folder" && cp "$database" "$folder/nvidia_gpu.json" &&
    python3 gen/select_defaults.py "$@" --target nvidia_gpu --output_dir "$folder" | tail -3 &&
    cp "$folder/nvidia_gpu.json" "$out/nvidia_gpu.json"
}

coverage_tuned=$build/coverage-tuned
step_coverage-tune() {
  targets tune_all || return 1
  local start=$SECONDS status=0 shapes=${TESSERA_COVERAGE_TUNE_SHAPES:-configs/shapes/coverage_tune.json}
  tuner_command "$build"
  # SIGTERM: what was tuned is saved, the shape cut short marked partial (select_defaults skips it).
  timeout -s TERM "${TESSERA_COVERAGE_SECONDS:-450}" "${tuner[@]}" --shapes "$shapes" \
    --budget "${TESSERA_COVERAGE_BUDGET:-24}" --reps 3 --rounds 5 --json "$out/coverage-tune.json" || status=1
  echo "tune_all --shapes $shapes: exit $status, $((SECONDS - start)) s"
  [ -f "$out/coverage-tune.json" ] || return 1
  select_into "$coverage_tuned" configs/defaults/nvidia_gpu.json "$out/coverage-tune.json" || status=1
  return $status
}

# The measured rule's evidence between the tuned shapes: the database's configurations timed at the
# coverage shapes, merged into a copy of that database as measured entries (its tuned entries
# untouched). A shape the timeout cut short is left out (partial), the others are used.
step_coverage-matrix() {
  local merged=$build/coverage-database status=0 database=configs/defaults/nvidia_gpu.json
  [ -f "$coverage_tuned/nvidia_gpu.json" ] && database=$coverage_tuned/nvidia_gpu.json
  echo "database: $database"
  local shapes
  read -ra shapes <<< "${TESSERA_COVERAGE_SHAPES:-configs/shapes/coverage.json}"
  time_database_set "$database" "$out/coverage-matrix.json" 430 "${shapes[@]}" || status=1
  if [ -f "$out/coverage-matrix.json" ]; then
    select_into "$merged" "$database" --measured "$out/coverage-matrix.json" --evidence "${shapes[@]}" || status=1
  fi
  return $status
}

step_configuration-set() {
  [ -n "${TESSERA_SET:-}" ] && [ -n "${TESSERA_SET_SHAPES:-}" ] ||
    { echo "configuration-set: name the configurations (TESSERA_SET) and the shape files (TESSERA_SET_SHAPES)"; return 1; }
  local shapes
  read -ra shapes <<< "$TESSERA_SET_SHAPES"
  time_database_set "$TESSERA_SET" "$out/configuration-set.json" 500 "${shapes[@]}"
}

step_shapes-split() {
  targets bench_gemm_shapes || return 1
  TESSERA_GEMM_DEFAULTS=benchmark/gemm/nvidia_classes_split_chosen.json timeout 560 \
    "$build/benchmark/gemm/bench_gemm_shapes" --shapes "${shape_suites[@]}" "${untuned_suites[@]}" --reps 5 \
    --time-limit 530 --json "$out/shapes-split.json"
  local status=$?
  python3 gen/plot_shapes.py "$out/shapes-split.json" "$out/shapes-split.png"
  return $status
}

step_launch() {
  targets bench_launch_overhead || return 1
  bench 300 benchmark/bench_launch_overhead launch --benchmark_min_time=0.5 --benchmark_repetitions=3
}

step_mpi-tune() {
  targets tune_all || return 1
  grep -q '^TESSERA_TUNER_MPI:INTERNAL=\(1\|ON\|TRUE\)' "$build/CMakeCache.txt" ||
    { echo "tune_all was built without MPI (mpicxx: ${mpicxx:-none})"; return 1; }
  local gpus=${TESSERA_MPI_RANKS:-$(nvidia-smi -L | wc -l)} status=0
  local sweep=("$build/tools/auto_tuner/tune_all" --shapes "${shape_suites[@]}" --budget "${TESSERA_SHAPES_BUDGET:-10}"
               --reps 3 --rounds 5)
  rm -rf /tmp/mpi-cache-one /tmp/mpi-cache-ranks
  local start=$SECONDS
  TESSERA_CACHE_DIR=/tmp/mpi-cache-one timeout 300 "${sweep[@]}" --json /tmp/mpi-one.json || status=1
  local one=$((SECONDS - start))
  echo "one GPU: $one s"
  start=$SECONDS
  # --bind-to none: OpenMPI binds each of two ranks to one core, where its kernel builds would queue.
  TESSERA_CACHE_DIR=/tmp/mpi-cache-ranks timeout 300 "$mpirun" -n "$gpus" --bind-to none "${sweep[@]}" \
    --json /tmp/mpi-ranks.json || status=1
  local ranks=$((SECONDS - start))
  echo "$gpus ranks: $ranks s, $(python3 -c "print(f'{$ranks / $one:.3f}')")x the one GPU's time"
  python3 gen/compare_sweeps.py /tmp/mpi-one.json /tmp/mpi-ranks.json --seconds "$one" "$ranks" \
    --json "$out/mpi-tune.json" || status=1
  return $status
}

for step in "$@"; do
  declare -F "step_$step" >/dev/null || { echo "gpu-run: unknown step '$step'"; usage; }
done

{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
  date -u
  git log -1 --format='commit %H %s' 2>/dev/null
  targets tessera-info >/dev/null && "$build/tools/tessera-info"
} >"$out/device.txt" 2>&1

failures=0
for step in "$@"; do
  start=$SECONDS
  "step_$step" >"$out/$step.log" 2>&1
  status=$?
  {
    echo "== $step: exit $status, $((SECONDS - start)) s"
    grep -E "tests passed|FAILED|Failed|^== |BEST|DEFAULT KEPT|PASS|FAIL|exit [0-9]|error:|geometric mean|: [0-9]+ s$|ranks: |same winner|winners differ|^rank [0-9]+ \(|compare_sweeps: [0-9]+ problems" "$out/$step.log" | cut -c1-240 | tail -60
  } | tee -a "$out/$step.log"
  [ $status -eq 0 ] || failures=$((failures + 1))
done
exit $failures
