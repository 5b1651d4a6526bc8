#!/usr/bin/env bash
# Issue 34, target 3 on the GPU machine, after gpu1.sh: gemm's failed outputs through the second
# certificate (cr_dot2: Sum2) before the exact accumulator. d=128 against host:cr (--expect cr);
# d=4096 L=16 B=4096 with `run --no-reference` (compare's host:f64 there took > 150 s).
set -u
source .gpu/setup.sh
B=build/clparity
O=${OUT:-/tmp/out}
mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/cache OPENBLAS_CORETYPE=SkylakeX
T0=$SECONDS
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } > "$O/env.txt" 2>&1
pt() { # tune d L B runs
  echo "== CLPARITY_CR_TUNE=$1 d=$2 L=$3 B=$4 (t=$((SECONDS - T0)) s)"
  env CLPARITY_CR_TUNE=$1 timeout 100 $B compare -d gpu -d host --engines cl:own,cl:cr,host:cr \
    --d-model "$2" --layers "$3" --batch "$4" --runs "$5" --warmup 1 --expect cr 2>&1 |
    grep -E "^R[0-9] .* [0-9]+ +[0-9.]+ ±|^ *cr +|^ran: +cl:cr|rror|INVALID|FAIL"
  echo "rc=${PIPESTATUS[0]}"
}
{
  for rm in 1 2 4; do
    pt path=gemm,rm=$rm 128 128 256 20
    pt path=gemm,rm=$rm 128 128 2048 20
  done
  for rm in 1 2; do pt path=tiles,rm=$rm 128 128 256 20; done
  for t in path=gemm,rm=4 path=gemm,rm=8 path=gemm,rm=2; do
    echo "== run CLPARITY_CR_TUNE=$t d=4096 L=16 B=4096 (t=$((SECONDS - T0)) s)"
    env CLPARITY_CR_TUNE=$t timeout 120 $B run -d gpu --engines cl:own,cl:cr --d-model 4096 \
      --layers 16 --batch 4096 --runs 3 --warmup 1 --no-reference 2>&1 | grep -E "cl:own|cl:cr|rror"
    echo "rc=${PIPESTATUS[0]}"
  done
} > "$O/gemm2.txt" 2>&1
echo "total $((SECONDS - T0)) s" >> "$O/gemm2.txt"
