#!/usr/bin/env bash
# A compiler and linker launcher that logs how long each step took, to find what makes the
# build (most of CI's time) slow:
#   TESSERA_COMPILE_TIMES=/tmp/times.tsv cmake -S . -B build \
#     -DCMAKE_CXX_COMPILER_LAUNCHER=$PWD/scripts/compile-timer.sh \
#     -DCMAKE_CXX_LINKER_LAUNCHER=$PWD/scripts/compile-timer.sh
#   sort -rn /tmp/times.tsv | head
# Each line: seconds, then the file the step wrote.
start=$EPOCHREALTIME
"$@"
status=$?
output=
previous=
for argument in "$@"; do
  [ "$previous" = "-o" ] && output=$argument
  previous=$argument
done
awk -v s="$start" -v e="$EPOCHREALTIME" -v o="$output" 'BEGIN { printf "%.1f\t%s\n", e - s, o }' \
  >> "${TESSERA_COMPILE_TIMES:-/dev/null}"
exit $status
