#!/usr/bin/env bash
# The session's one GPU call after the merges (H200): issue 35's cl:own training kernels
# (i35-gpu's gpu.sh), tools/bench --train's GPU row against PyTorch, issue 36's newcomer walk,
# then tools/bench --cr's GPU rows, each part bounded in time. From the repository root with
# build/clparity, build/train_time and .gpu/: bash run.sh (writes under $OUT).
set -u
source .gpu/setup.sh
export OPENBLAS_CORETYPE=SkylakeX
O=${OUT:-/tmp/out}
mkdir -p "$O"
T0=$SECONDS
part() { echo "== $1 at t=$((SECONDS - T0)) s" >> "$O/parts.txt"; }
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; } > "$O/env.txt" 2>&1
part gpu.sh
XDG_CACHE_HOME=/tmp/c1 timeout 150 sh docs/results/2026-11-28-i35-gpu/gpu.sh "$O/i35-gpu" H200 > "$O/i35-gpu.log" 2>&1
echo "rc=$?" >> "$O/i35-gpu.log"
part bench-train
XDG_CACHE_HOME=/tmp/c2 timeout 170 python3 tools/bench --train --gpu NVIDIA --only 3 --rounds 1 --train-steps 3 \
  --train-timeout 120 --train-json "$O/bench_train_gpu.json" > "$O/bench_train_gpu.txt" 2>&1
echo "rc=$?" >> "$O/bench_train_gpu.txt"
part walk
WALK_TIMEOUT=30 timeout 150 bash docs/results/2026-11-28-i36-walk/walk.sh build/clparity "$O/walk" > "$O/walk.log" 2>&1
echo "rc=$?" >> "$O/walk.log"
part bench-cr
left=$((575 - (SECONDS - T0)))
XDG_CACHE_HOME=/tmp/c3 timeout $((left > 30 ? left : 30)) python3 tools/bench --cr --gpu NVIDIA --only 1,2,3 --rounds 1 \
  --cr-min-time 0.2 --cr-json "$O/bench_cr_gpu.json" > "$O/bench_cr_gpu.txt" 2>&1
echo "rc=$?" >> "$O/bench_cr_gpu.txt"
part end
