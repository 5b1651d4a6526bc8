#!/usr/bin/env bash
# 2026-12-01 (second session), seventh GPU call (16 Xeon cores only): the weight gradient's
# units as whole rows of W (the rows each thread's forward reads next, so that W, m and v stay
# in that core's cache), test switch X_DW in build-gpu/host_time_x (main 8be5675 plus the
# switch), against the same binary without it, alternating.
#   bash docs/results/2026-12-01b-gpu/run7.sh          (writes $OUT/run7/)
set -u
source .gpu/setup.sh
R=${OUT:-/tmp/out}
O=$R/run7
mkdir -p "$O"
for r in 1 2 3; do
  for th in 16 2; do
    for x in "" "X_DW=1"; do
      for s in "host:exact 512 8 64 adam 60" "host:exact 1024 16 64 adam 10" "host:f64 512 8 64 adam 40" "host:f64 1024 16 64 adam 6"; do
        echo "r$r th=$th ${x:-none} $(env $x CLPARITY_HOST_THREADS=$th timeout 60 build-gpu/host_time_x $s)"
      done
    done
  done
done > "$O/host_time.txt" 2>&1
sed 's/hash=.*//' "$O/host_time.txt"
