#!/usr/bin/env bash
# 2026-11-29 (fourth session), fourth GPU call (H200): tools/bench --cr's GPU rows 1-4 with the
# session's binary (the tile fetched ahead, the certificates' operands loaded ahead, the
# tighter bound of cr_sum_depth, tiles at B=65..256 up to 128 wide), then cl:cr's bits against
# host:cr with each method forced at the smallest and largest sweep points.
#   bash docs/results/2026-11-29d-gpu/run4.sh          (writes $OUT/run4.tgz)
set -u
source .gpu/setup.sh
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c4
mkdir -p build && cp build-gpu/clparity build/clparity
R=${OUT:-/tmp/out}
O=$R/run4
mkdir -p "$O"
pack() { tar czf "$R/run4.tgz" -C "$R" run4; }
trap pack EXIT
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; build/clparity --version; } > "$O/env.txt" 2>&1
timeout 400 python3 tools/bench --cr --gpu NVIDIA --only 1,2,3,4 --rounds 1 --cr-min-time 0.2 \
    --cr-json "$O/bench_cr_gpu.json" > "$O/bench_cr_gpu.txt" 2>&1
echo "rc=$?" >> "$O/bench_cr_gpu.txt"
for m in "" method=f32 exact=1; do
  for shape in "--d-model 64 --layers 128 --batch 1" "--d-model 4096 --layers 8 --batch 1" \
               "--d-model 128 --layers 8 --batch 256" "--d-model 100 --layers 4 --batch 200" \
               "--d-model 77 --layers 5 --batch 13" "--d-model 1025 --layers 2 --batch 67"; do
    echo "### CLPARITY_CR_TUNE=$m $shape"
    CLPARITY_CR_TUNE=$m timeout 60 build/clparity compare -d NVIDIA -d host --engines cl:cr,host:cr \
        --expect cr --runs 1 --warmup 0 $shape 2>&1 | grep -E "^  cr  |^ran: +cl:cr|rror|^clparity"
  done
done > "$O/cr_bits.txt" 2>&1
