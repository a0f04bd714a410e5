#!/usr/bin/env bash
# On the GPU machine, from the repository root: source .gpu/env.sh && benchmark/kernel_generator/softmax_probe/reread.sh
# (here on PoCL, a quick check: PROBE_SCALE=64 benchmark/kernel_generator/softmax_probe/reread.sh)
set -uo pipefail
here=benchmark/kernel_generator/softmax_probe
out=${OUT:-/tmp/softmax-probe}
mkdir -p "$out"
g++ -O2 -std=c++17 $here/reread.cpp -I"${GPU_PREFIX:-/usr}/usr/include" -L"${GPU_PREFIX:-/usr}/usr/lib/x86_64-linux-gnu" \
  -lOpenCL -o /tmp/softmax_reread || exit 1
/tmp/softmax_reread $here/reread.cl 2>&1 | tee "$out/softmax_reread.txt"
