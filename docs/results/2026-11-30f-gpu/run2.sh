#!/usr/bin/env bash
# 2026-11-30 evening, second GPU call (H200): run1's float4 reads for 4x4 and 8x8 blocks, now
# also the 16x16 blocks (one output per work-item; the tiled1 kernels and the one-launch step)
# with the tiles k-contiguous and 4 terms read at once, against main 59828b1's kernels (k_old),
# alternating; equal hashes are the same bits. Then the bits against host:exact at odd shapes
# (train's own check at every step), the planted ULP in each size (Adam: with SGD a ULP in one
# output can round away), and tools/bench --train's row 3.
#   bash docs/results/2026-11-30f-gpu/run2.sh      (writes $OUT/run2/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/* build/
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c2
O=${OUT:-/tmp/out}/run2
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; build/clparity --version; } > "$O/env.txt" 2>&1
{
for r in 1 2; do
  for kd in k_old clkernels; do
    CLPARITY_KERNEL_DIR=$kd timeout 100 build/train_time NVIDIA 4096 8 1024 sgd 5 tiled8 | sed "s/^/r$r $kd /"
    CLPARITY_KERNEL_DIR=$kd timeout 100 build/train_time NVIDIA 1024 16 64 sgd 40 auto tiled1 stream | sed "s/^/r$r $kd /"
    CLPARITY_KERNEL_DIR=$kd timeout 100 build/train_time NVIDIA 1024 16 64 adam 40 auto | sed "s/^/r$r $kd /"
    CLPARITY_KERNEL_DIR=$kd timeout 100 build/train_time NVIDIA 128 128 64 sgd 40 auto tiled1 | sed "s/^/r$r $kd /"
    CLPARITY_KERNEL_DIR=$kd timeout 100 build/train_time NVIDIA 128 128 1 adam 40 auto | sed "s/^/r$r $kd /"
    CLPARITY_KERNEL_DIR=$kd timeout 100 build/train_time NVIDIA 512 8 64 sgd 40 auto tiled1 tiled4 | sed "s/^/r$r $kd /"
    CLPARITY_KERNEL_DIR=$kd timeout 100 build/train_time NVIDIA 1024 16 256 adam 40 auto tiled1 tiled4 | sed "s/^/r$r $kd /"
  done
done
} > "$O/train_time.txt" 2>&1
date -u >> "$O/env.txt"
{
for way in tiled1 stream tiled4 tiled8 auto; do
  for args in "--d-model 1000 --layers 3 --batch 70 --optimizer adam" \
              "--d-model 77 --layers 3 --batch 13 --optimizer momentum --nesterov" \
              "--d-model 300 --layers 3 --batch 300 --optimizer sgd" \
              "--model tests/fixtures/digits.safetensors --batch 9 --optimizer adamw --weight-decay 0.05"; do
    CLPARITY_TRAIN_KERNELS=$way timeout 120 build/clparity train -d NVIDIA,host \
        --engines cl:own,host:exact --steps 5 --every 1 --target random $args > /tmp/t.txt 2>&1
    echo "$way $args: rc=$? $(grep -c 'diverged' /tmp/t.txt) diverged"
  done
done
for rm in 1 4 8 s; do
  w=tiled$rm; p=$rm; [ $rm = s ] && { w=stream; p=1; }
  echo "### planted train-tile-plant-$p with $w, adam, must fail (exit 1)"
  CLPARITY_OWN_PROBE=off CLPARITY_TRAIN_KERNELS=$w CLPARITY_TEST_HOOK=train-tile-plant-$p timeout 120 build/clparity train -d NVIDIA,host \
      --engines cl:own,host:exact --optimizer adam --steps 3 --every 1 --d-model 1000 --layers 2 --batch 70 --target random > /tmp/p.txt 2>&1
  echo "rc=$?"; grep -E "diverg|differs|rror" /tmp/p.txt | head -2
done
} > "$O/bits.txt" 2>&1
date -u >> "$O/env.txt"
timeout 150 tools/bench --train --gpu NVIDIA --only 3 --rounds 1 --train-steps 5 > "$O/bench_train_row3.txt" 2>&1
echo "bench rc=$?" >> "$O/bench_train_row3.txt"
date -u >> "$O/env.txt"
