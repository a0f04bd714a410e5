#!/usr/bin/env bash
# The hand-edited variants of the generator's kernels that probe.cpp runs, each one difference
# further from what the generator wrote (see NOTES.md), into the folder given (default: generated/).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/generated}
g=$here/generated
# The local sizes as constants.
sed 's/const int L0 = get_local_size(0);/const int L0 = 8;/; s/const int L1 = get_local_size(1);/const int L1 = 32;/' \
  "$g/gen_g_rows_held256.cl" > "$out/gen_rows_held256_const.cl"
sed 's/const int L0 = get_local_size(0);/const int L0 = 1024;/; s/const int L1 = get_local_size(1);/const int L1 = 1;/' \
  "$g/gen_g_cols_held1024.cl" > "$out/gen_cols_held1024_const.cl"
# No clamps of the element and row indices.
sed 's/min(\(e[0-9]*\), cols - 1)/\1/; s/min(i, rows - 1)/i/' "$out/gen_rows_held256_const.cl" \
  > "$out/gen_rows_held256_const_noclamp.cl"
# No checks on the stores.
sed 's/if (i < rows \&\& e[0-9]* < cols) {/{/' "$out/gen_rows_held256_const_noclamp.cl" \
  > "$out/gen_rows_held256_const_noclamp_nostorecheck.cl"
# No masks in the levels.
sed 's/(e[0-9]* < cols ? \(v[0-9]*\) : -INFINITY)/\1/g; s/(e[0-9]* < cols ? \(v[0-9]*\) : 0)/\1/g' \
  "$out/gen_rows_held256_const_noclamp_nostorecheck.cl" > "$out/gen_rows_held256_bare.cl"
