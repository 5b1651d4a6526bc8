#!/usr/bin/env bash
# 2026-11-30 evening, third GPU call (H200), run2's kernels: every block way of cl:own's step
# at a grid of shapes (for auto's rule: train_cl_tile.c), then tools/bench --train's row 3 whole.
#   bash docs/results/2026-11-30f-gpu/run3.sh      (writes $OUT/run3/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/* build/
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c3
O=${OUT:-/tmp/out}/run3
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; build/clparity --version; } > "$O/env.txt" 2>&1
{
for d in 256 512 1024 2048; do
  for B in 16 64 256 1024; do
    timeout 100 build/train_time NVIDIA $d 8 $B sgd 20 auto tiled1 tiled4 tiled8 stream
  done
done
for s in "128 32 64" "128 32 256" "256 32 64" "4096 4 64" "4096 4 256"; do
  timeout 100 build/train_time NVIDIA $s sgd 20 auto tiled1 tiled4 tiled8 stream
done
} > "$O/grid.txt" 2>&1
date -u >> "$O/env.txt"
timeout 330 tools/bench --train --gpu NVIDIA --only 3 --rounds 1 --train-steps 5 > "$O/bench_train_row3.txt" 2>&1
echo "bench rc=$?" >> "$O/bench_train_row3.txt"
date -u >> "$O/env.txt"
