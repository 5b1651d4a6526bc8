#!/usr/bin/env bash
# 2026-11-29 (second session), seventh GPU call (H200): issue 35's targets in one run with the
# session's last binary (main a5610c4: the one-launch step, the measurements and the host
# references on one shared pool): tools/bench --train, every row.
#   bash docs/results/2026-11-29b-gpu/run7.sh          (writes $OUT/run7.tgz)
set -u
source .gpu/setup.sh
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1
R=${OUT:-/tmp/out}
O=$R/run7
mkdir -p "$O"
pack() { tar czf "$R/run7.tgz" -C "$R" run7; }
trap pack EXIT
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; build/clparity --version; } > "$O/env.txt" 2>&1
XDG_CACHE_HOME=/tmp/c7 timeout 400 python3 tools/bench --train --gpu NVIDIA --pocl portable --rounds 1 \
    --train-steps 5 --train-timeout 120 --train-json "$O/bench_train_gpu.json" > "$O/bench_train_gpu.txt" 2>&1
echo "rc=$?" >> "$O/bench_train_gpu.txt"
