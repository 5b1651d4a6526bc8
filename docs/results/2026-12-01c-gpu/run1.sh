#!/usr/bin/env bash
# 2026-12-01 (third session), first GPU call (16 Xeon cores only): host:exact's step at d=128
# L=128 B=64 (issue 35 row 1's worst point) with test switches in build-gpu/host_time_x (main
# 84efcc3 plus the switches of x35.patch): X_FR rows a forward unit (8 by default), X_DWR the
# weight gradient's units given so that thread j updates the rows its forward reads (X_FR=32),
# X_PF the update's W, m and v prefetched before each unit's product, X_UF units per thread at
# least (1 by default); rounds alternating. Then rows 1 and 2 of the bench with main's binary.
#   bash docs/results/2026-12-01c-gpu/run1.sh          (writes $OUT/run1/)
set -u
source .gpu/setup.sh
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c1
R=${OUT:-/tmp/out}
O=$R/run1
mkdir -p "$O" build
cp build-gpu/clparity_main build/clparity
{ date -u; nproc; lscpu | grep -E 'Model name|L2|L3|NUMA'; build/clparity --version; } > "$O/env.txt" 2>&1
for r in 1 2 3 4; do
  for x in none X_FR=4 X_FR=16 X_FR=32 "X_FR=32 X_DWR=1" X_PF=1 X_UF=2 X_UF=4 "X_FR=4 X_PF=1"; do
    [ "$x" = none ] && e="" || e="$x"
    echo "r$r $x | $(env $e CLPARITY_HOST_THREADS=16 timeout 60 build-gpu/host_time_x host:exact 128 128 64 adam 40)"
  done
done > "$O/d128.txt" 2>&1
for r in 1 2 3; do
  for x in none X_PF=1 X_UF=2 X_FR=4 X_FR=32; do
    [ "$x" = none ] && e="" || e="$x"
    for s in "host:exact 512 8 64 adam 60" "host:exact 1024 16 64 adam 10" "host:f64 128 128 64 adam 30"; do
      echo "r$r $x | $(env $e CLPARITY_HOST_THREADS=16 timeout 60 build-gpu/host_time_x $s)"
    done
  done
done > "$O/others.txt" 2>&1
timeout 240 python3 tools/bench --train --only 1,2 --rounds 3 --train-steps 10 --train-timeout 100 \
    --train-json "$O/bench_train.json" > "$O/bench_train.txt" 2>&1
sed 's/hash=.*//' "$O/d128.txt"; awk '{print $NF}' "$O/d128.txt" | sort | uniq -c
sed 's/hash=.*//' "$O/others.txt"; tail -14 "$O/bench_train.txt"
