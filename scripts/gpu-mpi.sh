# Sourced by the GPU machine's scripts (scripts/gpu-run.sh, benchmark/gemm/split_probe/run.sh): finds
# OpenMPI and sets mpicxx, mpirun and the environment its ranks need; tuner_command BUILD sets the
# array tuner to BUILD's tune_all, under mpirun with one rank per GPU where the machine has several
# and tune_all was built with MPI (configure with ${mpicxx:+-DMPI_CXX_COMPILER=$mpicxx}).

# OpenMPI: the machine's (the H200 machines have 4.1.6 in /usr), or Debian's from .gpu/debs (named
# *.openmpi there, and relocated to GPU_PREFIX: OPAL_PREFIX tells it where it lies). Where the
# machine has its own, the packed libraries leave the prefix: on LD_LIBRARY_PATH they would be
# loaded by the machine's mpirun and its plugins (a PMIx of another version: undefined symbols).
if [ -x /usr/bin/mpirun ] && [ -n "${GPU_PREFIX:-}" ]; then
  _ml=$GPU_PREFIX/usr/lib/x86_64-linux-gnu
  rm -rf "$_ml"/openmpi "$_ml"/libmpi* "$_ml"/libopen-* "$_ml"/libpmix* "$_ml"/libhwloc* "$_ml"/libevent* \
    "$_ml"/libfabric* "$_ml"/libucx* "$_ml"/libuc[mpst]* "$_ml"/libibverbs* "$_ml"/librdmacm* "$_ml"/libnl-* \
    "$_ml"/libpsm* "$_ml"/libmunge* "$_ml"/libnuma* "$_ml"/libxnvctrl* "$_ml"/libpciaccess* "$GPU_PREFIX"/usr/bin/*openmpi*
fi
mpicxx=$(command -v mpicxx || command -v mpicxx.openmpi || true)
mpirun=$(command -v mpirun || command -v mpirun.openmpi || true)
if [ -n "${GPU_PREFIX:-}" ] && [[ $mpirun == "$GPU_PREFIX"/* ]]; then export OPAL_PREFIX=$GPU_PREFIX/usr; fi
# Root in a container: allowed; no cross-memory attach between ranks (ptrace is off).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none

# tuner_command BUILD: each shape is measured whole on one GPU; the ranks share the shapes out.
tuner_command() {
  local gpus
  gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
  tuner=("$1/tools/auto_tuner/tune_all")
  if [ "${gpus:-0}" -gt 1 ] && grep -q '^TESSERA_TUNER_MPI:INTERNAL=\(1\|ON\|TRUE\)' "$1/CMakeCache.txt"; then
    # --bind-to none: OpenMPI binds each of two ranks to one core, where its kernel builds would queue.
    tuner=("$mpirun" -n "$gpus" --bind-to none "${tuner[@]}")
  fi
  echo "tuner: ${tuner[*]}"
}
