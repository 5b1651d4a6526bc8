#!/usr/bin/env bash
# 2026-11-30, second GPU call (H200): cl:own's step in one launch (CLPARITY_TRAIN_KERNELS=stream)
# with 64x64 blocks where a product has at least as many as there are work-groups, against the
# tiled launches, at issue 35's row-3 points and around them; one work-group per SM (train_time,
# clparity) and two (train_time2, clparity2: the same code with step_groups doubled). Equal
# hashes are the same bits; the bits against host:exact at odd shapes with stream forced.
#   bash docs/results/2026-11-30-gpu/run2.sh          (writes $OUT/run2.tgz)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/* build/
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c2
R=${OUT:-/tmp/out}
O=$R/run2
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; build/clparity --version; } > "$O/env.txt" 2>&1
{
for opt in sgd adam; do
  for shape in "1024 16 64" "512 8 64" "2048 8 64" "1024 16 256" "256 16 64" "128 128 64" "128 128 1"; do
    timeout 100 build/train_time NVIDIA $shape $opt 40 tiled stream | sed 's/^/1pcu /'
    timeout 100 build/train_time2 NVIDIA $shape $opt 40 stream | sed 's/^/2pcu /'
  done
done
timeout 120 build/train_time NVIDIA 4096 8 1024 sgd 3 tiled stream | sed 's/^/1pcu /'
timeout 120 build/train_time NVIDIA 1024 16 64 sgd 40 tiled stream | sed 's/^/1pcu again /'
timeout 120 build/train_time2 NVIDIA 1024 16 64 sgd 40 stream | sed 's/^/2pcu again /'
} > "$O/train_time.txt" 2>&1
{
for b in clparity clparity2; do
  for args in "--d-model 1000 --layers 3 --batch 70 --optimizer adam" \
              "--d-model 1000 --layers 2 --batch 130 --optimizer adamw --weight-decay 0.05" \
              "--d-model 77 --layers 3 --batch 13 --optimizer momentum --nesterov" \
              "--d-model 300 --layers 3 --batch 300 --optimizer sgd"; do
    echo "### $b stream $args"
    CLPARITY_TRAIN_KERNELS=stream timeout 120 build/$b train -d NVIDIA,host --engines cl:own,host:exact \
        --steps 5 --every 1 --target random $args > /tmp/t.txt 2>&1
    echo "rc=$?"
    sed -n '/^final/,$p' /tmp/t.txt | grep -v "^final" | grep -E "cl:own|rror|diverg"
  done
done
echo "### planted: train-tile-plant-4 with stream must fail at step 1"
CLPARITY_OWN_PROBE=off CLPARITY_TRAIN_KERNELS=stream CLPARITY_TEST_HOOK=train-tile-plant-4 timeout 120 build/clparity train -d NVIDIA,host \
    --engines cl:own,host:exact --steps 3 --every 1 --d-model 1000 --layers 2 --batch 70 --target random 2>&1 | grep -E "diverg|rror" | head -3
} > "$O/bits.txt" 2>&1
