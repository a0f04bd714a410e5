#!/usr/bin/env bash
# The tests: install, build, run every GoogleTest suite through CTest (on PoCL when there
# is no GPU) and the Python tests of gen/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
# shellcheck source=scripts/test-environment.sh
source "$root/scripts/test-environment.sh"
# The tests need only the small tuning set, and no benchmark: they are the main job's (whose
# build turns them on again), and compiling them is a minute of CI's time.
"$root/scripts/build.sh" -DTUNING_TARGET=CI -DTESSERA_BUILD_BENCHMARKS=OFF
build=${TESSERA_BUILD_DIR:-$root/build}
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" ${TESSERA_CTEST_ARGS:-}
if compgen -G "$root/gen/tests/test_*.py" >/dev/null; then
  python3 -m pytest -q "$root/gen/tests"
fi
