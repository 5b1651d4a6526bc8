#!/usr/bin/env bash
# 2026-11-30 (second session), ninth GPU call (H200, its 16 Xeon cores): issue 35's targets with
# main 788f3bf (par_share; train's records through cp_trainer_weights_view):
# tools/bench --train, rows 1, 2, 4, 5 over 3 rounds, then row 3 over 1.
#   bash docs/results/2026-11-30b-gpu/run9.sh          (writes $OUT/run9/)
set -u
source .gpu/setup.sh
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c9
mkdir -p build && cp build-gpu/clparity build/clparity
R=${OUT:-/tmp/out}
O=$R/run9
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; build/clparity --version; } > "$O/env.txt" 2>&1
timeout 320 python3 tools/bench --train --gpu NVIDIA --pocl portable --only 1,2,4,5 --rounds 3 --train-steps 10 \
    --train-timeout 100 --train-json "$O/bench_train_gpu.json" > "$O/bench_train_gpu.txt" 2>&1
echo "rc=$?" >> "$O/bench_train_gpu.txt"
timeout 240 python3 tools/bench --train --gpu NVIDIA --only 3 --rounds 1 --train-steps 5 \
    --train-timeout 100 --train-json "$O/bench_train_gpu_row3.json" > "$O/bench_train_gpu_row3.txt" 2>&1
echo "rc=$?" >> "$O/bench_train_gpu_row3.txt"
