#!/usr/bin/env bash
# 2026-11-30 (session c), fourth GPU call (H200): cl:cr's tiles settings at d=128 and B=65..256
# (issue 34, row 3), main 4c2e513's binary and kernels, cl:own beside each (dec.py).
#   bash docs/results/2026-11-30c-gpu/run4.sh   (writes $OUT/run4/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/clparity build/
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c4
H=docs/results/2026-11-30c-gpu
O=${OUT:-/tmp/out}/run4
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; build/clparity --version; } > "$O/env.txt" 2>&1
D="python3 $H/dec.py $O/t.txt"
c() { for s in "$@"; do printf '%s=-:path=tiles,%s ' "$(echo $s | tr ',=' '_-')" "$s"; done; }
$D 128 128 256 default=-:- $(c rm=1,sg=2 rm=1,sg=4 rm=1,sg=8 rm=1,sg=4,tk=8 rm=1,sg=8,tk=8 rm=1,sg=4,tk=32 rm=1,sg=2,tk=32 rm=2,sg=2 rm=2,sg=4 rm=2,sg=2,tk=32)
for r in 1 2; do
  for s in "128 128 256" "128 128 128" "128 128 65" "128 128 192" "64 128 256" "100 32 200" "128 8 256"; do
    $D $s default=-:- $(c rm=1,sg=4 rm=1,sg=8 rm=1,sg=4,tk=8 rm=1,sg=2)
  done
done
$D 128 128 2048 default=-:- gemm_tk32=-:path=gemm,tk=32 $(c rm=1,sg=4 rm=1,sg=8)
cat "$O/t.txt" | cut -c1-140
