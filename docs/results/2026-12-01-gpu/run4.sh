#!/usr/bin/env bash
# 2026-12-01, fourth GPU call (H200): run3's two largest points (2^31 weights: d=4096 L=128 and
# d=128 L=131072, B=1), which its 45 s limit cut, with each method forced; two at a time.
#   bash docs/results/2026-12-01-gpu/run4.sh          (writes $OUT/run4/)
set -u
source .gpu/setup.sh
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c3
mkdir -p build && cp build-gpu/clparity build/clparity
R=${OUT:-/tmp/out}
O=$R/run4
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; free -g; build/clparity --version; } > "$O/env.txt" 2>&1
one() { # method tag shape...
  local m=$1 tag=$2; shift 2
  local t0=$SECONDS
  CLPARITY_CR_TUNE=$m timeout 170 build/clparity compare -d NVIDIA -d host --engines cl:cr,host:cr \
      --expect cr --runs 1 --warmup 0 "$@" > "$O/$tag.txt" 2>&1
  echo "exit $? after $((SECONDS - t0)) s" >> "$O/$tag.txt"
}
for m in "" method=f32 exact=1; do
  tag=${m:-double}; tag=${tag//=/_}
  one "$m" "w4096_$tag" --d-model 4096 --layers 128 --batch 1 &
  one "$m" "l131072_$tag" --d-model 128 --layers 131072 --batch 1 --init-scale 0.001 &
  wait
done
for f in "$O"/w4096_*.txt "$O"/l131072_*.txt; do
  echo "### $(basename "$f")"; grep -E "^  cr  |^exit|rror" "$f"
done
