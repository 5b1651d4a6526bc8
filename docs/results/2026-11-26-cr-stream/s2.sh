#!/usr/bin/env bash
# cl:cr small and stream on the GPU: bits (test_cr_cl on NVIDIA alone, compare --expect cr), then timings.
set -u
out=$1; clp=./clparity; export XDG_CACHE_HOME=/tmp/xcache
T=$out/t.tsv; : > $T
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $clp --version; nproc; lscpu | grep "Model name"; $clp devices; } > $out/env.txt 2>&1
source ./pt.sh
G=NVIDIA
mkdir -p /tmp/nv && cp /etc/OpenCL/vendors/nvidia.icd /tmp/nv/
( time OCL_ICD_VENDORS=/tmp/nv timeout 300 ./test_cr_cl ) > $out/matrix.txt 2>&1; echo "matrix rc=$?" >> $out/matrix.txt
for t in "" path=small,wg=16,tg=32,ob=1 path=small,tg=2,ob=8,exact=1 path=stream path=stream,wg=128,ob=8,sg=16; do
  for m in "--d-model 1025 --layers 3 --batch 5" "--model digits.safetensors --batch 17" "--d-model 3 --layers 5 --batch 64"; do
  CLPARITY_CR_TUNE=$t timeout 120 $clp compare -d $G -d host --engines cl:cr,host:cr $m --runs 1 --warmup 0 --expect cr > $out/last.txt 2>&1
  echo "expect[$t][$m] rc=$? $(grep -E '^ *cr +' $out/last.txt | cut -c1-20) $(grep '^ran: *cl:cr' $out/last.txt | sed 's/.*cr.cl//')" >> $out/expect.txt
done; done
M128="--d-model 128 --layers 128 --batch 1"
pt ref "" cl:own,cl:cr $G $M128
for s in tg=1 tg=2 tg=4 tg=16 tg=32 wg=16,tg=8 wg=16,tg=16 wg=16,tg=32,ob=1 wg=32,tg=32,ob=1 wg=32,tg=16,ob=2 wg=64,tg=8 wg=64,tg=16,ob=1 wg=16,tg=8,ob=8 path=stream,wg=32,ob=1,sg=1; do pt ref $s cl:cr $G $M128; done
echo "t=$SECONDS" >> $T
for d in 256 512; do pt b1_d$d "" cl:own,cl:cr $G --d-model $d --layers 128 --batch 1
  for s in path=small,tg=16 path=small,wg=64,tg=16 path=stream,wg=32,ob=1,sg=1 path=stream,wg=64,ob=2,sg=2; do pt b1_d$d $s cl:cr $G --d-model $d --layers 128 --batch 1; done; done
echo "t=$SECONDS" >> $T
M1024="--d-model 1024 --layers 128 --batch 1"
pt b1_d1024 "" cl:own,cl:cr $G $M1024
for s in wg=128,ob=4,sg=4 wg=128,ob=2,sg=4 wg=64,ob=4,sg=8 wg=64,ob=2,sg=4 wg=128,ob=1,sg=8; do pt b1_d1024 $s cl:cr $G $M1024; done
for k in k_old k_u8; do for s in "" wg=128,ob=4,sg=4; do (export CLPARITY_KERNEL_DIR=$k; pt b1_d1024_$k "$s" cl:cr $G $M1024); done; done
echo "t=$SECONDS" >> $T
M4096="--d-model 4096 --layers 16 --batch 1"
pt b1_d4096_L16 "" cl:own,cl:cr $G $M4096
for s in wg=128,ob=8,sg=4 wg=128,ob=4,sg=8 wg=128,ob=2,sg=8 path=gemv,wg=128,ob=1 path=gemv,wg=128,ob=2; do pt b1_d4096_L16 $s cl:cr $G $M4096; done
for k in k_old k_u8; do for s in "" wg=128,ob=8,sg=4; do (export CLPARITY_KERNEL_DIR=$k; pt b1_d4096_L16_$k "$s" cl:cr $G $M4096); done; done
echo "t=$SECONDS" >> $T
pt b16_d128 "" cl:own,cl:cr $G --d-model 128 --layers 128 --batch 16
for s in path=small,tg=16 path=stream; do pt b16_d128 $s cl:cr $G --d-model 128 --layers 128 --batch 16; done
pt b16_d1024 "" cl:own,cl:cr $G --d-model 1024 --layers 32 --batch 16
echo "t=$SECONDS" >> $T
