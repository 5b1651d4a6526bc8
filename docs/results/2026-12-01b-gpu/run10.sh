#!/usr/bin/env bash
# 2026-12-01 (second session), tenth GPU call (16 Xeon cores only): the update's writes of the
# next step's Wᵀ panels (wt_next) with plain stores instead of non-temporal ones (test switch
# X_NS in build-gpu/host_time_ns, main 6a74b31 plus the switch), alternating with the default.
#   bash docs/results/2026-12-01b-gpu/run10.sh          (writes $OUT/run10/)
set -u
source .gpu/setup.sh
R=${OUT:-/tmp/out}
O=$R/run10
mkdir -p "$O"
for r in 1 2 3; do
  for th in 16 2; do
    for x in "" "X_NS=1"; do
      for s in "host:exact 128 128 64 adam 40" "host:f64 128 128 64 adam 30" "host:exact 512 8 64 adam 60" "host:exact 1024 16 64 adam 10"; do
        echo "r$r th=$th ${x:-none} $(env $x CLPARITY_HOST_THREADS=$th timeout 60 build-gpu/host_time_ns $s)"
      done
    done
  done
done > "$O/host_time.txt" 2>&1
sed 's/hash=.*//' "$O/host_time.txt"
