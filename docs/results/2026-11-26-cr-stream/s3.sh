#!/usr/bin/env bash
# The device-wide barrier with a release word (grid_sync.cl, now) against the count polled
# (k_old/, through CLPARITY_KERNEL_DIR): cl:own and cl:cr, bits and times.
set -u
out=$1; clp=./clparity; export XDG_CACHE_HOME=/tmp/xcache
T=$out/t.tsv; : > $T
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $clp --version; } > $out/env.txt 2>&1
source ./pt.sh
G=NVIDIA
for m in "--d-model 1025 --layers 3 --batch 5" "--model digits.safetensors --batch 17" "--d-model 257 --layers 9 --batch 16" "--d-model 3 --layers 5 --batch 1"; do
  for t in "" path=stream,wg=16,ob=1,sg=16 path=stream,ob=8,sg=1,exact=1; do
  CLPARITY_CR_TUNE=$t timeout 120 $clp compare -d $G -d host --engines cl:cr,host:cr $m --runs 1 --warmup 0 --expect cr > $out/last.txt 2>&1
  echo "expect cr[$t][$m] rc=$? $(grep -E '^ *cr +' $out/last.txt | cut -c1-20) $(grep '^ran: *cl:cr' $out/last.txt | sed 's/.*cr.cl//')" >> $out/expect.txt
  done
  CLPARITY_OWN_KERNEL=stream timeout 120 $clp compare -d $G -d host --engines cl:own,host:exact $m --runs 1 --warmup 0 --expect bitwise > $out/last.txt 2>&1
  echo "expect bitwise[stream][$m] rc=$? $(grep -E '^ *bitwise +' $out/last.txt | cut -c1-20) $(grep '^ran: *cl:own' $out/last.txt | sed 's/.*: //')" >> $out/expect.txt
done
both() { # name tune engines args...: the row with the new barrier, then with k_old's
  local name=$1; shift
  pt $name "$@"; (export CLPARITY_KERNEL_DIR=k_old; pt ${name}_old "$@")
}
M128="--d-model 128 --layers 128 --batch 1"
both ref "" cl:own,cl:cr $G $M128
for s in wg=32,ob=1,sg=1 wg=16,ob=1,sg=1 wg=64,ob=1,sg=1 wg=32,ob=2,sg=1; do both ref $s cl:cr $G $M128; done
echo "t=$SECONDS" >> $T
for d in 256 512 1024 2048; do M="--d-model $d --layers 128 --batch 1"
  both b1_d$d "" cl:own,cl:cr $G $M
  for s in wg=64,ob=1,sg=4 wg=64,ob=2,sg=4 wg=128,ob=2,sg=4 wg=128,ob=4,sg=4 wg=128,ob=1,sg=8 wg=128,ob=8,sg=4; do pt b1_d$d $s cl:cr $G $M; done
done
echo "t=$SECONDS" >> $T
M4096="--d-model 4096 --layers 16 --batch 1"
both b1_d4096_L16 "" cl:own,cl:cr $G $M4096
for s in wg=128,ob=8,sg=4 wg=128,ob=4,sg=8 wg=128,ob=2,sg=8 wg=128,ob=1,sg=8 wg=64,ob=4,sg=16 path=gemv,wg=128,ob=1; do pt b1_d4096_L16 $s cl:cr $G $M4096; done
echo "t=$SECONDS" >> $T
both b16_d128 "" cl:own,cl:cr $G --d-model 128 --layers 128 --batch 16
both b16_d1024 "" cl:own,cl:cr $G --d-model 1024 --layers 32 --batch 16
for s in wg=128,ob=4,sg=8 wg=128,ob=2,sg=8; do pt b16_d1024 $s cl:cr $G --d-model 1024 --layers 32 --batch 16; done
pt b32_d1024 "" cl:own,cl:cr $G --d-model 1024 --layers 32 --batch 32
pt b32_d1024 path=stream cl:cr $G --d-model 1024 --layers 32 --batch 32
echo "t=$SECONDS" >> $T
