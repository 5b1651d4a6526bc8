#!/usr/bin/env bash
# 2026-11-30 (second session), fourth GPU call (the H200 machine's 16 Xeon cores): host:exact's
# and host:f64's steps with main's static shares (host_time_old: the measurement build of run1,
# its switches off) and with each thread's share taken in parts and the rest taken by the others
# (host_time_new: par_share), side by side in rounds; train --steps 100 at d=128 L=128 B=64.
#   bash docs/results/2026-11-30b-gpu/run4.sh          (writes $OUT/run4/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/* build/
export OPENBLAS_CORETYPE=SkylakeX XDG_CACHE_HOME=/tmp/c4
R=${OUT:-/tmp/out}
O=$R/run4
mkdir -p "$O"
{
for s in "1024 16 64" "512 8 64" "128 128 64"; do
  set -- $s
  echo "== d=$1 L=$2 B=$3"
  build/clparity_new run -d host --engines host:exact --d-model $1 --layers $2 --batch $3 --no-reference --runs 30 2>&1 | grep -E "^host " | head -1
  for rep in 1 2 3; do
    for v in old new; do
      for o in adam sgd; do build/host_time_$v host:exact $1 $2 $3 $o 20 2>&1 | sed "s/^/$v /"; done
      build/host_time_$v host:f64 $1 $2 $3 adam 20 2>&1 | sed "s/^/$v /"
    done
  done
  build/clparity_new run -d host --engines host:exact --d-model $1 --layers $2 --batch $3 --no-reference --runs 30 2>&1 | grep -E "^host " | head -1
done
} > "$O/steps.txt" 2>&1
T="train -d NVIDIA,host --d-model 128 --layers 128 --batch 64 --steps 100 --init-scale 0.5 --optimizer adam --lr 0.001 --quiet"
build/clparity_new $T > /dev/null 2>&1
for v in old new old new; do
  s0=$(date +%s%N); build/clparity_$v $T --json "$O/train_$v.json" > "$O/train_$v.txt" 2>&1; rc=$?; s1=$(date +%s%N)
  echo "$v rc=$rc wall_ms=$(( (s1 - s0) / 1000000 ))" >> "$O/train.txt"
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print([(r['engine'], round(r.get('step_ms_mean',0),3), round(r.get('first_step_ms',0),3), r['hash']) for r in d['results']])" "$O/train_$v.json" >> "$O/train.txt" 2>&1
done
