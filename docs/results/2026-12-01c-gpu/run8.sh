#!/usr/bin/env bash
# 2026-12-01 (third session), eighth GPU call (PoCL 5 on the H200 machine's 16 Xeon cores):
# cl:cr's cpu1 with 8 rows per work-item (rb=8, the new default where the layers are 512 wide
# or more, the batch 16 or more and the device's double vectors 8 wide; build-gpu/clparity_rb8)
# against 4 (main's), by dec.py on PoCL, two rounds alternating; then tools/bench --cr's PoCL
# row (6) with the new binary.
#   bash docs/results/2026-12-01c-gpu/run8.sh          (writes $OUT/run8/)
set -u
source .gpu/setup.sh
export XDG_CACHE_HOME=/tmp/c8 PYTHONUNBUFFERED=1 DEV=portable MINTIME=0.3
mkdir -p build && cp build-gpu/clparity_rb8 build/clparity
R=${OUT:-/tmp/out}
O=$R/run8
mkdir -p "$O"
for r in 1 2; do
  for sh in "512 8 64" "1024 4 64" "512 8 16" "512 4 256" "128 16 64"; do
    set -- $sh
    timeout 100 python3 build-gpu/dec.py "$O/dec.txt" $1 $2 $3 rb4=-:path=cpu1,rb=4 rb8=-:path=cpu1,rb=8 def=-:-
  done
done
timeout 200 python3 tools/bench --cr --pocl portable --only 6 --rounds 3 > "$O/bench_cr6.txt" 2>&1
awk '{print $1,$2,$3,$4,$7,$9,$11}' "$O/dec.txt"; grep -E '^6 |^     ' "$O/bench_cr6.txt"
