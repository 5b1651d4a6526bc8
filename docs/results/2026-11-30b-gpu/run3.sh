#!/usr/bin/env bash
# 2026-11-30 (second session), third GPU call (the H200 machine's 16 Xeon cores): the host
# trainers' step by part at 16 threads (the measurement build of run2 plus per-thread times of
# each part: the products' units, their epilogues, the update), after 3 warm-up steps; the
# forward of host:exact beside it.
#   bash docs/results/2026-11-30b-gpu/run3.sh          (writes $OUT/run3/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/* build/
export OPENBLAS_CORETYPE=SkylakeX XDG_CACHE_HOME=/tmp/c3
R=${OUT:-/tmp/out}
O=$R/run3
mkdir -p "$O"
{
for s in "1024 16 64" "512 8 64" "128 128 64"; do
  set -- $s
  echo "== d=$1 L=$2 B=$3"
  build/clparity run -d host --engines host:exact --d-model $1 --layers $2 --batch $3 --no-reference --runs 30 2>&1 | grep -E "^host " | head -1
  for o in sgd adam; do
    for rows in "" 1; do
      echo "-- host:exact $o rows=${rows:-0}"
      X_DWROWS=$rows PAR_PROF=1 build/host_time host:exact $1 $2 $3 $o 20 2>&1 | grep -v "pack\|loss"
    done
  done
  echo "-- host:f64 adam rows=1"; X_DWROWS=1 PAR_PROF=1 build/host_time host:f64 $1 $2 $3 adam 20 2>&1 | grep -v "pack\|loss"
  build/clparity run -d host --engines host:exact --d-model $1 --layers $2 --batch $3 --no-reference --runs 30 2>&1 | grep -E "^host " | head -1
done
} > "$O/parts.txt" 2>&1
