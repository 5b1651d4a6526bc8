#!/usr/bin/env bash
# 2026-11-30 night, first GPU call (H200): the tiled training products' tiles loaded as float4
# quads from global memory (clkernels), against main 9344d21's kernels (k_old), alternating;
# variants: 32-deep tiles for 128×128 blocks (k_tk32), the 16-deep tile's loop fully unrolled
# (k_u16); timing cuts with one product's kernel emptied (k_nofwd, k_nodx, k_nogw: wrong bits,
# timing only); train's check against
# host:exact at whole-tile shapes with every way, and a planted error in the quad path (k_vbad)
#   bash docs/results/2026-11-30g-gpu/run1.sh      (writes $OUT/run1/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/* build/
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c1
O=${OUT:-/tmp/out}/run1
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; build/clparity --version; } > "$O/env.txt" 2>&1
tt() { CLPARITY_KERNEL_DIR=$1 timeout 100 build/train_time NVIDIA "${@:2}" auto | sed "s/^/r$r $1 /"; }
{
for r in 1 2; do
  for kd in k_old clkernels k_tk32 k_u16 k_nofwd k_nodx k_nogw; do tt $kd 4096 8 1024 sgd 5; done
  for kd in k_old clkernels; do
    tt $kd 4096 8 1024 adam 5
    tt $kd 2048 8 1024 sgd 10
    tt $kd 1024 16 64 sgd 40
    tt $kd 1024 16 64 adam 40
    tt $kd 1024 8 256 sgd 40
    tt $kd 128 128 64 sgd 40
  done
done
} > "$O/train_time.txt" 2>&1
date -u >> "$O/env.txt"
{
for way in tiled1 tiled4 tiled8 stream auto; do
  for args in "--d-model 1024 --layers 2 --batch 256 --optimizer adam" \
              "--d-model 256 --layers 3 --batch 128 --optimizer sgd" \
              "--d-model 128 --layers 4 --batch 128 --optimizer adamw --weight-decay 0.05" \
              "--d-model 77 --layers 3 --batch 13 --optimizer momentum --nesterov"; do
    CLPARITY_TRAIN_KERNELS=$way timeout 120 build/clparity train -d NVIDIA,host \
        --engines cl:own,host:exact --steps 4 --every 1 --target random $args > /tmp/t.txt 2>&1
    echo "$way $args: rc=$? $(grep -c 'diverged' /tmp/t.txt) diverged"
  done
done
for way in tiled1 tiled4 tiled8 stream; do
  echo "### k_vbad (a planted error in the quad path) with $way must fail (exit 1)"
  CLPARITY_OWN_PROBE=off CLPARITY_KERNEL_DIR=k_vbad CLPARITY_TRAIN_KERNELS=$way timeout 120 build/clparity train -d NVIDIA,host \
      --engines cl:own,host:exact --optimizer adam --steps 3 --every 1 --d-model 128 --layers 2 --batch 128 --target random > /tmp/p.txt 2>&1
  echo "rc=$?"; grep -E "diverg|rror" /tmp/p.txt | head -1
done
} > "$O/bits.txt" 2>&1
date -u >> "$O/env.txt"
