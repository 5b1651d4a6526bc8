#!/usr/bin/env bash
# 2026-11-30 evening, sixth GPU call (H200): tools/bench --train's row 3 with main ab1ca5e.
#   bash docs/results/2026-11-30f-gpu/run6.sh      (writes $OUT/run6/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/clparity build/
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c6
O=${OUT:-/tmp/out}/run6
mkdir -p "$O"
timeout 250 tools/bench --train --gpu NVIDIA --only 3 --rounds 1 --train-steps 5 > "$O/bench_train_row3.txt" 2>&1
echo "bench rc=$?" >> "$O/bench_train_row3.txt"
