#!/usr/bin/env bash
# 2026-12-01, fifth GPU call (H200): run4's binary paired and unpaired layer 0's dx, which is
# never needed (a product more a step); this commit's (build-gpu/train_time) leaves it out,
# against 566859b's library (build-gpu/train_time_old: a launch per product), alternating;
# train's check against host:exact; tools/bench --train's row 3.
#   bash docs/results/2026-11-30g-gpu/run5.sh      (writes $OUT/run5/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/* build/
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c5
O=${OUT:-/tmp/out}/run5
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; build/clparity --version; } > "$O/env.txt" 2>&1
tt() { timeout 60 build/$1 NVIDIA "${@:2}" auto | sed "s/^/r$r $1 /"; }
{
for r in 1 2; do
  for b in train_time_old train_time; do
    tt $b 4096 8 1024 sgd 5
    tt $b 1024 16 64 sgd 40
    tt $b 1024 16 64 adam 40
    tt $b 1024 8 256 sgd 40
    tt $b 256 8 1024 sgd 40
  done
done
} > "$O/train_time.txt" 2>&1
date -u >> "$O/env.txt"
{
for way in tiled tiled1 tiled4 tiled8; do
  for args in "--d-model 512 --layers 4 --batch 256 --optimizer adam" \
              "--d-model 77 --layers 3 --batch 13 --optimizer momentum --nesterov"; do
    CLPARITY_TRAIN_KERNELS=$way timeout 60 build/clparity train -d NVIDIA,host \
        --engines cl:own,host:exact --steps 4 --every 1 --target random $args > /tmp/t.txt 2>&1
    echo "$way $args: rc=$? $(grep -c 'diverged' /tmp/t.txt) diverged"
  done
done
} > "$O/bits.txt" 2>&1
date -u >> "$O/env.txt"
timeout 170 tools/bench --train --gpu NVIDIA --only 3 --rounds 1 --train-steps 5 --train-json "$O/bench_train_row3.json" > "$O/bench_train_row3.txt" 2>&1
echo "bench rc=$?" >> "$O/bench_train_row3.txt"
date -u >> "$O/env.txt"
