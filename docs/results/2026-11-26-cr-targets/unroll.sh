#!/usr/bin/env bash
set -u
out=$1; clp=./clparity; export XDG_CACHE_HOME=/tmp/xcache
T=$out/t.tsv; : > $T
source ./pt.sh
G=NVIDIA
pt own1024 "" cl:own $G --d-model 1024 --layers 128 --batch 1
pt own4096 "" cl:own $G --d-model 4096 --layers 32 --batch 1
pt own128 "" cl:own $G --d-model 128 --layers 128 --batch 1
for kd in old uk4 uk8; do export CLPARITY_KERNEL_DIR=$PWD/k_$kd
  for s in "" wg=128,ob=1 wg=128,ob=2 wg=64,ob=2 wg=128,ob=4; do
    pt ${kd}_1024 "$s" cl:cr $G --d-model 1024 --layers 128 --batch 1
    pt ${kd}_4096 "$s" cl:cr $G --d-model 4096 --layers 32 --batch 1
  done
  for s in "" wg=32,ob=2 wg=32,ob=1 wg=64,ob=2; do pt ${kd}_128 "$s" cl:cr $G --d-model 128 --layers 128 --batch 1; done
  echo "t=$SECONDS" >> $T
done
