#!/usr/bin/env bash
# 2026-12-01 (second session), fifth GPU call (16 Xeon cores only): host:exact's step at d=128
# L=128 B=64 on 16 threads, which run1 and run4 saw 5-8 % slower after the change: main 39443e5
# (host_time_main), the change with the loss shared out (host_time_loss), and two variants of it,
# wt and wt_next allocated where main allocated wt (host_time_varC), and layer 0's Wᵀ panels
# kept (host_time_varD), alternating.
#   bash docs/results/2026-12-01b-gpu/run5.sh          (writes $OUT/run5/)
set -u
source .gpu/setup.sh
R=${OUT:-/tmp/out}
O=$R/run5
mkdir -p "$O"
for r in 1 2 3 4; do
  for b in host_time_main host_time_loss host_time_varC host_time_varD; do
    for s in "host:exact 128 128 64 adam 40" "host:exact 512 8 64 adam 60"; do
      echo "r$r th=16 $b $(CLPARITY_HOST_THREADS=16 timeout 60 build-gpu/$b $s)"
    done
  done
done > "$O/host_time.txt" 2>&1
sed 's/hash=.*//' "$O/host_time.txt"
