#!/usr/bin/env bash
# 2026-11-30 (second session), first GPU call (the H200 machine's 16 Xeon cores): where the host
# trainers' step goes by phase (a measurement build of main 23ccdca: per-thread phase times,
# PAR_PROF; X_PIN_SHARED=1 pins the shared pool as the forward's pool is; X_SPINS sets the
# barrier's spins), and train --steps 100's parts at d=128 L=128 B=64 (issue 35 rows 1, 2, 5).
#   bash docs/results/2026-11-30b-gpu/run1.sh          (writes $OUT/run1/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/* build/
export OPENBLAS_CORETYPE=SkylakeX XDG_CACHE_HOME=/tmp/c1
R=${OUT:-/tmp/out}
O=$R/run1
mkdir -p "$O"
nproc > "$O/nproc.txt"; lscpu > "$O/lscpu.txt"
{
for s in "128 128 64" "512 8 64" "1024 16 64"; do
  set -- $s
  echo "== d=$1 L=$2 B=$3"
  build/clparity run -d host --engines host:exact --d-model $1 --layers $2 --batch $3 --no-reference --runs 30 2>&1 | grep -E "^host " | head -1
  for pin in "" 1; do
    for e in host:exact host:f64; do
      echo "-- $e pin=${pin:-0}"
      X_PIN_SHARED=$pin PAR_PROF=1 build/host_time $e $1 $2 $3 adam 20 2>&1
    done
  done
  echo "-- host:exact sgd pin=1"; X_PIN_SHARED=1 PAR_PROF=1 build/host_time host:exact $1 $2 $3 sgd 20 2>&1
  echo "-- host:exact adam pin=1 spins=200000"; X_SPINS=200000 X_PIN_SHARED=1 PAR_PROF=1 build/host_time host:exact $1 $2 $3 adam 20 2>&1
done
echo "== d=1024 L=16 B=64, 2 threads"
CLPARITY_HOST_THREADS=2 build/clparity run -d host --engines host:exact --d-model 1024 --layers 16 --batch 64 --no-reference --runs 10 2>&1 | grep -E "^host " | head -1
CLPARITY_HOST_THREADS=2 PAR_PROF=1 build/host_time host:exact 1024 16 64 adam 10 2>&1
} > "$O/prof.txt" 2>&1
T="build/clparity train -d NVIDIA,host --d-model 128 --layers 128 --batch 64 --steps 100 --init-scale 0.5 --optimizer adam --lr 0.001 --quiet"
$T > /dev/null 2>&1   # the program cache warm
for pin in "" 1 "" 1; do
  s0=$(date +%s.%N); X_PIN_SHARED=$pin $T --json "$O/train_pin${pin:-0}.json" > "$O/train_pin${pin:-0}.txt" 2>&1; rc=$?; s1=$(date +%s.%N)
  echo "pin=${pin:-0} rc=$rc wall=$(echo "$s1 - $s0" | bc) s" >> "$O/train.txt"
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print([(r['engine'], round(r.get('step_ms_mean',0),3), round(r.get('first_step_ms',0),3)) for r in d['results']])" "$O/train_pin${pin:-0}.json" >> "$O/train.txt" 2>&1
done
