#!/usr/bin/env bash
# Offline check of mma_gemm.cl variants: clang (OpenCL C -> PTX) + ptxas sm_90 (registers, spills).
cd "$(git rev-parse --show-toplevel)"
grep -v '^#' "$1" | while read -r line; do
  declare -A v=([elem]=0 [ta]=0 [tb]=0 [bm]=128 [bn]=128 [bk]=32 [wm]=64 [wn]=64 [st]=3 [group]=8 [round]=0 [pipe]=1 [perm]=1)
  for w in $line; do v[${w%%=*}]=${w#*=}; done
  clang -x cl -cl-std=CL2.0 -target nvptx64-nvidia-cuda -march=sm_80 -O3 -S -Dasm=__asm__ -include benchmark/mma_probe/nv_shim.h \
    -DELEM=${v[elem]} -DTRANS_A=${v[ta]} -DTRANS_B=${v[tb]} -DBM=${v[bm]} -DBN=${v[bn]} -DBK=${v[bk]} -DWM=${v[wm]} \
    -DWN=${v[wn]} -DSTAGES=${v[st]} -DGROUP_M=${v[group]} -DROUND=${v[round]} -DPIPE=${v[pipe]} -DPERMUTE=${v[perm]} ${2:-benchmark/mma_probe/mma_gemm.cl} \
    -o /tmp/k.ptx 2>&1 | grep error | head -2
  sed -i 's/^.version .*/.version 8.0/; s/^.target .*/.target sm_90/' /tmp/k.ptx
  printf "%-60s " "$line"
  /usr/local/cuda/bin/ptxas -arch=sm_90 -v /tmp/k.ptx -o /tmp/k.cubin 2>&1 | grep -oE "Used [0-9]+ registers|[0-9]+ bytes spill stores" | tr '\n' ' '
  echo
  unset v
done
