#!/usr/bin/env bash
# The main job: install, build, describe the OpenCL device and run a smoke kernel on it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
build=${TESSERA_BUILD_DIR:-$root/build}
"$build/tools/tessera-info"
"$build/tools/tessera-smoke"
