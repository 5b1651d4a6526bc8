#!/usr/bin/env bash
# i23 (7042a7a) on the H100: issue 23's acceptance 1, 2 and 4 there. Writes under $1.
set -u
out=$1; clp=./build/clparity; mkdir -p "$out"; export XDG_CACHE_HOME=/tmp/i23cache
S=$out/summary.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $clp --version; } >"$out/env.txt" 2>&1
source ./chk.sh
t0=$(date +%s)
timeout 150 python3 tests/check_cr.py $clp "$out/ccr" --engines cl:cr -d NVIDIA >"$out/check_cr.txt" 2>&1
echo "check_cr.py NVIDIA exit $? ($(( $(date +%s) - t0 )) s): $(tail -n 2 "$out/check_cr.txt" | tr '\n' ' ')" >>$S
for p in "depth_max 128 3840 1" "params_min 128 131072 1"; do
  set -- $p
  timeout 120 $clp compare -d NVIDIA -d host --engines cl:cr,host:cr,cl:own,host:exact --d-model $2 --layers $3 --batch $4 --init-scale 0.25 --runs 1 --warmup 0 --json "$out/$1.json" >"$out/$1.txt" 2>&1
  echo "$1 (init-scale 0.25) exit $?" >>$S; check "$1" "$out/$1.json" >>$S 2>&1
  grep -E "^R[0-9] " "$out/$1.txt" >>$S
done
timeout 120 $clp train -d NVIDIA -d host --engines cl:cr,host:cr --steps 100 --json "$out/train_cr.json" >"$out/train_cr.txt" 2>&1
echo "train cl:cr,host:cr 100 steps exit $?" >>$S; timeout 60 python3 tests/check_cr_train.py "$out/train_cr.json" >>$S 2>&1; echo "check_cr_train exit $?" >>$S
grep -E "cl:cr|host:cr" "$out/train_cr.txt" | tail -3 >>$S
timeout 60 $clp train -d NVIDIA -d host --engines cl:cr --model tests/fixtures/digits.safetensors --batch 5 --lr 0.005 --steps 30 --target random --json "$out/train_cr_digits.json" >"$out/train_cr_digits.txt" 2>&1
echo "train digits exit $?" >>$S; timeout 60 python3 tests/check_cr_train.py "$out/train_cr_digits.json" >>$S 2>&1; echo "check_cr_train digits exit $?" >>$S
for s in "16 2 1" "4096 16 64"; do set -- $s
  for t in path=gemv,exact=1 path=splitk,split=8 path=cpu; do n=tune_${1}_${2}_${3}_$(echo $t | tr '=,' '__')
    CLPARITY_CR_TUNE=$t timeout 60 $clp compare -d NVIDIA -d host --engines cl:cr,host:cr --d-model $1 --layers $2 --batch $3 --runs 1 --warmup 0 --json "$out/$n.json" >"$out/$n.txt" 2>&1
    echo "$n exit $?" >>$S; check "$n" "$out/$n.json" >>$S 2>&1; done; done
echo "matrix start $(( $(date +%s) - t0 )) s" >>$S
timeout $(( 530 - ($(date +%s) - t0) )) ./build/tests/test_cr_cl >"$out/matrix.txt" 2>&1
echo "test_cr_cl exit $? ($(( $(date +%s) - t0 )) s): $(grep -E 'PASSED|FAILED' "$out/matrix.txt" | tail -3 | tr '\n' ' ')" >>$S
cat $S
