#!/usr/bin/env bash
# The tests under sanitizers, each in a build tree of its own, with only what the run needs
# (no benchmarks, the CI tuning set):
#
#   scripts/test-sanitizers.sh address   ASan + UBSan (build-asan/): every area's tests but
#                                        the slow and fuzz labels and the ones that only build
#   scripts/test-sanitizers.sh thread    TSan (build-tsan/): the concurrency tests (program
#                                        cache, kernel caches, threads sharing kernels)
#
# A report fails the run. PoCL's own leaks and races are suppressed, each by name, in
# scripts/sanitizers/*.supp (see the reasons there); tessera's never are.
# TESSERA_SANITIZER_BUILD_DIR overrides the build tree.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:-}
supp=$root/scripts/sanitizers
case "$mode" in
  address)
    flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
    # -O0: the instrumented build is most of CI's time and -O1 doubles it (the fused GEMM tests'
    # expression templates alone: 282 s at -O1, 131 s at -O0); the tests' own time barely moves.
    optimize=-O0
    # clang (Debian's clang 14, its OpenMP in libomp-14-dev): it instruments the tests' expression
    # templates in half GCC's time (the kernel generator's reduction tests: 52 s against 104 s),
    # and it is a second compiler reading the code.
    compilers=(-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++)
    build=${TESSERA_SANITIZER_BUILD_DIR:-$root/build-asan}
    # Every area's test executables and the tools their tests run (bench_gemm_shapes among them);
    # not the slow suites, the Google Benchmark programs or the full tuners (the tests run the _ci
    # ones): the build is most of CI's time.
    targets=(tessera_runtime_tests tessera_cache_probe tessera_exit_probe tessera_codegen_tests
             tessera_kernel_generator_tests tessera_kernel_generator_cache_tests tessera_blas_tests
             tessera_fused_gemm_tests tessera_unified_tests tessera_unified_tracing_tests tile_tests tile_cli_tests tessera-tile tessera_info_tests
             tessera-info tessera_baselines_tests tessera_auto_tuner_tests tune_nn_ci tune_nt_ci
             tune_tn_ci tune_all_ci tune_replay gemm_pick tessera_gemm_round_trip bench_gemm_shapes)
    # Not run: the slow and fuzz labels (and the placeholders of the slow suites left unbuilt),
    # the install test (it builds a tree of its own), the tests that only run the compiler, and
    # the mpi label: its ranks are started by mpirun, whose OpenMPI keeps its allocations to the
    # end (LeakSanitizer would report OpenMPI's, not tessera's). The sweep's logic is device- and
    # MPI-free and runs here (tessera_auto_tuner_tests' Sweep tests).
    tests=(-LE "slow|fuzz|mpi"
           -E "^install\.|compile_fail|typed_config_compiles_only_when_valid|rules_agree_with_the_compiler|^(tessera_blas_slow_tests|tessera_unified_cg_tests)_NOT_BUILT$")
    # intercept_tls_get_addr=0: with it, GCC 12's LeakSanitizer reads a garbage dynamic-TLS block
    # of the driver's libraries on glibc 2.36 and its tracer crashes (signal 11) at exit.
    export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=0:strict_string_checks=1:intercept_tls_get_addr=0"
    export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
    export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$supp/ubsan.supp"
    ;;
  thread)
    flags="-fsanitize=thread"
    optimize=-O1  # TSan's documented level; its build is small
    build=${TESSERA_SANITIZER_BUILD_DIR:-$root/build-tsan}
    targets=(tessera_runtime_tests tessera_cache_probe tessera_exit_probe tessera_unified_tracing_tests
             tessera_kernel_generator_cache_tests)
    # Tests where threads (or processes) share a cache, a kernel or a queue.
    tests=(-R "ProgramCache|KernelCache\.|KernelLaunch\.SeveralThreads|covering_event|runtime_exit|unified_tracing\.traces_on_several_threads|KernelGeneratorCache")
    export TSAN_OPTIONS="suppressions=$supp/tsan.supp:halt_on_error=1:second_deadlock_stack=1:print_suppressions=0"
    compilers=()  # GCC: its build is small
    ;;
  *)
    echo "usage: $0 address|thread" >&2
    exit 2
    ;;
esac

"$root/scripts/install-deps.sh"
# shellcheck source=scripts/test-environment.sh
source "$root/scripts/test-environment.sh"
# The tests' program cache is the test command's (scripts/test.sh): its kernels are built already.
kernel_cache=${TESSERA_BUILD_DIR:-$root/build}/test-kernel-cache
selected=$(IFS=';'; echo "${targets[*]}")
cmake -S "$root" -B "$build" "${compilers[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTUNING_TARGET=CI -DTESSERA_BUILD_BENCHMARKS=OFF \
  "-DTESSERA_TEST_CACHE_DIR=$kernel_cache" "-DTESSERA_SELECTED_TARGETS=$selected" \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$optimize -g1 $flags" "-DCMAKE_EXE_LINKER_FLAGS=$flags" \
  "-DCMAKE_SHARED_LINKER_FLAGS=$flags" >/dev/null
# One target for all (tessera_selected): make builds several named targets one at a time.
cmake --build "$build" -j "$(nproc)" --target tessera_selected
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" "${tests[@]}"
