#!/usr/bin/env bash
# 2026-11-29 (second session), fourth GPU call (H200): issue 35's row 5 (`train --steps 100` at
# d=128 L=128 B=64 on the GPU and host, all included, warm cache) with train's per-step
# measurements on hostblas's pool (build/clparity_m) against the binary before it
# (build/clparity: the one-launch step, one thread measuring), alternating, 3 rounds; the step
# records of the two (--json's "steps") must be equal.
#   bash docs/results/2026-11-29b-gpu/run4.sh          (writes $OUT/run4.tgz)
set -u
source .gpu/setup.sh
export OPENBLAS_CORETYPE=SkylakeX
R=${OUT:-/tmp/out}
O=$R/run4
mkdir -p "$O"
pack() { tar czf "$R/run4.tgz" -C "$R" run4; }
trap pack EXIT
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; build/clparity --version; build/clparity_m --version; } > "$O/env.txt" 2>&1
export XDG_CACHE_HOME=/tmp/c4
A="--d-model 128 --layers 128 --batch 64 --init-scale 0.5 --optimizer adam --lr 0.001 --quiet"
ms() { echo $((($(date +%s%N) - $1) / 1000000)); }
{
    build/clparity train -d NVIDIA,host $A --steps 3 > /dev/null 2>&1
    build/clparity_m train -d NVIDIA,host $A --steps 3 > /dev/null 2>&1
    for round in 1 2 3; do
        for b in clparity clparity_m; do
            s=$(date +%s%N); build/$b train -d NVIDIA,host $A --steps 100 --json "$O/$b.$round.json" > /dev/null 2>&1; rc=$?
            echo "round $round $b: $(ms $s) ms rc=$rc"
        done
    done
    python3 -c "
import json
a=json.load(open('$O/clparity.1.json')); b=json.load(open('$O/clparity_m.1.json'))
print('step records equal:', a['steps']==b['steps'], len(a['steps']))
for r in b['results']: print(r['engine'], round(r['first_step_ms'],2), round(r['step_ms_mean'],3))
"
} > "$O/row5_ab.txt" 2>&1
rm -f "$O"/*.json
