#!/usr/bin/env bash
# Issue 34 on the GPU machine, part 1 (acceptance 2 and 3): cl:cr against host:cr with each
# method forced in turn (double: the rules' variant and each GPU variant; float32-only:
# method=f32; exact: exact=1) at the sweeps' smallest and largest points, check_cr.py's exact
# reference (--quick) with each method, and train --engines cl:cr,host:cr with adam, adamw and
# momentum, 100 steps, bit-identical at every step. From the repository root, with
# build/clparity and .gpu/ there: bash docs/results/2026-11-28-i34-gpu/check.sh (writes under $OUT).
set -u
source .gpu/setup.sh
B=build/clparity
O=${OUT:-/tmp/out}
mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/cache OPENBLAS_CORETYPE=SkylakeX
T0=$SECONDS
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; $B devices; } > "$O/env.txt" 2>&1
eq() { # tune d L B
  echo "== CLPARITY_CR_TUNE=$1 d=$2 L=$3 B=$4 (t=$((SECONDS - T0)) s)"
  env ${1:+CLPARITY_CR_TUNE=$1} timeout 120 $B compare -d gpu -d host --engines cl:cr,host:cr \
    --d-model "$2" --layers "$3" --batch "$4" --runs 1 --warmup 0 --expect cr 2>&1 |
    grep -E "^ *cr +|^builds: +cl:cr|^ran: +cl:cr|rror|INVALID|FAIL"
  echo "rc=${PIPESTATUS[0]}"
}
{
  for t in "" method=f32 exact=1; do
    eq "$t" 64 128 1; eq "$t" 4096 16 1; eq "$t" 128 16 1; eq "$t" 128 16 4096; eq "$t" 77 5 13
  done
  for t in path=stream path=gemv path=splitk path=gemm path=team path=tiles; do
    eq "$t" 64 128 1; eq "$t" 1025 4 67
  done
  eq path=gemm 4096 4 4096
} > "$O/equal.txt" 2>&1
{
  for t in "" method=f32 exact=1; do
    echo "== check_cr.py --quick CLPARITY_CR_TUNE=$t (t=$((SECONDS - T0)) s)"
    env ${t:+CLPARITY_CR_TUNE=$t} timeout 150 python3 tests/check_cr.py $B /tmp/cc_$RANDOM --engines cl:cr -d gpu --quick 2>&1 | tail -3
    echo "rc=${PIPESTATUS[0]}"
  done
} > "$O/check_cr.txt" 2>&1
{
  for o in adam adamw momentum; do
    echo "== train --optimizer $o (t=$((SECONDS - T0)) s)"
    timeout 100 $B train -d gpu,host --engines cl:cr,host:cr --optimizer $o --steps 100 2>&1 | tail -12
    echo "rc=${PIPESTATUS[0]}"
  done
} > "$O/train.txt" 2>&1
echo "total $((SECONDS - T0)) s" >> "$O/train.txt"
