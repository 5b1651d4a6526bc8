#!/usr/bin/env bash
# 2026-11-29, the session's third GPU call (H200): tools/bench --cr's GPU rows 1-4 (issue 34,
# acceptance 1), then cl:cr against host:cr at a sweep's smallest and largest point with each
# method forced in turn (acceptance 2; --expect cr fails on any difference). From the
# repository root with build/clparity, build/libclparity.so* and .gpu/ carried:
#   bash docs/results/2026-11-29-gpu/run2b.sh          (writes $OUT/run2b.tgz)
set -u
source .gpu/setup.sh
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1
R=${OUT:-/tmp/out}
O=$R/run2b
mkdir -p "$O"
T0=$SECONDS
log() { echo "== $1 at t=$((SECONDS - T0)) s" | tee -a "$O/parts.txt"; }
pack() { tar czf "$R/run2b.tgz" -C "$R" run2b; }
trap pack EXIT
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; build/clparity --version; } > "$O/env.txt" 2>&1
log bench-cr
XDG_CACHE_HOME=/tmp/c2b timeout 340 python3 tools/bench --cr --gpu NVIDIA --only 1,2,3,4 --rounds 1 \
    --cr-min-time 0.2 --cr-json "$O/bench_cr_gpu.json" > "$O/bench_cr_gpu.txt" 2>&1
echo "rc=$?" >> "$O/bench_cr_gpu.txt"
log cr-bits
for m in "" "method=f32" "exact=1"; do
    for shape in "--d-model 16 --layers 2 --batch 1" "--d-model 4096 --layers 8 --batch 64"; do
        left=$((570 - (SECONDS - T0)))
        [ $left -lt 15 ] && { echo "### stopped: time"; break 2; }
        echo "### CLPARITY_CR_TUNE=$m $shape"
        CLPARITY_CR_TUNE=$m XDG_CACHE_HOME=/tmp/c2b timeout $((left < 60 ? left : 60)) build/clparity compare \
            -d gpu,host --engines cl:cr,host:cr --expect cr --runs 1 --warmup 0 $shape 2>&1 |
            grep -E "^  cr  |^ran:|^ +cl:cr on|error|^clparity"
        echo "rc=${PIPESTATUS[0]}"
    done
done > "$O/cr_bits.txt" 2>&1
log end
