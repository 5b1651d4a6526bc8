#!/usr/bin/env bash
# 2026-11-30 (session c), eighth GPU call (H200): tools/bench --cr's rows 2 and 3 with main
# 9009771's binary (tiles from B=65 to 2048 at layers up to 128 wide, with its new settings).
#   bash docs/results/2026-11-30c-gpu/run8.sh   (writes $OUT/run8/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/clparity build/
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c8
O=${OUT:-/tmp/out}/run8
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; build/clparity --version; } > "$O/env.txt" 2>&1
timeout 330 python3 tools/bench --cr --gpu NVIDIA --only 2,3 --rounds 1 --cr-min-time 0.2 \
    --cr-json "$O/bench_cr_gpu.json" > "$O/bench_cr_gpu.txt" 2>&1
echo "rc=$?" >> "$O/bench_cr_gpu.txt"
tail -25 "$O/bench_cr_gpu.txt"
