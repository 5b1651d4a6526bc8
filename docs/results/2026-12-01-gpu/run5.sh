#!/usr/bin/env bash
# 2026-12-01, fifth GPU call (H200): does submitting work sooner shorten cl:own's training step?
# build-gpu/train_time (main befc908's library with test switches, docs/results/2026-12-01-gpu/
# flush.patch): X_FL=1 flushes the queue after the forward's first launch and after the
# output's read; X_FLN=N flushes after every N tiled launches. Alternating, two rounds.
#   bash docs/results/2026-12-01-gpu/run5.sh          (writes $OUT/run5/)
set -u
source .gpu/setup.sh
export XDG_CACHE_HOME=/tmp/c5
R=${OUT:-/tmp/out}
O=$R/run5
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } > "$O/env.txt" 2>&1
tt() { local tag=$1; shift; env "$@" timeout 60 build-gpu/train_time NVIDIA $SHAPE auto | sed "s/^/r$r $tag /"; }
{
for r in 1 2; do
  for SHAPE in "1024 16 64 sgd 40" "1024 16 64 adam 40" "1024 8 256 sgd 40" "4096 8 1024 sgd 5" "256 8 1024 sgd 40"; do
    tt none X_NONE=1
    tt fl X_FL=1
    tt fln4 X_FLN=4
    tt fl_fln8 X_FL=1 X_FLN=8
    tt fln1 X_FLN=1
  done
done
} > "$O/train_time.txt" 2>&1
cat "$O/train_time.txt"
