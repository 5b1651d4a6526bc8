#!/usr/bin/env bash
# 2026-11-29, the session's first GPU call (H200): issue 36's newcomer walk (all 45 steps),
# issue 34's correctly rounded training on the GPU (acceptance 3), then two short probes for
# the work of this session: cl:own's training step by tile way and depth (issue 35, row 3;
# build/train_time, docs/results/2026-11-28-i35-gpu/train_time.c) and cl:cr's `team` variant
# at the reference model (issue 34, row 2; never timed on a GPU). Each part bounded so that
# the whole ends inside 580 s. From the repository root with build/clparity,
# build/compare_example, build/train_time, build/libclparity.so* and .gpu/ carried:
#   bash docs/results/2026-11-29-gpu/run1.sh      (writes $OUT/run1.tgz and $OUT/parts.txt)
set -u
source .gpu/setup.sh
export OPENBLAS_CORETYPE=SkylakeX
R=${OUT:-/tmp/out}
O=$R/run1
mkdir -p "$O"
T0=$SECONDS
left() { echo $((${1:-575} - (SECONDS - T0))); }
log() { echo "== $1 at t=$((SECONDS - T0)) s" | tee -a "$R/parts.txt"; }
pack() { tar czf "$R/run1.tgz" -C "$R" run1; }
trap pack EXIT
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; build/clparity --version; } > "$O/env.txt" 2>&1
log walk
WALK_TIMEOUT=120 timeout 390 bash docs/results/2026-11-28-i36-walk/walk.sh build/clparity "$O/walk" > "$O/walk.log" 2>&1
echo "rc=$?" >> "$O/walk.log"
log cr-train
for opt in adam adamw momentum; do
    echo "### $opt"
    XDG_CACHE_HOME=/tmp/c1 timeout 40 build/clparity train -d gpu,host --engines cl:cr,host:cr --optimizer $opt \
        --steps 100 --d-model 33 --layers 3 --batch 5 --every 25 --target random 2>&1 | tail -8
    echo "rc=${PIPESTATUS[0]}"
done > "$O/cr_train.txt" 2>&1
log train-time
{
    for L in 1 4 16; do
        timeout 30 build/train_time NVIDIA 1024 $L 64 sgd 20 auto tiled1 tiled4 simple
    done
    for B in 1 8 256; do timeout 20 build/train_time NVIDIA 1024 16 $B sgd 20 auto; done
    timeout 20 build/train_time NVIDIA 128 128 64 sgd 20 auto tiled1 tiled4
    timeout 40 build/train_time NVIDIA 4096 8 1024 sgd 5 tiled4 tiled8
} > "$O/train_time.txt" 2>&1
log variants
for v in "" path=team "path=team,split=2" "path=team,split=8" path=stream; do
    [ "$(left)" -lt 20 ] && { echo "### stopped: time"; break; }
    echo "### CLPARITY_CR_TUNE=$v"
    CLPARITY_CR_TUNE=$v XDG_CACHE_HOME=/tmp/c2 timeout $(( $(left) < 40 ? $(left) : 40 )) build/clparity compare \
        -d gpu,host --engines cl:own,cl:cr,host:cr --expect cr --d-model 128 --layers 128 --batch 1 --runs 30 2>&1 |
        grep -E "^R[0-9] |^  cr  |^ran:|^ +cl:cr on|^clparity|error" | head -20
    echo "rc=${PIPESTATUS[0]}"
done > "$O/variants.txt" 2>&1
log end
cp "$R/parts.txt" "$O/"
