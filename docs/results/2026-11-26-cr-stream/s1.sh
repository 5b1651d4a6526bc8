#!/usr/bin/env bash
# cl:cr stream on the GPU: bits (test_cr_cl on every device, compare --expect cr), then timings.
set -u
out=$1; clp=./clparity; export XDG_CACHE_HOME=/tmp/xcache
T=$out/t.tsv; : > $T
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $clp --version; nproc; lscpu | grep "Model name"; $clp devices; } > $out/env.txt 2>&1
source ./pt.sh
G=NVIDIA
( time timeout 300 ./test_cr_cl ) > $out/matrix.txt 2>&1; echo "matrix rc=$?" >> $out/matrix.txt
for t in "" path=stream,wg=32,ob=1,sg=8 path=stream,wg=128,ob=8,sg=1 path=stream,exact=1; do
  CLPARITY_CR_TUNE=$t timeout 120 $clp compare -d $G -d host --engines cl:cr,host:cr --d-model 1025 --layers 3 --batch 5 --runs 1 --warmup 0 --expect cr > $out/last.txt 2>&1
  echo "expect[$t] rc=$? $(grep -E '^ *cr +' $out/last.txt) $(grep '^ran: *cl:cr' $out/last.txt)" >> $out/expect.txt
done
M128="--d-model 128 --layers 128 --batch 1"
pt ref "" cl:own,cl:cr $G $M128
for s in path=gemv wg=32,ob=1,sg=1 wg=32,ob=1,sg=2 wg=32,ob=2,sg=1 wg=64,ob=1,sg=1 wg=64,ob=4,sg=1 wg=16,ob=1,sg=1 wg=16,ob=2,sg=1 wg=128,ob=1,sg=1 wg=32,ob=4,sg=1; do pt ref $s cl:cr $G $M128; done
echo "t=$SECONDS" >> $T
for d in 1024 2048; do pt b1_d$d "" cl:own,cl:cr $G --d-model $d --layers 128 --batch 1; done
for s in wg=32,ob=1,sg=4 wg=64,ob=1,sg=4 wg=64,ob=2,sg=4 wg=64,ob=4,sg=8 wg=128,ob=1,sg=2 wg=128,ob=2,sg=4 wg=128,ob=4,sg=4 wg=64,ob=1,sg=16 wg=32,ob=2,sg=16; do pt b1_d1024 $s cl:cr $G --d-model 1024 --layers 128 --batch 1; done
echo "t=$SECONDS" >> $T
pt b1_d4096_L16 "" cl:own,cl:cr $G --d-model 4096 --layers 16 --batch 1
for s in path=gemv,wg=128,ob=1 wg=64,ob=4,sg=8 wg=128,ob=1,sg=4 wg=128,ob=2,sg=4 wg=128,ob=4,sg=4 wg=128,ob=1,sg=8 wg=64,ob=1,sg=16 wg=128,ob=8,sg=4; do pt b1_d4096_L16 $s cl:cr $G --d-model 4096 --layers 16 --batch 1; done
pt b16_d1024 "" cl:own,cl:cr $G --d-model 1024 --layers 32 --batch 16
pt b16_d1024 path=gemm cl:cr $G --d-model 1024 --layers 32 --batch 16
echo "t=$SECONDS" >> $T
