#!/usr/bin/env bash
# 2026-11-29 (fourth session), fifth GPU call (H200, its 16 Xeon cores): issue 35's rows 1, 2
# and 5 with the host references of main 83c9ade (zeroed state, non-temporal Wt panels, the
# tiles' plain stores), never measured at 16 threads before: tools/bench --train --only 1,2,5.
#   bash docs/results/2026-11-29d-gpu/run5.sh          (writes $OUT/run5.tgz)
set -u
source .gpu/setup.sh
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c5
mkdir -p build && cp build-gpu/clparity build/clparity
R=${OUT:-/tmp/out}
O=$R/run5
mkdir -p "$O"
pack() { tar czf "$R/run5.tgz" -C "$R" run5; }
trap pack EXIT
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; build/clparity --version; } > "$O/env.txt" 2>&1
timeout 230 python3 tools/bench --train --gpu NVIDIA --only 1,2,5 --rounds 1 --train-steps 5 \
    --train-timeout 100 --train-json "$O/bench_train_gpu.json" > "$O/bench_train_gpu.txt" 2>&1
echo "rc=$?" >> "$O/bench_train_gpu.txt"
