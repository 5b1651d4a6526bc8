#!/usr/bin/env bash
# post-merge check on the GPU machine (main 5d0e40b's code): issue 23 acceptance 4 and 3.
set -u
out=$1; clp=./build/clparity; export XDG_CACHE_HOME=/tmp/vcache; S=$out/summary.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $clp --version; } > $out/env.txt 2>&1
timeout 120 $clp train -d NVIDIA -d portable -d host --engines cl:cr,host:cr --steps 100 --json $out/train_cr.json > $out/train_cr.txt 2>&1
echo "train cl:cr,host:cr 100 steps (NVIDIA, PoCL, host) exit $?" >> $S
timeout 60 python3 tests/check_cr_train.py $out/train_cr.json >> $S 2>&1; echo "check_cr_train exit $?" >> $S
grep -E "cl:cr|host:cr" $out/train_cr.txt | tail -4 >> $S
timeout 60 $clp train -d NVIDIA -d host --engines cl:cr,host:cr --optimizer adam --steps 2 > $out/train_adam.txt 2>&1; echo "train cl:cr adam exit $? (2 expected): $(head -c 300 $out/train_adam.txt)" >> $S
for p in "1 3 1" "67 4 17" "1025 2 64" "4096 2 5"; do set -- $p
  timeout 100 $clp compare -d NVIDIA -d portable -d host --engines cl:cr,host:cr,cl:own --d-model $1 --layers $2 --batch $3 --expect cr --runs 2 --warmup 0 > $out/cmp_$1.txt 2>&1
  echo "compare --expect cr d=$1 L=$2 B=$3 exit $?: $(grep -E '^  cr ' $out/cmp_$1.txt)" >> $S; done
timeout 150 python3 tests/check_cr.py $clp $out/ccr --engines cl:cr -d NVIDIA --quick > $out/check_cr.txt 2>&1; echo "check_cr --quick NVIDIA exit $?: $(tail -1 $out/check_cr.txt)" >> $S
rm -rf $out/ccr; cat $S
