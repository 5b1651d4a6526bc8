#!/usr/bin/env bash
# 2026-11-30 (session c), sixth GPU call (H200): tiles with more groups per compute unit against
# gemm (a launch per layer) at d=128 and B=257..2048 (issue 34, row 3), dec.py.
#   bash docs/results/2026-11-30c-gpu/run6.sh   (writes $OUT/run6/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/clparity build/
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c6
H=docs/results/2026-11-30c-gpu
O=${OUT:-/tmp/out}/run6
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; build/clparity --version; } > "$O/env.txt" 2>&1
D="python3 $H/dec.py $O/t.txt"
$D 128 128 2048 rule=-:- t2s8=-:path=tiles,rm=2,sg=8 t2s4=-:path=tiles,rm=2,sg=4 t2s16=-:path=tiles,rm=2,sg=16 t1s16=-:path=tiles,rm=1,sg=16 t4s8=-:path=tiles,rm=4,sg=8
$D 128 128 512 rule=-:- t2s8=-:path=tiles,rm=2,sg=8 t1s8=-:path=tiles,rm=1,sg=8 t1s4=-:path=tiles,rm=1,sg=4
$D 128 128 1024 rule=-:- t2s8=-:path=tiles,rm=2,sg=8 t1s8=-:path=tiles,rm=1,sg=8
$D 128 128 256 rule=-:- t1s8=-:path=tiles,rm=1,sg=8 t2s8=-:path=tiles,rm=2,sg=8 t2s4=-:path=tiles,rm=2,sg=4
cut -c1-150 "$O/t.txt"
