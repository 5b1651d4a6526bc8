#!/usr/bin/env bash
# 2026-12-01 (third session), ninth GPU call (PoCL 5 on the H200 machine's 16 Xeon cores): the
# rule for cl:cr's cpu1 rows after run8 (8 rows a work-item only where the batch holds a block
# of 8 rows for every compute unit; build-gpu/clparity_rb8, built from the working tree) against
# 4 rows forced, by dec.py on PoCL, two rounds; then tools/bench --cr's PoCL row (6).
#   bash docs/results/2026-12-01c-gpu/run9.sh          (writes $OUT/run9/)
set -u
source .gpu/setup.sh
export XDG_CACHE_HOME=/tmp/c9 PYTHONUNBUFFERED=1 DEV=portable MINTIME=0.3
mkdir -p build && cp build-gpu/clparity_rb8 build/clparity
R=${OUT:-/tmp/out}
O=$R/run9
mkdir -p "$O"
for r in 1 2; do
  for sh in "512 8 64" "512 4 256" "1024 4 128" "1024 2 512"; do
    set -- $sh
    timeout 100 python3 build-gpu/dec.py "$O/dec.txt" $1 $2 $3 rb4=-:path=cpu1,rb=4 def=-:-
  done
done
timeout 200 python3 tools/bench --cr --pocl portable --only 6 --rounds 3 > "$O/bench_cr6.txt" 2>&1
awk '{print $1,$2,$3,$4,$7,$9,$11}' "$O/dec.txt"; grep -E '^6 |^     ' "$O/bench_cr6.txt"
grep -c . "$O/dec.txt"
