#!/usr/bin/env bash
# 2026-11-30 evening, fourth GPU call (H200): auto's new rule (train_cl_tile.c: 128x128 blocks
# from 128 work-groups, 64x64 from 64, the step in one launch only for small products) against
# every forced way, at run3's grid; and train's own check (every step's weights host:exact's)
# with auto at shapes whose products now mix block sizes.
#   bash docs/results/2026-11-30f-gpu/run4.sh      (writes $OUT/run4/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/* build/
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c4
O=${OUT:-/tmp/out}/run4
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; build/clparity --version; } > "$O/env.txt" 2>&1
{
for d in 256 512 1024 2048; do
  for B in 16 64 256 1024; do
    timeout 100 build/train_time NVIDIA $d 8 $B sgd 20 auto tiled1 tiled4 tiled8 stream auto
  done
done
for s in "128 32 64" "128 32 256" "256 32 64" "4096 4 64" "4096 4 256" "128 128 64" "128 128 1" "1024 16 64"; do
  timeout 100 build/train_time NVIDIA $s sgd 20 auto tiled1 tiled4 tiled8 stream auto
done
} > "$O/grid.txt" 2>&1
date -u >> "$O/env.txt"
{
for args in "--d-model 2048 --layers 2 --batch 256 --optimizer adam" \
            "--d-model 1000 --layers 3 --batch 250 --optimizer adamw --weight-decay 0.05" \
            "--d-model 520 --layers 3 --batch 1000 --optimizer momentum --nesterov" \
            "--d-model 4096 --layers 2 --batch 64 --optimizer sgd" \
            "--d-model 300 --layers 3 --batch 1030 --optimizer adam"; do
  timeout 120 build/clparity train -d NVIDIA,host --engines cl:own,host:exact --steps 4 --every 1 \
      --target random $args > /tmp/t.txt 2>&1
  echo "auto $args: rc=$? $(grep -c 'diverged' /tmp/t.txt) diverged"
done
} > "$O/bits.txt" 2>&1
date -u >> "$O/env.txt"
