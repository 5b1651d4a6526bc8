#!/usr/bin/env bash
# Issue 34, target 3 on the GPU machine, after gpu2.sh: the failed outputs summed by the whole
# work-group (cr_dot2 cooperative), and deeper tiles (tk 64, 128) for the one-launch tiles.
# d=128 against host:cr (--expect cr);
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
    grep -E "^R[0-9] .* [0-9]+ +[0-9.]+ ±|^ *cr +|rror|INVALID"
  echo "rc=${PIPESTATUS[0]}"
}
{
  for t in path=gemm,rm=1 path=gemm,rm=2 path=gemm,rm=1,tk=64 path=tiles,rm=1,tk=128 path=tiles,rm=2,tk=128 path=tiles,rm=2,tk=64 path=tiles,rm=2,tk=128,sg=2; do
    pt $t 128 128 256 20
  done
  for t in path=gemm,rm=2 path=gemm,rm=4 path=tiles,rm=2,tk=128; do pt $t 128 128 2048 20; done
  for t in path=gemm,rm=4 path=gemm,rm=8 path=gemm,rm=4,tk=32 path=gemm,rm=8,tk=32; do
    echo "== run CLPARITY_CR_TUNE=$t d=4096 L=16 B=4096 (t=$((SECONDS - T0)) s)"
    env CLPARITY_CR_TUNE=$t timeout 120 $B run -d gpu --engines cl:own,cl:cr --d-model 4096 \
      --layers 16 --batch 4096 --runs 3 --warmup 1 --no-reference 2>&1 | grep -E "^0:0.*cl:(own|cr) |rror"
    echo "rc=${PIPESTATUS[0]}"
  done
} > "$O/gemm3.txt" 2>&1
echo "total $((SECONDS - T0)) s" >> "$O/gemm3.txt"
