#!/usr/bin/env bash
# 2026-12-01, third GPU call (H200): the backward in pairs (train_pair.cl: layer l-1's dx
# beside layer l's weight gradient in one launch; build-gpu/train_time, this commit's library)
# against a launch per product (build-gpu/train_time_old, 566859b's library), the same kernel
# folder, alternating; train's check against host:exact with every way and optimizer;
# tools/bench --train's row 3.
#   bash docs/results/2026-11-30g-gpu/run3.sh      (writes $OUT/run3/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/* build/
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c3
O=${OUT:-/tmp/out}/run3
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; build/clparity --version; } > "$O/env.txt" 2>&1
tt() { timeout 100 build/$1 NVIDIA "${@:2}" | sed "s/^/r$r $1 /"; }
{
for r in 1 2; do
  for b in train_time_old train_time; do
    tt $b 1024 16 64 sgd 40 auto
    tt $b 1024 16 64 adam 40 auto
    tt $b 4096 8 1024 sgd 5 auto
    tt $b 512 8 64 sgd 40 auto
    tt $b 1024 8 256 sgd 40 auto
    tt $b 2048 8 256 sgd 20 auto
    tt $b 256 8 1024 sgd 40 auto
    tt $b 1024 16 64 sgd 40 tiled1 tiled4
  done
done
} > "$O/train_time.txt" 2>&1
date -u >> "$O/env.txt"
{
for way in tiled tiled1 tiled4 tiled8 auto; do
  for args in "--d-model 1024 --layers 3 --batch 256 --optimizer adam" \
              "--d-model 256 --layers 4 --batch 64 --optimizer sgd" \
              "--d-model 128 --layers 5 --batch 128 --optimizer adamw --weight-decay 0.05" \
              "--d-model 77 --layers 3 --batch 13 --optimizer momentum --nesterov" \
              "--d-model 130 --layers 2 --batch 129 --optimizer sgd --weight-decay 0.01"; do
    CLPARITY_TRAIN_KERNELS=$way timeout 120 build/clparity train -d NVIDIA,host \
        --engines cl:own,host:exact --steps 4 --every 1 --target random $args > /tmp/t.txt 2>&1
    echo "$way $args: rc=$? $(grep -c 'diverged' /tmp/t.txt) diverged"
  done
done
for rm in 1 4 8; do
  echo "### train-tile-plant-$rm (tiled$rm, and tiled: every block in the probe's rotation) must fail (exit 1)"
  CLPARITY_OWN_PROBE=off CLPARITY_TEST_HOOK=train-tile-plant-$rm CLPARITY_TRAIN_KERNELS=tiled$rm timeout 120 build/clparity train -d NVIDIA,host \
      --engines cl:own,host:exact --optimizer adam --steps 3 --every 1 --d-model 77 --layers 3 --batch 13 --target random > /tmp/p.txt 2>&1
  echo "rc=$?"; grep -E "diverg|rror" /tmp/p.txt | head -1
done
} > "$O/bits.txt" 2>&1
date -u >> "$O/env.txt"
timeout 250 tools/bench --train --gpu NVIDIA --only 3 --rounds 1 --train-steps 5 > "$O/bench_train_row3.txt" 2>&1
echo "bench rc=$?" >> "$O/bench_train_row3.txt"
date -u >> "$O/env.txt"
