#!/usr/bin/env bash
# 2026-11-30 night, second GPU call (H200): the step's output read behind the forward and its
# loss taken on the host while the backward runs (build-gpu/train_time, this commit's
# library) against the step that read it at the end (build-gpu/train_time_old, 1ec2ab0's
# library), the same kernels, alternating; timing cuts with one product's kernels emptied, or
# all three (k_nofwd, k_nodx, k_nogw, k_none: wrong bits, timing only); train's check against
# host:exact with every optimizer; tools/bench --train's row 3.
#   bash docs/results/2026-11-30g-gpu/run2.sh      (writes $OUT/run2/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/* build/
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c2
O=${OUT:-/tmp/out}/run2
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; build/clparity --version; } > "$O/env.txt" 2>&1
tt() { CLPARITY_KERNEL_DIR=$2 timeout 100 build/$1 NVIDIA "${@:3}" auto | sed "s/^/r$r $1 $2 /"; }
{
for r in 1 2; do
  for b in train_time_old train_time; do
    tt $b clkernels 4096 8 1024 sgd 5
    tt $b clkernels 4096 8 1024 adam 5
    tt $b clkernels 1024 16 64 sgd 40
    tt $b clkernels 1024 16 64 adam 40
    tt $b clkernels 128 128 64 sgd 40
    tt $b clkernels 128 128 1 adam 40
  done
  for kd in k_nofwd k_nodx k_nogw k_none; do
    tt train_time $kd 4096 8 1024 sgd 5
    tt train_time $kd 1024 16 64 sgd 40
  done
done
} > "$O/train_time.txt" 2>&1
date -u >> "$O/env.txt"
{
for opt in "sgd" "sgd --weight-decay 0.01" "momentum --nesterov" "adam" "adamw --weight-decay 0.05"; do
  for args in "--d-model 1024 --layers 2 --batch 256" "--d-model 77 --layers 3 --batch 13"; do
    timeout 120 build/clparity train -d NVIDIA,host --engines cl:own,cl:cr,host:exact,host:cr \
        --steps 4 --every 1 --target random $args --optimizer $opt > /tmp/t.txt 2>&1
    echo "$opt $args: rc=$? $(grep -c 'diverged' /tmp/t.txt) diverged"
  done
done
} > "$O/bits.txt" 2>&1
date -u >> "$O/env.txt"
timeout 250 tools/bench --train --gpu NVIDIA --only 3 --rounds 1 --train-steps 5 > "$O/bench_train_row3.txt" 2>&1
echo "bench rc=$?" >> "$O/bench_train_row3.txt"
date -u >> "$O/env.txt"
