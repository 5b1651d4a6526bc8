#!/usr/bin/env bash
# The post's four sweeps on the GPU machine (H100 through NVIDIA's OpenCL, its 16-core CPU
# through PoCL, and host:openblas), as run through the device tool:
#   source .gpu/setup.sh; bash tools/gpu/plots.sh "$OUT"
# Grids are subsets of the post's so that the whole fits one 10-minute call (see
# docs/PERFORMANCE.md); each sweep writes CSV and JSON, and the plots are drawn on a machine
# with gnuplot from the CSV (tools/plot_sweep). Also the digits model's accuracy per device.
set -u
out=${1:-gpu-out}
mkdir -p "$out"
clp=build/clparity
export XDG_CACHE_HOME=/tmp/clparity-xdg
# OpenBLAS's core by the instruction set, never assumed: Debian's 0.3.21 picks its generic core
# on the GPU machine's AVX-512 CPU, and SkylakeX on a CPU without AVX-512 would not run.
if [ -z "${OPENBLAS_CORETYPE:-}" ] && grep -qw avx512f /proc/cpuinfo; then
    export OPENBLAS_CORETYPE=SkylakeX
fi
{
    date -u
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
    $clp devices
    timeout 60 $clp peak
    timeout 120 $clp tune
} >"$out/setup.txt" 2>&1
common=(--engines cl:own,host:openblas --runs 3 --warmup 1)
sweep() { # sweep NAME SECONDS ARGS...
    local name=$1 secs=$2
    shift 2
    timeout "$secs" $clp sweep "$@" "${common[@]}" --csv "$out/$name.csv" --json "$out/$name.json" \
        >"$out/$name.txt" 2>&1
    echo "exit status $?" >>"$out/$name.txt"
}
sweep batch 100 --vary batch
sweep width 100 --vary width --grid 64,128,256,512,1024,2048
sweep depth 80 --vary depth --grid 128,256,512,1024,2048,3840
sweep params 100 --vary params --params 134217728
timeout 60 $clp compare --model tests/fixtures/digits.safetensors --input tests/fixtures/digits_x.npy \
    --labels tests/fixtures/digits_y.npy -d all >"$out/digits_compare_all.txt" 2>&1
echo "exit status $?" >>"$out/digits_compare_all.txt"
