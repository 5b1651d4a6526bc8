#!/usr/bin/env bash
# 2026-11-29, the session's last GPU call (H200): after train's per-step measurements were
# made a single inlined pass (and skipped for results bit-identical to host:exact) and the
# tiled rule took 128×128 blocks where the grid allows: issue 35's row 5 (`train --steps 100`
# at d=128 L=128 B=64, all included) with the binary before (build/clparity_old, main 1354bc5)
# and after, alternating, then tools/bench --train rows 3 and 5. From the repository root with
# build/clparity, build/clparity_old, build/train_time, build/libclparity.so* and .gpu/:
#   bash docs/results/2026-11-29-gpu/run3.sh          (writes $OUT/run3.tgz)
set -u
source .gpu/setup.sh
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1
R=${OUT:-/tmp/out}
O=$R/run3
mkdir -p "$O"
T0=$SECONDS
log() { echo "== $1 at t=$((SECONDS - T0)) s" | tee -a "$O/parts.txt"; }
pack() { tar czf "$R/run3.tgz" -C "$R" run3; }
trap pack EXIT
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; build/clparity --version; } > "$O/env.txt" 2>&1
export XDG_CACHE_HOME=/tmp/c3
A="train -d NVIDIA,host --d-model 128 --layers 128 --batch 64 --steps 100 --init-scale 0.5 --optimizer adam --lr 0.001 --quiet"
log row5-ab
{
    build/clparity_old $A > /dev/null 2>&1; build/clparity $A > /dev/null 2>&1 # warm the caches
    for round in 1 2; do
        for b in build/clparity_old build/clparity; do
            s=$(date +%s%N); timeout 60 $b $A > "$O/row5_$(basename $b)_$round.txt" 2>&1; rc=$?
            echo "round $round $b: $((($(date +%s%N) - s) / 1000000)) ms, rc=$rc" # (bc: not there)
        done
    done
} > "$O/row5_ab.txt" 2>&1
log train-time
timeout 60 build/train_time NVIDIA 4096 8 1024 sgd 5 auto tiled4 tiled8 > "$O/train_time.txt" 2>&1
timeout 30 build/train_time NVIDIA 1024 16 64 sgd 20 auto >> "$O/train_time.txt" 2>&1
log bench-train
left=$((440 - (SECONDS - T0)))
XDG_CACHE_HOME=/tmp/c3t timeout $left python3 tools/bench --train --gpu NVIDIA --only 3,5 --rounds 1 \
    --train-steps 3 --train-timeout 120 --train-json "$O/bench_train_gpu.json" > "$O/bench_train_gpu.txt" 2>&1
echo "rc=$?" >> "$O/bench_train_gpu.txt"
log end
