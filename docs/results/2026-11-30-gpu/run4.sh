#!/usr/bin/env bash
# 2026-11-30, fourth GPU call (H200): tools/bench --cr's GPU rows 1-4 and tools/bench --train's
# row 3 (PyTorch's eager and captured-graph steps beside cl:own's) with this session's binary
# (f32-stream in the rules); f32-stream against f32 at B = 2, 4 and 16 (the rule's b_max = 4).
#   bash docs/results/2026-11-30-gpu/run4.sh          (writes $OUT/run4.tgz)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/* build/
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c4
H=docs/results/2026-11-29d-gpu # its cfg.py
R=${OUT:-/tmp/out}
O=$R/run4
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; build/clparity --version; } > "$O/env.txt" 2>&1
for shape in "1024 32 2" "1024 32 4" "1024 32 16" "128 128 4"; do
  timeout 100 python3 $H/cfg.py "$O/f32_batch.txt" $shape f32=method=f32,path=gemv f32stream=method=f32,path=stream
done
timeout 260 python3 tools/bench --cr --gpu NVIDIA --only 1,2,3,4 --rounds 1 --cr-min-time 0.2 \
    --cr-json "$O/bench_cr_gpu.json" > "$O/bench_cr_gpu.txt" 2>&1
echo "rc=$?" >> "$O/bench_cr_gpu.txt"
timeout 200 python3 tools/bench --train --gpu NVIDIA --only 3 --rounds 1 --train-steps 5 \
    --train-timeout 100 --train-json "$O/bench_train_gpu.json" > "$O/bench_train_gpu.txt" 2>&1
echo "rc=$?" >> "$O/bench_train_gpu.txt"
