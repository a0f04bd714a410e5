#!/usr/bin/env bash
# On the GPU machine, from the repository root: source .gpu/env.sh && benchmark/kernel_generator/vector_probe/probe.sh
set -euo pipefail
g++ -std=c++17 -O2 -DCL_HPP_MINIMUM_OPENCL_VERSION=110 -DCL_HPP_TARGET_OPENCL_VERSION=300 -DCL_TARGET_OPENCL_VERSION=300 \
  benchmark/kernel_generator/vector_probe/probe.cpp -lOpenCL -o /tmp/vector_probe
/tmp/vector_probe
