#!/usr/bin/env bash
# 2026-11-30 (second session), fifth GPU call (the H200 machine): where `train --steps 100` at
# d=128 L=128 B=64 (issue 35 row 5) spends what is not steps: its wall with 1 and 100 steps,
# and perf over the 100 steps (new: par_share, dzT at 64 bytes); old/new host steps once more.
#   bash docs/results/2026-11-30b-gpu/run5.sh          (writes $OUT/run5/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/* build/
export OPENBLAS_CORETYPE=SkylakeX XDG_CACHE_HOME=/tmp/c5
R=${OUT:-/tmp/out}
O=$R/run5
mkdir -p "$O"
PERF="env LD_LIBRARY_PATH=$PWD/.perf/lib:${LD_LIBRARY_PATH:-} $PWD/.perf/perf"
T="train -d NVIDIA,host --d-model 128 --layers 128 --batch 64 --init-scale 0.5 --optimizer adam --lr 0.001 --quiet"
build/clparity_new $T --steps 2 > /dev/null 2>&1
{
for st in 1 100 1 100; do
  s0=$(date +%s%N); build/clparity_new $T --steps $st > /dev/null 2>&1; rc=$?; s1=$(date +%s%N)
  echo "steps=$st rc=$rc wall_ms=$(( (s1 - s0) / 1000000 ))"
done
s0=$(date +%s%N); build/clparity_new devices > /dev/null 2>&1; s1=$(date +%s%N); echo "devices wall_ms=$(( (s1 - s0) / 1000000 ))"
s0=$(date +%s%N); build/clparity_new train -d host --d-model 128 --layers 128 --batch 64 --init-scale 0.5 --optimizer adam --lr 0.001 --quiet --steps 100 > /dev/null 2>&1; s1=$(date +%s%N); echo "host only steps=100 wall_ms=$(( (s1 - s0) / 1000000 ))"
} > "$O/walls.txt" 2>&1
$PERF record -g -o /tmp/perf.data -F 999 -- build/clparity_new $T --steps 100 > /dev/null 2>&1
{
$PERF report -i /tmp/perf.data --stdio --no-children --sort comm,dso --percent-limit 1 -g none 2>/dev/null | grep -v "^#" | grep -v "^$" | head -20
$PERF report -i /tmp/perf.data --stdio --no-children --sort symbol --percent-limit 0.7 -g none 2>/dev/null | grep -v "^#" | grep -v "^$" | head -40
$PERF report -i /tmp/perf.data --stdio --children --comm clparity_new --sort symbol --percent-limit 3 -g none 2>/dev/null | grep -v "^#" | grep -v "^$" | head -40
} > "$O/perf.txt" 2>&1
{
for s in "128 128 64" "1024 16 64"; do
  for v in old new old new; do build/host_time_$v host:exact $s adam 20 2>&1 | sed "s/^/$v /"; done
done
} > "$O/steps.txt" 2>&1
