#!/usr/bin/env bash
# 2026-12-01, sixth GPU call (its 16 Xeon cores only): the host step's forward with the batch in
# the vector lanes, W read in place (lanes_fwd.patch: a prototype behind X_BL=1, AVX-512, float,
# B a multiple of 16; the update then writes no forward panels). build-gpu/clparity_bl and
# build-gpu/host_time are built with it; without X_BL they are main's step.
#   bash docs/results/2026-12-01-gpu/run6.sh          (writes $OUT/run6/)
set -u
source .gpu/setup.sh
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c6
mkdir -p build && cp build-gpu/clparity_bl build/clparity
R=${OUT:-/tmp/out}
O=$R/run6
mkdir -p "$O"
{ date -u; nproc; build/clparity --version; } > "$O/env.txt" 2>&1
{
for r in 1 2 3; do
  for th in 2 16; do
    for bl in 0 1; do
      for s in "512 8 64 adam 40" "1024 16 64 adam 12" "128 128 64 adam 40"; do
        if [ $bl = 1 ]; then export X_BL=1; else unset X_BL; fi
        echo "r$r th=$th bl=$bl $(CLPARITY_HOST_THREADS=$th timeout 60 build-gpu/host_time host:exact $s)"
      done
    done
  done
done
} > "$O/host_time.txt" 2>&1
unset X_BL
timeout 150 python3 tools/bench --train --only 1 --rounds 2 --train-steps 10 --train-timeout 60 \
    --train-json "$O/bench_row1_main.json" > "$O/bench_row1_main.txt" 2>&1
X_BL=1 timeout 150 python3 tools/bench --train --only 1 --rounds 2 --train-steps 10 --train-timeout 60 \
    --train-json "$O/bench_row1_bl.json" > "$O/bench_row1_bl.txt" 2>&1
cat "$O/host_time.txt" | sed 's/hash=.*//'; tail -4 "$O/bench_row1_main.txt" | head -2; tail -4 "$O/bench_row1_bl.txt" | head -2
