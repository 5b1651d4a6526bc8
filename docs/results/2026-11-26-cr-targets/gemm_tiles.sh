#!/usr/bin/env bash
set -u
out=$1; export XDG_CACHE_HOME=/tmp/gcache
T=$out/t.tsv; : > $T
source ./pt.sh
G=NVIDIA
for b in old new; do clp=./build/clparity; [ $b = old ] && clp=./clparity_old
  pt ${b}_128_2048 "" cl:cr $G --d-model 128 --layers 128 --batch 2048
  for tk in 8 16 32; do pt ${b}_1024_1024 path=gemm,tk=$tk cl:cr $G --d-model 1024 --layers 4 --batch 1024; done
  pt ${b}_4096_4096 "" cl:cr $G --d-model 4096 --layers 4 --batch 4096 --runs 3
done
clp=./build/clparity
pt own_4096_4096 "" cl:own $G --d-model 4096 --layers 4 --batch 4096 --runs 3
CLPARITY_CR_TUNE=path=gemm timeout 200 python3 tests/check_cr.py $clp $out/ccr --engines cl:cr -d NVIDIA --quick > $out/check_cr_gemm.txt 2>&1; echo "check_cr gemm exit $?" >> $out/check_cr_gemm.txt
timeout 100 $clp compare -d NVIDIA -d host --engines cl:cr,host:cr --d-model 1025 --layers 3 --batch 67 --expect cr --runs 2 > $out/cmp_1025.txt 2>&1; echo "compare expect cr exit $?" >> $out/cmp_1025.txt
rm -rf $out/ccr
