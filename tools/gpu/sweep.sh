#!/usr/bin/env bash
# The GPU machine's part of issue 4 (peak, sweep, the flush of deep models), as run through the
# device tool with carry [".gpu", "build"]:
#   source .gpu/setup.sh; bash tools/gpu/sweep.sh "$OUT"
# build/clparity-noflush, when present, is a build without cl_forward's clFlush, for the A/B.
# Every step has its own time limit so that the whole stays inside one 10-minute call.
# Not yet run there (2026-11-23): the device tool copies the session's main checkout, where
# peak and sweep do not exist until this branch is merged.
set -u
out=${1:-gpu-out}
mkdir -p "$out"
o=$out # eight files at most come back: written in place, step by step
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
    clinfo -l
    $clp devices
} >"$o/devices.txt" 2>&1
{
    echo "== clparity peak (measured)"
    timeout 60 $clp peak --json "$o/peak.json"
    echo "== clparity peak (cached)"
    timeout 60 $clp peak
    echo "== clpeak on the NVIDIA device (for comparison)"
    nv=$(clinfo -l | sed -n 's/^Platform #\([0-9]*\): NVIDIA.*/\1/p' | head -1)
    timeout 60 clpeak -p "${nv:-0}" -d 0 --compute-sp --global-bandwidth --kernel-latency 2>&1 |
        tail -30
} >"$o/peak.txt" 2>&1
timeout 90 $clp sweep --vary batch --quick --csv "$o/batch_quick.csv" \
    >"$o/batch_quick.txt" 2>&1
timeout 120 $clp sweep --vary width --grid 64,256,1024,2048 --runs 3 --warmup 1 \
    --csv "$o/width.csv" >"$o/width.txt" 2>&1
echo "exit status $?" >>"$o/width.txt"
# The flush: cl:relaxed (one kernel per layer) at 131072 layers, without and with it.
for dev in NVIDIA Portable; do
    for bin in build/clparity-noflush build/clparity; do
        [ -x "$bin" ] || continue
        echo "== $bin run --no-reference -d $dev --engines cl:relaxed --d-model 64 --layers 131072"
        TIMEFORMAT='process %R s'
        time (timeout 60 "$bin" run --no-reference -d "$dev" --engines cl:relaxed \
            --d-model 64 --layers 131072 --runs 3 --warmup 1 2>&1 |
            grep -E 'cl:relaxed|clparity')
    done
done >"$o/flush.txt" 2>&1
