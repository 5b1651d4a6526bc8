#!/bin/bash
# usage: bench.sh BUILD ICD ROUNDS SETTING...
# One process per (round, setting, shape), alternating the settings within each round:
# compare -d 0 --engines cl:own,cl:cr, one JSON per run.
b=$1 icd=$2 rounds=$3; shift 3
settings=("$@")
out=/tmp/f32bench/$(basename $icd)
mkdir -p $out
for r in $(seq 1 $rounds); do
  for s in "${settings[@]}"; do
    for shape in "128 128 1" "512 8 64"; do
      read -r d L B <<< "$shape"
      tag="${s//[=,]/_}.d${d}_L${L}_B${B}.r$r"
      OCL_ICD_VENDORS=$icd RUSTICL_ENABLE=llvmpipe CLPARITY_CR_TUNE=$s nice $b/clparity compare -d 0 \
        --engines cl:own,cl:cr --d-model $d --layers $L --batch $B --runs 3 --warmup 1 \
        --json $out/$tag.json > $out/$tag.txt 2>&1 || echo "FAIL $tag"
      echo "$(date +%T) $tag done"
    done
  done
done
