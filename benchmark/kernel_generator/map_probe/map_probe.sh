#!/usr/bin/env bash
# On the GPU machine, from the repository root, with the library built in $B (default /tmp/b):
#   source .gpu/env.sh && benchmark/kernel_generator/map_probe/map_probe.sh
set -euo pipefail
B=${B:-/tmp/b}
g++ -std=c++20 -O2 -fopenmp -DCL_HPP_MINIMUM_OPENCL_VERSION=110 -DCL_HPP_TARGET_OPENCL_VERSION=300 \
  -DCL_TARGET_OPENCL_VERSION=300 -DFMT_SHARED -Iinclude benchmark/kernel_generator/map_probe/map_probe.cpp \
  $B/libtessera.a -lOpenCL -lfmt -o /tmp/map_probe
TESSERA_DEVICE=${TESSERA_DEVICE:-gpu} /tmp/map_probe
