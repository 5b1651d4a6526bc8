#!/usr/bin/env bash
# 2026-11-30 evening, fifth GPU call (H200): tr_fetch's path for tiles wholly inside the
# operands (no test per element), against eb1a33f's kernels (k_head), alternating; a timing cut
# without the ReLU mask's loads (k_nomask: wrong bits wherever a z <= 0, timing only); train's
# check at shapes whose tiles are whole, every way; the planted error in that path (k_bad) caught.
#   bash docs/results/2026-11-30f-gpu/run5.sh      (writes $OUT/run5/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/* build/
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c5
O=${OUT:-/tmp/out}/run5
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; build/clparity --version; } > "$O/env.txt" 2>&1
{
for r in 1 2; do
  for kd in k_head clkernels k_nomask; do
    CLPARITY_KERNEL_DIR=$kd timeout 100 build/train_time NVIDIA 4096 8 1024 sgd 5 auto | sed "s/^/r$r $kd /"
    CLPARITY_KERNEL_DIR=$kd timeout 100 build/train_time NVIDIA 4096 8 1024 adam 5 auto | sed "s/^/r$r $kd /"
    CLPARITY_KERNEL_DIR=$kd timeout 100 build/train_time NVIDIA 2048 8 1024 sgd 10 auto | sed "s/^/r$r $kd /"
    CLPARITY_KERNEL_DIR=$kd timeout 100 build/train_time NVIDIA 1024 16 64 sgd 40 auto | sed "s/^/r$r $kd /"
    CLPARITY_KERNEL_DIR=$kd timeout 100 build/train_time NVIDIA 1024 8 256 sgd 40 auto | sed "s/^/r$r $kd /"
    CLPARITY_KERNEL_DIR=$kd timeout 100 build/train_time NVIDIA 128 128 64 sgd 40 auto | sed "s/^/r$r $kd /"
  done
done
} > "$O/train_time.txt" 2>&1
date -u >> "$O/env.txt"
{
for way in tiled1 tiled4 tiled8 stream auto; do
  for args in "--d-model 1024 --layers 2 --batch 256 --optimizer adam" \
              "--d-model 128 --layers 4 --batch 128 --optimizer adamw --weight-decay 0.05"; do
    CLPARITY_TRAIN_KERNELS=$way timeout 120 build/clparity train -d NVIDIA,host \
        --engines cl:own,host:exact --steps 4 --every 1 --target random $args > /tmp/t.txt 2>&1
    echo "$way $args: rc=$? $(grep -c 'diverged' /tmp/t.txt) diverged"
  done
done
for way in tiled1 tiled4 tiled8 stream; do
  echo "### k_bad (a planted error in the whole-tile path) with $way must fail (exit 1)"
  CLPARITY_OWN_PROBE=off CLPARITY_KERNEL_DIR=k_bad CLPARITY_TRAIN_KERNELS=$way timeout 120 build/clparity train -d NVIDIA,host \
      --engines cl:own,host:exact --optimizer adam --steps 3 --every 1 --d-model 128 --layers 2 --batch 128 --target random > /tmp/p.txt 2>&1
  echo "rc=$?"; grep -E "diverg|rror" /tmp/p.txt | head -1
done
} > "$O/bits.txt" 2>&1
date -u >> "$O/env.txt"
