#!/usr/bin/env bash
# 2026-11-29 (second session), second GPU call (H200), after run1 showed stale reads (the
# one-launch step's operands are now read volatile): cl:own's training step in one launch
# (CLPARITY_TRAIN_KERNELS=stream, train_stream.cl) against the tiled kernels, cl:own alone
# (build/train_time) at issue 35's row-3 points with 1 and 2 work-groups per SM
# (CLPARITY_TRAIN_SG, this experiment's knob in the binary of that call, removed after run2:
# one group per SM was the fastest); the bits of both against the kernels of main
# 293c6ea (.oldk: CLPARITY_KERNEL_DIR); then tools/bench --train row 3 with stream forced.
# From the repository root with build/ (clparity, train_time, libclparity.so*), .oldk/, .gpu/:
#   bash docs/results/2026-11-29b-gpu/run2.sh          (writes $OUT/run2.tgz)
set -u
source .gpu/setup.sh
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1
R=${OUT:-/tmp/out}
O=$R/run2
mkdir -p "$O"
T0=$SECONDS
log() { echo "== $1 at t=$((SECONDS - T0)) s" | tee -a "$O/parts.txt"; }
pack() { tar czf "$R/run2.tgz" -C "$R" run2; }
trap pack EXIT
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; build/clparity --version; } > "$O/env.txt" 2>&1
export XDG_CACHE_HOME=/tmp/c1
log train-time
{
    for opt in sgd adam; do
        for shape in "128 128 1" "128 128 64" "1024 16 64"; do
            timeout 60 build/train_time NVIDIA $shape $opt 40 tiled stream
            for sg in 2; do
                CLPARITY_TRAIN_SG=$sg timeout 60 build/train_time NVIDIA $shape $opt 40 stream | sed "s/^/sg=$sg /"
            done
        done
        timeout 90 build/train_time NVIDIA 4096 8 1024 $opt 5 tiled stream
    done
} > "$O/train_time.txt" 2>&1
log bits
WAYS="auto stream" OLDK=.oldk timeout 200 bash docs/results/2026-11-29b-gpu/bits_gpu.sh "$O/bits" NVIDIA > "$O/bits_gpu.txt" 2>&1
echo "rc=$?" >> "$O/bits_gpu.txt"
rm -rf "$O/bits"
log bench-train
left=$((560 - (SECONDS - T0)))
CLPARITY_TRAIN_KERNELS=stream XDG_CACHE_HOME=/tmp/c1t timeout $left python3 tools/bench --train --gpu NVIDIA \
    --only 3 --rounds 1 --train-steps 5 --train-timeout 120 --train-json "$O/bench_train_stream.json" \
    > "$O/bench_train_stream.txt" 2>&1
echo "rc=$?" >> "$O/bench_train_stream.txt"
log end
