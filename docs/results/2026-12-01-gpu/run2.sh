#!/usr/bin/env bash
# 2026-12-01, second GPU call (H200): issue 34's targets with main befc908's binary in one
# `tools/bench --cr` run: rows 1-4 on the H200, 6 on PoCL 5 (its 16 cores), 7 on the host at 2
# and 16 threads (row 5 is rusticl's, on the CI machine).
#   bash docs/results/2026-12-01-gpu/run2.sh          (writes $OUT/run2/)
set -u
source .gpu/setup.sh
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c2
mkdir -p build && cp build-gpu/clparity build/clparity
R=${OUT:-/tmp/out}
O=$R/run2
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; build/clparity --version; } > "$O/env.txt" 2>&1
timeout 560 python3 tools/bench --cr --gpu NVIDIA --pocl portable --rounds 1 --cr-min-time 0.2 \
    --cr-json "$O/bench_cr_gpu.json" > "$O/bench_cr_gpu.txt" 2>&1
echo "rc=$?" >> "$O/bench_cr_gpu.txt"
