#!/usr/bin/env bash
# 2026-11-30, ninth GPU call (H200): the committed f32-stream (cr.cl's stream kernel built as
# cr_f32_stream, 0a3f855) against host:cr and timed, as run3 did for its first form.
#   bash docs/results/2026-11-30-gpu/run9.sh          (writes $OUT/run9/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/* build/
export XDG_CACHE_HOME=/tmp/c9
R=${OUT:-/tmp/out}
O=$R/run9
mkdir -p "$O"
{
build/clparity --version
for shape in "--d-model 128 --layers 128 --batch 1" "--d-model 77 --layers 5 --batch 3" "--d-model 1025 --layers 3 --batch 1"; do
  echo "### CLPARITY_CR_TUNE=method=f32 $shape"
  CLPARITY_CR_TUNE=method=f32 timeout 60 build/clparity compare -d NVIDIA -d host --engines cl:cr,host:cr \
      --expect cr --runs 1 --warmup 0 $shape 2>&1 | grep -E "^  cr  |^ran: +cl:cr|rror|^clparity"
done
} > "$O/bits.txt" 2>&1
timeout 60 python3 docs/results/2026-11-29d-gpu/cfg.py "$O/f32.txt" 128 128 1 f32stream=method=f32 f32gemv=method=f32,path=gemv
timeout 60 python3 docs/results/2026-11-29d-gpu/cfg.py "$O/f32.txt" 1024 128 1 f32stream=method=f32
