#!/usr/bin/env bash
# main after cr.cl's cr_block (shared by cr_gemv and cr_stream): the bits on the H100 again.
set -u
out=$1; clp=./build/clparity; export XDG_CACHE_HOME=/tmp/s6cache; S=$out/summary.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $clp --version; } > $out/env.txt 2>&1
for t in "" path=gemv path=gemv,wg=16,ob=1 path=stream,wg=128,ob=8,sg=2; do
  for m in "--d-model 1025 --layers 3 --batch 5" "--d-model 67 --layers 4 --batch 64"; do
  CLPARITY_CR_TUNE=$t timeout 100 $clp compare -d NVIDIA -d host --engines cl:cr,host:cr $m --runs 1 --warmup 0 --expect cr > $out/last.txt 2>&1
  echo "expect cr[$t][$m] rc=$? $(grep -E '^ *cr +' $out/last.txt | cut -c1-14) $(grep '^ran: *cl:cr' $out/last.txt | sed 's/.*cr.cl //')" >> $S
done; done
timeout 150 python3 tests/check_cr.py $clp $out/ccr --engines cl:cr -d NVIDIA --quick > $out/check_cr.txt 2>&1; echo "check_cr --quick NVIDIA exit $?: $(tail -1 $out/check_cr.txt)" >> $S
rm -rf $out/ccr; cat $S
