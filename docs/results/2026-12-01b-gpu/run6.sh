#!/usr/bin/env bash
# 2026-12-01 (second session), sixth GPU call (H200, its 16 Xeon cores): issue 35's five targets with main
# 8be5675's binary in one `tools/bench --train` run of rows 1, 2, 4, 5 (3 rounds) and one of
# row 3 (1 round, as before: PyTorch's graph and eager beside cl:own at each point).
#   bash docs/results/2026-12-01b-gpu/run6.sh          (writes $OUT/run1/)
set -u
source .gpu/setup.sh
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c6
mkdir -p build && cp build-gpu/clparity build/clparity
R=${OUT:-/tmp/out}
O=$R/run6
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; build/clparity --version; } > "$O/env.txt" 2>&1
timeout 330 python3 tools/bench --train --gpu NVIDIA --pocl portable --only 1,2,4,5 --rounds 3 --train-steps 10 \
    --train-timeout 100 --train-json "$O/bench_train_gpu.json" > "$O/bench_train_gpu.txt" 2>&1
echo "rc=$?" >> "$O/bench_train_gpu.txt"
timeout 230 python3 tools/bench --train --gpu NVIDIA --only 3 --rounds 1 --train-steps 5 \
    --train-timeout 100 --train-json "$O/bench_train_gpu_row3.json" > "$O/bench_train_gpu_row3.txt" 2>&1
echo "rc=$?" >> "$O/bench_train_gpu_row3.txt"
