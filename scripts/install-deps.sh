#!/usr/bin/env bash
# Installs what tessera needs to build, test and benchmark, from Debian's packages.
# Idempotent and fast when everything is present: apt runs only for missing packages.
set -euo pipefail

packages=(
  build-essential cmake git pkg-config
  ocl-icd-opencl-dev opencl-headers opencl-clhpp-headers pocl-opencl-icd clinfo
  libclblast-dev libopenblas-dev
  libbenchmark-dev libgtest-dev libgmock-dev
  nlohmann-json3-dev libfmt-dev libcli11-dev
  python3 python3-jinja2 python3-jsonschema python3-pytest python3-matplotlib
  clang libclang-rt-14-dev libomp-14-dev
  libopenmpi-dev openmpi-bin  # optional for the build: tune_* as the ranks of an MPI job
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# CMake and the tests run the first python3 on PATH, which may not be Debian's:
# make gen/'s imports available to that interpreter too.
py_modules="jinja2 jsonschema pytest matplotlib"
if ! python3 -c "import ${py_modules// /, }" 2>/dev/null; then
  if [ "$(command -v python3)" = /usr/bin/python3 ]; then
    echo "install-deps: Debian's python3 lacks one of: $py_modules" >&2
    exit 1
  fi
  echo "install-deps: installing $py_modules for $(command -v python3) with pip"
  python3 -m pip install -q jinja2 jsonschema pytest matplotlib
fi
echo "install-deps: all dependencies present"
