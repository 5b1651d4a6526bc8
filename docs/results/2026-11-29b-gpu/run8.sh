#!/usr/bin/env bash
# 2026-11-29 (second session), eighth GPU call (H200), after the review commit 3fc1657 (the step's
# host side: one tail for the tiled and one-launch steps, the fused Adam's scalars written before
# the launches): the bits of auto (the one-launch step at these shapes), tiled, tiled4 and stream
# against main 293c6ea's kernels (.oldk, run with CLPARITY_TRAIN_KERNELS=tiled: they have no
# train_stream.cl).
#   bash docs/results/2026-11-29b-gpu/run8.sh          (writes $OUT/run8/bits_gpu.txt)
set -u
source .gpu/setup.sh
R=${OUT:-/tmp/out}
O=$R/run8
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; build/clparity --version; } > "$O/env.txt" 2>&1
export XDG_CACHE_HOME=/tmp/c8
CLPARITY_TRAIN_KERNELS=tiled WAYS="auto tiled tiled4 stream" OLDK=.oldk timeout 250 \
    bash docs/results/2026-11-29b-gpu/bits_gpu.sh "$O/bits" NVIDIA > "$O/bits_gpu.txt" 2>&1
echo "rc=$?" >> "$O/bits_gpu.txt"
rm -rf "$O/bits"
