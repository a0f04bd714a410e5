#!/usr/bin/env bash
# On the GPU machine, from the repository root: source .gpu/env.sh && benchmark/unified/column_probe/run.sh
# (here on PoCL, a quick check: PROBE_SCALE=64 benchmark/unified/column_probe/run.sh)
set -uo pipefail
here=benchmark/unified/column_probe
out=${OUT:-/tmp/column-probe}
mkdir -p "$out"
g++ -O2 -std=c++20 $here/probe.cpp -I"${GPU_PREFIX:-/usr}/usr/include" -L"${GPU_PREFIX:-/usr}/usr/lib/x86_64-linux-gnu" \
  -lOpenCL -o /tmp/column_probe || exit 1
OUT=$out /tmp/column_probe $here 2>&1 | tee "$out/column_probe.txt"
