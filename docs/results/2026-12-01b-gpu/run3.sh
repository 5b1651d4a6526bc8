#!/usr/bin/env bash
# 2026-12-01 (second session), third and fourth GPU calls (16 Xeon cores only): where
# host:exact's and host:f64's steps go. build-gpu/host_time_prof is host_time built against the
# library with prof.patch (each thread's time in its share of each phase and in the barrier
# after it, by phase kind, and within them the forward's tile and epilogue, dx, and dW with the
# update); the fourth call's build has the loss's gradient shared out (main after e2ee6a2).
# Then host_time of that build (build-gpu/host_time_loss) against main 39443e5's, alternating.
#   bash docs/results/2026-12-01b-gpu/run3.sh run4          (writes $OUT/run4/)
set -u
source .gpu/setup.sh
R=${OUT:-/tmp/out}
O=$R/${1:-run3}
mkdir -p "$O"
{ date -u; nproc; } > "$O/env.txt"
for th in 16 2; do
  for s in "host:exact 512 8 64 adam 100" "host:f64 512 8 64 adam 60" "host:exact 1024 16 64 adam 20" "host:f64 1024 16 64 adam 10" "host:exact 128 128 64 adam 60"; do
    echo "th=$th $(CLPARITY_HOST_THREADS=$th timeout 60 build-gpu/host_time_prof $s)"
  done
done > "$O/prof.txt" 2>&1
if [ -x build-gpu/host_time_loss ]; then
  for r in 1 2 3; do
    for b in host_time_main host_time_loss; do
      for s in "host:exact 512 8 64 adam 40" "host:f64 512 8 64 adam 30" "host:exact 1024 16 64 adam 10" "host:exact 128 128 64 adam 30"; do
        echo "r$r th=16 $b $(CLPARITY_HOST_THREADS=16 timeout 60 build-gpu/$b $s)"
      done
    done
  done > "$O/host_time.txt" 2>&1
fi
cat "$O/prof.txt"; sed 's/hash=.*//' "$O/host_time.txt" 2>/dev/null
