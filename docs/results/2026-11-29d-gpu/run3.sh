#!/usr/bin/env bash
# 2026-11-29 (fourth session), third GPU call (H200): the tighter bound (cr_sum_depth: gemm's
# tiles of k summed, stream's lanes and tree), against the bound of any order on the same kernels
# (CR_DEPTH_FULL=1, a test switch of this binary only) and against main 83c9ade (oldk/).
#   bash docs/results/2026-11-29d-gpu/run3.sh          (writes $OUT/run3.tgz)
set -u
source .gpu/setup.sh
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 CLP=build-gpu/clparity XDG_CACHE_HOME=/tmp/c3
R=${OUT:-/tmp/out}
O=$R/run3
mkdir -p "$O"
pack() { tar czf "$R/run3.tgz" -C "$R" run3; }
trap pack EXIT
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; $CLP --version; } > "$O/env.txt" 2>&1
C="python3 docs/results/2026-11-29d-gpu/cfg.py"
MINTIME=0.5 $C "$O/row3.txt" 4096 16 4096 old=- full=- new=- tk32=path=gemm,tk=32 tk64=path=gemm,tk=64 new=-
for r in 1 2; do
  $C "$O/row2.txt" 128 128 1 old=- full=- new=-
  $C "$O/row3.txt" 128 128 256 old=- full=- new=- tiles32=path=tiles,tk=32,sg=1 tiles32full=path=tiles,tk=32,sg=1 \
     tiles64=path=tiles,tk=64,sg=1 tiles16=path=tiles,tk=16,sg=1
  $C "$O/row3.txt" 128 128 2048 old=- full=- new=- tk32=path=gemm,tk=32 tk64=path=gemm,tk=64
done
$C "$O/row1.txt" 1024 128 1 old=- full=- new=-
$C "$O/row1.txt" 2048 64 1 old=- new=-
$C "$O/row1.txt" 4096 32 1 old=- full=- new=-
for spec in "77 5 13 -" "129 4 1 -" "130 3 300 -" "130 3 300 path=tiles,tk=32,sg=1" \
            "1025 2 67 path=gemm,rm=4" "1025 2 67 path=gemm,rm=4,tk=64" "301 3 70 path=tiles,tk=64" \
            "200 2 33 path=gemv,ob=4" "2049 2 1 -"; do
  set -- $spec
  t=$4; [ "$t" = - ] && t=""
  echo "== d=$1 L=$2 B=$3 tune=$4" >> "$O/bits.txt"
  CLPARITY_CR_TUNE=$t timeout 120 $CLP compare -d NVIDIA -d host --engines cl:cr,host:cr --expect cr \
     --d-model $1 --layers $2 --batch $3 --runs 1 2>&1 | grep -E "^  cr |rror" >> "$O/bits.txt"
done
