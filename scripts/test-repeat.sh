#!/usr/bin/env bash
# The repeat-run check for flakiness: the test groups that once failed at random (threads and
# processes sharing the program cache, traced kernels built by several threads, exit with work
# queued) run TESSERA_REPEAT_RUNS times (default 10), two processes at once, on the build the
# test command made. Any failure, crash included, fails the check.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TESSERA_BUILD_DIR:-$root/build}
# shellcheck source=scripts/test-environment.sh
source "$root/scripts/test-environment.sh"
runs=${TESSERA_REPEAT_RUNS:-10}
log_dir=$(mktemp -d)
trap 'rm -rf "$log_dir"' EXIT

groups=(
  "$build/tests/unified/tessera_unified_tracing_tests --gtest_filter=unified_tracing.*"
  "$build/tests/runtime/tessera_runtime_tests --gtest_filter=ProgramCache*:runtime_exit.*:covering_event.*"
)
export TESSERA_CACHE_DIR=${TESSERA_CACHE_DIR:-$build/test-kernel-cache}
failures=0
for ((run = 1; run <= runs; ++run)); do
  for group in "${groups[@]}"; do
    # Two at once: the races were between processes (the disk cache) and with exit.
    $group > "$log_dir/a.txt" 2>&1 &
    first=$!
    status_b=0
    $group > "$log_dir/b.txt" 2>&1 || status_b=$?
    status_a=0
    wait "$first" || status_a=$?
    for result in "a:$status_a" "b:$status_b"; do
      if [ "${result#*:}" -ne 0 ]; then
        failures=$((failures + 1))
        echo "test-repeat: run $run, '$group' (${result%%:*}) exited with status ${result#*:}:" >&2
        tail -n 30 "$log_dir/${result%%:*}.txt" >&2
      fi
    done
  done
done
if [ "$failures" -ne 0 ]; then
  echo "test-repeat: $failures failing run(s) in $runs rounds" >&2
  exit 1
fi
echo "test-repeat: ${#groups[@]} groups x $runs rounds x 2 processes, no failure"
