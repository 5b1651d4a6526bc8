#!/usr/bin/env bash
# 2026-11-29 (second session), sixth GPU call (H200's 16 Xeon cores): train's host references
# and its measurements on one shared pool (build/clparity_s) against a pool each
# (build/clparity_m, the measurements on their own pool) and against one thread measuring
# (build/clparity, the one-launch step's commit): issue 35's row 5 alternating (2 rounds), rows 1
# and 2 by tools/bench for _m and _s, and the profile of the worst point of rows 1 and 2 with _s.
#   bash docs/results/2026-11-29b-gpu/run6.sh          (writes $OUT/run6.tgz)
set -u
source .gpu/setup.sh
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1
R=${OUT:-/tmp/out}
O=$R/run6
mkdir -p "$O"
T0=$SECONDS
log() { echo "== $1 at t=$((SECONDS - T0)) s" | tee -a "$O/parts.txt"; }
pack() { tar czf "$R/run6.tgz" -C "$R" run6; }
trap pack EXIT
{ date -u; nproc; for b in clparity clparity_m clparity_s; do build/$b --version; done; } > "$O/env.txt" 2>&1
export XDG_CACHE_HOME=/tmp/c6
A="--d-model 128 --layers 128 --batch 64 --init-scale 0.5 --optimizer adam --lr 0.001 --quiet"
ms() { echo $((($(date +%s%N) - $1) / 1000000)); }
log row5
{
    for b in clparity clparity_m clparity_s; do build/$b train -d NVIDIA,host $A --steps 3 > /dev/null 2>&1; done
    for round in 1 2; do
        for b in clparity clparity_m clparity_s; do
            s=$(date +%s%N); build/$b train -d NVIDIA,host $A --steps 100 --json "$O/$b.$round.json" > /dev/null 2>&1; rc=$?
            echo "round $round $b: $(ms $s) ms rc=$rc $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print([(r['engine'], round(r['step_ms_mean'],3)) for r in d['results']])" "$O/$b.$round.json")"
        done
    done
    python3 -c "
import json
a=json.load(open('$O/clparity.1.json')); b=json.load(open('$O/clparity_s.1.json'))
print('step records equal (clparity, clparity_s):', a['steps']==b['steps'], len(a['steps']))"
} > "$O/row5_abc.txt" 2>&1
rm -f "$O"/*.json
log rows12
for b in clparity_m clparity_s; do
    XDG_CACHE_HOME=/tmp/c6t timeout 150 python3 tools/bench --train --local --only 1,2 --rounds 1 --train-steps 20 \
        --clparity build/$b --train-json "$O/bench_rows12_$b.json" > "$O/bench_rows12_$b.txt" 2>&1
    echo "rc=$?" >> "$O/bench_rows12_$b.txt"
done
log perf
PERF="env LD_LIBRARY_PATH=$PWD/.perf/lib:${LD_LIBRARY_PATH:-} $PWD/.perf/perf"
{
    $PERF record -o "$O/perf.data" -F 2000 -- build/clparity_s train -d host --d-model 512 --layers 8 --batch 64 \
        --init-scale 0.5 --optimizer adam --lr 0.001 --quiet --steps 200 --json "$O/train_s.json" > /dev/null 2>&1
    echo "perf rc=$?"
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print([(r['engine'], round(r['step_ms_mean'],3)) for r in d['results']])" "$O/train_s.json"
    $PERF report -i "$O/perf.data" --stdio --sort symbol --percent-limit 0.7 2>/dev/null | grep -v "^#" | grep -v "^$" | head -30
    rm -f "$O/perf.data"
} > "$O/perf_s.txt" 2>&1
log end
