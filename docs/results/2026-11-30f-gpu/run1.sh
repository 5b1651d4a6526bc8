#!/usr/bin/env bash
# 2026-11-30 evening, first GPU call (H200): cl:own's tiled training products (train_tile.cl)
# with the operands read from local memory as float4 (4x4 and 8x8 blocks, cp_gemm_tiled4's
# layout of a work-item's outputs), against main 59828b1's kernels (k_old) and the same with
# two tile buffers (k_db: TR_DB_DEFAULT 1), side by side in one call, alternating; equal hashes
# are the same bits. Then the bits against host:exact at odd shapes (train's own check at every
# step), the planted ULP in each tile size, and tools/bench --train's row 3.
#   bash docs/results/2026-11-30f-gpu/run1.sh      (writes $OUT/run1/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/* build/
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c1
O=${OUT:-/tmp/out}/run1
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; build/clparity --version; } > "$O/env.txt" 2>&1
{
for r in 1 2; do
  for kd in k_old clkernels k_db; do
    CLPARITY_KERNEL_DIR=$kd timeout 150 build/train_time NVIDIA 4096 8 1024 sgd 5 tiled8 tiled4 | sed "s/^/r$r $kd /"
    CLPARITY_KERNEL_DIR=$kd timeout 100 build/train_time NVIDIA 4096 8 1024 adam 5 tiled8 | sed "s/^/r$r $kd /"
    CLPARITY_KERNEL_DIR=$kd timeout 100 build/train_time NVIDIA 2048 8 256 sgd 20 tiled8 tiled4 | sed "s/^/r$r $kd /"
    CLPARITY_KERNEL_DIR=$kd timeout 100 build/train_time NVIDIA 1024 16 64 sgd 40 auto tiled4 | sed "s/^/r$r $kd /"
    CLPARITY_KERNEL_DIR=$kd timeout 100 build/train_time NVIDIA 1024 16 256 adam 40 auto tiled4 tiled8 | sed "s/^/r$r $kd /"
  done
done
} > "$O/train_time.txt" 2>&1
date -u >> "$O/env.txt"
{
for kd in clkernels k_db; do
  for way in tiled4 tiled8 auto; do
    for args in "--d-model 1000 --layers 3 --batch 70 --optimizer adam" \
                "--d-model 1000 --layers 2 --batch 130 --optimizer adamw --weight-decay 0.05" \
                "--d-model 77 --layers 3 --batch 13 --optimizer momentum --nesterov" \
                "--d-model 300 --layers 3 --batch 300 --optimizer sgd" \
                "--model tests/fixtures/digits.safetensors --batch 9 --optimizer adam"; do
      CLPARITY_KERNEL_DIR=$kd CLPARITY_TRAIN_KERNELS=$way timeout 120 build/clparity train -d NVIDIA,host \
          --engines cl:own,host:exact --steps 5 --every 1 --target random $args > /tmp/t.txt 2>&1
      echo "$kd $way $args: rc=$? $(grep -c 'diverged' /tmp/t.txt) diverged"
    done
  done
done
for rm in 4 8; do
  echo "### planted train-tile-plant-$rm with tiled$rm must fail at step 1"
  CLPARITY_OWN_PROBE=off CLPARITY_TRAIN_KERNELS=tiled$rm CLPARITY_TEST_HOOK=train-tile-plant-$rm timeout 120 build/clparity train -d NVIDIA,host \
      --engines cl:own,host:exact --steps 3 --every 1 --d-model 1000 --layers 2 --batch 70 --target random 2>&1 | grep -E "diverg|rror" | head -3
  echo "rc=${PIPESTATUS[0]}"
done
} > "$O/bits.txt" 2>&1
date -u >> "$O/env.txt"
timeout 200 tools/bench --train --gpu NVIDIA --only 3 --rounds 1 --train-steps 5 > "$O/bench_train_row3.txt" 2>&1
echo "bench rc=$?" >> "$O/bench_train_row3.txt"
date -u >> "$O/env.txt"
