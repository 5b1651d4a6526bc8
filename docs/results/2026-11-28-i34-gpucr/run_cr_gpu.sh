#!/usr/bin/env bash
# issue 34, cl:cr's GPU kernels (branch i34-gpucr): equality against host:cr with each variant
# forced, then cl:own against cl:cr side by side at the targets' shapes. Not run yet (README.md).
# From the repository root on the GPU machine, with build/clparity and .gpu/ there:
#   source .gpu/setup.sh; bash docs/results/2026-11-28-i34-gpucr/run_cr_gpu.sh
# (about 4-6 minutes); writes env.txt, equal.txt, time.txt and json.txt under $OUT.
set -u
source .gpu/setup.sh
B=build/clparity
O=${OUT:-/tmp/out}
mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/cache
T0=$SECONDS
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; $B devices; } > "$O/env.txt" 2>&1
eq() { # tune d L B
  echo "== CLPARITY_CR_TUNE=$1 d=$2 L=$3 B=$4 (t=$((SECONDS - T0)) s)"
  env ${1:+CLPARITY_CR_TUNE=$1} timeout 90 $B compare -d gpu -d host --engines cl:cr,host:cr \
    --d-model "$2" --layers "$3" --batch "$4" --runs 1 --warmup 0 --expect cr 2>&1 |
    grep -E "^ *cr +|^builds: cl:cr|^ran: +cl:cr|rror|INVALID"
  echo "rc=${PIPESTATUS[0]}"
}
tm() { # tune d L B runs
  echo "== CLPARITY_CR_TUNE=$1 d=$2 L=$3 B=$4 runs=$5 (t=$((SECONDS - T0)) s)"
  env ${1:+CLPARITY_CR_TUNE=$1} timeout 100 $B run -d gpu --engines cl:own,cl:cr --d-model "$2" \
    --layers "$3" --batch "$4" --runs "$5" --no-reference --json /tmp/j.json 2>&1 | grep -vE "^ *$"
  echo "rc=${PIPESTATUS[0]}"
  echo "== $1 d=$2 L=$3 B=$4" >> "$O/json.txt"; cat /tmp/j.json >> "$O/json.txt" 2>/dev/null
}
{
  eq "" 128 128 1
  eq path=team 128 128 1
  eq path=team 301 2 3
  eq path=team,split=16 200 3 2
  eq path=stream 1024 4 1
  eq path=stream 4096 2 1
  eq path=stream 301 2 3
  eq path=gemv 1025 2 2
  eq "" 128 4 2048
  eq path=gemm 301 2 67
  eq path=gemm,tk=32 1024 2 300
  eq path=gemm 4096 2 256
  eq path=tiles 128 8 2048
  eq path=tiles,sg=2 301 2 67
} > "$O/equal.txt" 2>&1
{
  tm "" 128 128 1 50
  tm "" 1024 128 1 20
  tm "" 2048 128 1 20
  tm "" 4096 128 1 20
  tm "" 128 128 256 20
  tm "" 128 128 2048 20
  tm "" 4096 16 4096 5
  tm path=stream 128 128 1 50
  tm path=team 128 128 1 50
  tm path=team,split=8 128 128 1 50
  tm path=team,split=2 128 128 1 50
  tm path=team,split=16 128 128 1 50
  tm path=gemm,tk=8 128 128 2048 20
  tm path=gemm,tk=32 128 128 2048 20
  tm path=stream 128 128 256 20
  tm path=tiles 128 128 256 20
  tm path=tiles 128 128 2048 20
  tm path=tiles,sg=4 128 128 2048 20
  tm path=gemm,tk=32 4096 16 4096 3
} > "$O/time.txt" 2>&1
echo "total $((SECONDS - T0)) s" >> "$O/time.txt"
