#!/usr/bin/env bash
# 2026-11-29, the session's second GPU call (H200), after the tiled training kernels' change
# (the next tile's loads before the current tile's products; deeper tiles of k): cl:own's step
# with the kernels before (.oldk/clkernels, CLPARITY_KERNEL_DIR) and after, side by side in
# alternating processes (build/train_time), their weights hashes compared; the new kernels'
# bits against the old ones and host:exact at odd shapes, every way and four optimizers
# (bits_gpu.sh); then tools/bench --train, every row (issue 35). From the repository root
# with build/clparity, build/train_time, build/libclparity.so*, .oldk and .gpu/ carried:
#   bash docs/results/2026-11-29-gpu/run2a.sh          (writes $OUT/run2a.tgz)
set -u
source .gpu/setup.sh
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1
R=${OUT:-/tmp/out}
O=$R/run2a
mkdir -p "$O"
T0=$SECONDS
log() { echo "== $1 at t=$((SECONDS - T0)) s" | tee -a "$O/parts.txt"; }
pack() { tar czf "$R/run2a.tgz" -C "$R" run2a; }
trap pack EXIT
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; build/clparity --version; } > "$O/env.txt" 2>&1
OLDK=$PWD/.oldk/clkernels
export XDG_CACHE_HOME=/tmp/c2a
log train-time
{
    for round in 1 2; do
        for k in old new; do
            kd=; [ $k = old ] && kd=$OLDK
            echo "### round $round, $k kernels"
            run() { CLPARITY_KERNEL_DIR=$kd timeout 40 build/train_time NVIDIA "$@"; }
            run 1024 16 64 sgd 20 auto
            run 1024 16 64 adam 20 auto
            run 1024 16 1 sgd 20 auto
            run 128 128 64 adam 20 auto
            run 128 128 1 adam 20 auto
            run 4096 8 1024 sgd 5 tiled4 tiled8
        done
    done
} > "$O/train_time.txt" 2>&1
log bits
OLDK=$OLDK timeout 120 bash docs/results/2026-11-29-gpu/bits_gpu.sh "$O/bits" gpu > "$O/bits.txt" 2>&1
echo "rc=$?" >> "$O/bits.txt"
rm -rf "$O/bits"
log bench-train
left=$((570 - (SECONDS - T0)))
XDG_CACHE_HOME=/tmp/c2t timeout $left python3 tools/bench --train --gpu NVIDIA --pocl portable --rounds 1 \
    --train-steps 3 --train-timeout 150 --train-json "$O/bench_train_gpu.json" > "$O/bench_train_gpu.txt" 2>&1
echo "rc=$?" >> "$O/bench_train_gpu.txt"
log end
