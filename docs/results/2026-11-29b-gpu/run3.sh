#!/usr/bin/env bash
# 2026-11-29 (second session), third GPU call (H200), with the binary whose `auto` takes the
# one-launch step where every block is 16x16: the bits of auto and tiled against main 293c6ea's
# kernels (.oldk), then where issue 35's row 5 (`train --steps 100` at d=128 L=128 B=64, all
# included) spends its time (each engine's step_ms_mean from --json, the wall time of the whole
# command, of one step, and of the engines apart), then tools/bench --train, every row.
# From the repository root with build/clparity, .oldk/, .gpu/:
#   bash docs/results/2026-11-29b-gpu/run3.sh          (writes $OUT/run3.tgz)
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
log bits
WAYS="auto tiled" OLDK=.oldk timeout 150 bash docs/results/2026-11-29b-gpu/bits_gpu.sh "$O/bits" NVIDIA > "$O/bits_gpu.txt" 2>&1
echo "rc=$?" >> "$O/bits_gpu.txt"
rm -rf "$O/bits"
log row5
A="--d-model 128 --layers 128 --batch 64 --init-scale 0.5 --optimizer adam --lr 0.001 --quiet"
ms() { echo $((($(date +%s%N) - $1) / 1000000)); }
{
    build/clparity train -d NVIDIA,host $A --steps 3 > /dev/null 2>&1 # warm the caches
    for round in 1 2; do
        s=$(date +%s%N); build/clparity train -d NVIDIA,host $A --steps 100 --json "$O/row5_full_$round.json" > /dev/null 2>&1; rc=$?; echo "round $round full (cl:own, host:exact, host:f64), 100 steps: $(ms $s) ms rc=$rc"
        s=$(date +%s%N); build/clparity train -d NVIDIA,host $A --steps 1 > /dev/null 2>&1; echo "round $round full, 1 step: $(ms $s) ms"
        s=$(date +%s%N); build/clparity train -d NVIDIA,host $A --steps 100 --no-f64 --json "$O/row5_nof64_$round.json" > /dev/null 2>&1; echo "round $round --no-f64 (cl:own, host:exact), 100 steps: $(ms $s) ms"
        s=$(date +%s%N); build/clparity train -d host $A --steps 100 --json "$O/row5_host_$round.json" > /dev/null 2>&1; echo "round $round -d host (host:exact, host:f64), 100 steps: $(ms $s) ms"
        s=$(date +%s%N); build/clparity train -d host $A --steps 100 --engines host:exact --json "$O/row5_exact_$round.json" > /dev/null 2>&1; echo "round $round -d host --engines host:exact, 100 steps: $(ms $s) ms"
    done
    for f in "$O"/row5_*_1.json; do
        python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[1].split('/')[-1], [(r['engine'], round(r.get('first_step_ms',0),2), round(r.get('step_ms_mean',0),3), r.get('build_s')) for r in d['results']])" "$f"
    done
} > "$O/row5.txt" 2>&1
log bench-train
left=$((570 - (SECONDS - T0)))
XDG_CACHE_HOME=/tmp/c3t timeout $left python3 tools/bench --train --gpu NVIDIA --pocl portable --rounds 1 \
    --train-steps 5 --train-timeout 120 --train-json "$O/bench_train_gpu.json" > "$O/bench_train_gpu.txt" 2>&1
echo "rc=$?" >> "$O/bench_train_gpu.txt"
log end
