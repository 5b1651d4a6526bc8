#!/usr/bin/env bash
# 2026-11-29 (second session), fifth GPU call (H200's 16 Xeon cores): where host:exact's and
# host:f64's training steps go at 16 threads (issue 35, rows 1 and 2: d=512 L=8 B=64, the worst
# point), by `perf record` (this machine's perf 6.1 and its libraries, carried in .perf/), and
# the forward that is the rows' denominator; then tools/bench --train row 5 with the
# measurements on the pool (build/clparity_m), 3 rounds.
#   bash docs/results/2026-11-29b-gpu/run5.sh [perf]   (writes $OUT/run5.tgz; perf: that part alone)
# (its first run lost the perf part: LD_LIBRARY_PATH then lacked .gpu's libraries; run again
# with `perf`, which kept bench_row5 from the first)
set -u
source .gpu/setup.sh
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1
R=${OUT:-/tmp/out}
O=$R/run5
mkdir -p "$O"
T0=$SECONDS
log() { echo "== $1 at t=$((SECONDS - T0)) s" | tee -a "$O/parts.txt"; }
pack() { tar czf "$R/run5.tgz" -C "$R" run5; }
trap pack EXIT
{ date -u; nproc; lscpu | grep -E "Model name|^CPU\(s\)|Thread|NUMA node\(s\)"; build/clparity_m --version; cat /proc/sys/kernel/perf_event_paranoid; } > "$O/env.txt" 2>&1
export XDG_CACHE_HOME=/tmp/c5
PERF="env LD_LIBRARY_PATH=$PWD/.perf/lib:${LD_LIBRARY_PATH:-} $PWD/.perf/perf"
S="--d-model 512 --layers 8 --batch 64 --init-scale 0.5 --optimizer adam --lr 0.001 --quiet"
log perf
{
    build/clparity_m run -d host --engines host:exact --d-model 512 --layers 8 --batch 64 --no-reference --runs 50 2>&1 | grep -E "host:exact|median" | head -4
    for eng in host:exact host:f64; do
        extra="--no-f64"; [ $eng = host:f64 ] && extra=""
        echo "== $eng, 16 threads, 200 steps"
        $PERF record -o "$O/perf_${eng#host:}.data" -F 2000 -- build/clparity_m train -d host --engines host:exact $extra $S --steps 200 --json "$O/train_${eng#host:}.json" > /dev/null 2>&1
        echo "perf rc=$?"
        python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print([(r['engine'], round(r['step_ms_mean'],3)) for r in d['results']])" "$O/train_${eng#host:}.json"
        $PERF report -i "$O/perf_${eng#host:}.data" --stdio --sort symbol --percent-limit 0.7 2>/dev/null | grep -v "^#" | grep -v "^$" | head -40
        $PERF report -i "$O/perf_${eng#host:}.data" --stdio --sort comm,dso --percent-limit 2 2>/dev/null | grep -v "^#" | grep -v "^$" | head -12
        rm -f "$O/perf_${eng#host:}.data"
    done
} > "$O/perf.txt" 2>&1
[ "${1:-}" = perf ] && { log end; exit 0; }
log bench-row5
XDG_CACHE_HOME=/tmp/c5t timeout 200 python3 tools/bench --train --gpu NVIDIA --only 5 --rounds 3 --clparity build/clparity_m \
    --train-json "$O/bench_row5.json" > "$O/bench_row5.txt" 2>&1
echo "rc=$?" >> "$O/bench_row5.txt"
log end
