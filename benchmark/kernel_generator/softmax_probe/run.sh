#!/usr/bin/env bash
# On the GPU machine, from the repository root: source .gpu/env.sh && benchmark/kernel_generator/softmax_probe/run.sh
set -uo pipefail
here=benchmark/kernel_generator/softmax_probe
out=${OUT:-/tmp/softmax-probe}
mkdir -p "$out"
$here/derive.sh  # the hand-edited variants, beside the generated kernels
g++ -O2 -std=c++17 $here/probe.cpp -I"${GPU_PREFIX:-/usr}/usr/include" -L"${GPU_PREFIX:-/usr}/usr/lib/x86_64-linux-gnu" \
  -lOpenCL -o /tmp/softmax_probe || exit 1
/tmp/softmax_probe $here/softmax.cl $here 2>&1 | tee "$out/softmax_probe.txt"
