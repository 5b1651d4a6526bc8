#!/usr/bin/env bash
set -u
out=$1; clp=./clparity; export XDG_CACHE_HOME=/tmp/xcache3
T=$out/t.tsv; : > $T
source ./pt.sh
G=NVIDIA
$clp peak -d NVIDIA > $out/peak.txt 2>&1
for d in 128 1024 4096; do L=$(( d == 4096 ? 32 : 128 ))
  pt own_default_$d "" cl:own,cl:cr $G --d-model $d --layers $L --batch 1
  CLPARITY_OWN_KERNEL=naive pt own_naive_$d "" cl:own $G --d-model $d --layers $L --batch 1
  CLPARITY_OWN_KERNEL=small pt own_small_$d "" cl:own $G --d-model $d --layers $L --batch 1
  CLPARITY_OWN_TUNE=sp=0 pt own_stream_sp0_$d "" cl:own $G --d-model $d --layers $L --batch 1
done
for L in 1 2 4 8; do pt depth_$L "" cl:own,cl:cr $G --d-model 1024 --layers $L --batch 1; done
CLPARITY_OWN_KERNEL=naive pt naive_gemmB "" cl:own $G --d-model 1024 --layers 4 --batch 1024
pt gemmB "" cl:own,cl:cr $G --d-model 1024 --layers 4 --batch 1024
