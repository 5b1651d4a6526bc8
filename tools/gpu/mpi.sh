#!/usr/bin/env bash
# Issue 15 on the GPU machine: compare --mpi and train --mpi with one rank per GPU (NVIDIA's
# OpenCL, CUDA_VISIBLE_DEVICES per rank) plus one rank for PoCL on the CPU, through
# tests/mpi/rank.sh; then the same devices with -d all in one process. Run through the device
# tool with carry [".gpu", "build"] (or a folder holding the clparity binary, given as $2):
#   source .gpu/setup.sh; bash tools/gpu/mpi.sh "$OUT" [build/clparity]
# Writes mpi_gpu.txt (every command, its output and exit status).
set -u
out=${1:-gpu-out}
clp=${2:-build/clparity}
mkdir -p "$out"
export XDG_CACHE_HOME=/tmp/clparity-xdg OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# OpenBLAS's core by the instruction set, never assumed: Debian's 0.3.21 picks its generic core
# on the GPU machine's AVX-512 CPU, and SkylakeX on a CPU without AVX-512 would not run.
if [ -z "${OPENBLAS_CORETYPE:-}" ] && grep -qw avx512f /proc/cpuinfo; then
    export OPENBLAS_CORETYPE=SkylakeX
fi
icd=/tmp/clparity-icd
rm -rf "$icd" && mkdir -p "$icd/gpu" "$icd/pocl" "$icd/both"
for f in /etc/OpenCL/vendors/*.icd; do
    case $(cat "$f") in
    *nvidia*) cp "$f" "$icd/gpu/" && cp "$f" "$icd/both/" ;;
    *pocl*) cp "$f" "$icd/pocl/" && cp "$f" "$icd/both/" ;;
    esac
done
ngpu=$(nvidia-smi -L | grep -c '^GPU')
icds="" cuda=""
for ((g = 0; g < ngpu; ++g)); do
    icds+="$icd/gpu:"
    cuda+="$g:"
done
export CLPARITY_TEST_RANK_ICDS="$icds$icd/pocl" CLPARITY_TEST_RANK_CUDA="$cuda"
np=$((ngpu + 1))
mpi=(mpirun --allow-run-as-root --oversubscribe -np "$np" tests/mpi/rank.sh "$clp")
show() { echo; echo "\$ $*"; "$@"; echo "exit status: $?"; }
{
    date -u
    nvidia-smi -L
    mpirun --version | head -1
    ldd "$clp" | grep -E 'libmpi|not found'
    echo "ranks: $np (CLPARITY_TEST_RANK_ICDS=$CLPARITY_TEST_RANK_ICDS CLPARITY_TEST_RANK_CUDA=$cuda)"
    show "${mpi[@]}" compare --mpi -d all --engines cl:own,host:exact --expect bitwise \
        --save /tmp/clparity-mpi-save
    show "$clp" diff /tmp/clparity-mpi-save --expect bitwise
    show "${mpi[@]}" compare --mpi -d all
    show "${mpi[@]}" train --mpi -d all --steps 20 --every 5
    echo
    echo "== the same devices with -d all in one process (OCL_ICD_VENDORS=$icd/both)"
    OCL_ICD_VENDORS=$icd/both show "$clp" compare -d all --engines cl:own,host:exact \
        --expect bitwise
} >"$out/mpi_gpu.txt" 2>&1
