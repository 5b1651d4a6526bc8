#!/usr/bin/env bash
# 2026-11-30 (second session), eighth GPU call (the H200 machine): issue 35 row 5, `train
# --steps 100` at d=128 L=128 B=64 with everything, in rounds: main (clparity_old: run1's
# measurement build, its switches off), par_share (clparity_new), and par_share with train
# reading each step's weights without a copy (clparity_view: cp_trainer_weights_view).
#   bash docs/results/2026-11-30b-gpu/run8.sh          (writes $OUT/run8/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/* build/
export OPENBLAS_CORETYPE=SkylakeX XDG_CACHE_HOME=/tmp/c8
R=${OUT:-/tmp/out}
O=$R/run8
mkdir -p "$O"
T="train -d NVIDIA,host --d-model 128 --layers 128 --batch 64 --steps 100 --init-scale 0.5 --optimizer adam --lr 0.001 --quiet"
build/clparity_view $T > /dev/null 2>&1
for rep in 1 2 3 4; do
  for v in old new view; do
    s0=$(date +%s%N); build/clparity_$v $T --json /tmp/train_${v}_$rep.json > /tmp/train_${v}_$rep.txt 2>&1; rc=$?; s1=$(date +%s%N)
    echo "$v rc=$rc wall_ms=$(( (s1 - s0) / 1000000 )) $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print([(r['engine'], round(r.get('step_ms_mean',0),3), r['hash']) for r in d['results']])" /tmp/train_${v}_$rep.json)" >> "$O/train.txt"
  done
done
