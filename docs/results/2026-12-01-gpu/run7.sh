#!/usr/bin/env bash
# 2026-12-01, seventh GPU call (its 16 Xeon cores only): host:exact's step with its forward in
# the batch's lanes (the change: build-gpu/clparity_lanes, build-gpu/host_time) against main
# 7aabeec's (build-gpu/host_time_main) and befc908's binary (build-gpu/clparity; the same host
# code as 7aabeec), alternating.
#   bash docs/results/2026-12-01-gpu/run7.sh          (writes $OUT/run7/)
set -u
source .gpu/setup.sh
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c7
R=${OUT:-/tmp/out}
O=$R/run7
mkdir -p "$O" build
cp build-gpu/clparity build/clparity
{ date -u; nproc; build-gpu/clparity --version; build-gpu/clparity_lanes --version; } > "$O/env.txt" 2>&1
{
for r in 1 2 3; do
  for th in 2 16; do
    for b in host_time_main host_time; do
      for s in "512 8 64 adam 40" "1024 16 64 adam 12" "128 128 64 adam 40" "256 8 32 sgd 40"; do
        echo "r$r th=$th $b $(CLPARITY_HOST_THREADS=$th timeout 60 build-gpu/$b host:exact $s)"
      done
    done
  done
done
} > "$O/host_time.txt" 2>&1
for b in clparity clparity_lanes clparity clparity_lanes; do
  timeout 100 python3 tools/bench --train --only 1 --rounds 1 --train-steps 10 --train-timeout 60 \
      --clparity build-gpu/$b > "$O/bench_row1_$b.txt.tmp" 2>&1
  cat "$O/bench_row1_$b.txt.tmp" >> "$O/bench_row1_$b.txt"; rm -f "$O/bench_row1_$b.txt.tmp"
done
sed 's/hash=.*//' "$O/host_time.txt"; grep -h 'row 1, ' "$O"/bench_row1_*.txt | sed 's/forward median \([0-9.]*\) ms ([^)]*)/fwd \1/; s/host:exact step median \([0-9.]*\) ms ([^)]*)/step \1/'
