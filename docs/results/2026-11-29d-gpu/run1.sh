#!/usr/bin/env bash
# 2026-11-29 (fourth session), first GPU call (H200): issue 34's rows 1-3 with cl:cr's two
# kernel changes, side by side with main 83c9ade's kernels (oldk/, through CLPARITY_KERNEL_DIR;
# same binary): cr_gemm_tile's operands fetched into registers a tile ahead (row 3), and
# cr_block_sums' po layout with the certificate's operands loaded before the sums (row 2, and
# row 1 at B=1). Then cl:cr's bits against host:cr with the new kernels.
#   bash docs/results/2026-11-29d-gpu/run1.sh          (writes $OUT/run1.tgz)
set -u
source .gpu/setup.sh
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 CLP=build-gpu/clparity XDG_CACHE_HOME=/tmp/c1
R=${OUT:-/tmp/out}
O=$R/run1
mkdir -p "$O"
pack() { tar czf "$R/run1.tgz" -C "$R" run1; }
trap pack EXIT
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; $CLP --version; } > "$O/env.txt" 2>&1
C="python3 docs/results/2026-11-29d-gpu/cfg.py"
# Row 2: the reference model, stream's layouts (wg 32 ob 1 po 0 is the default before)
for r in 1 2; do
  $C "$O/row2.txt" 128 128 1 old=- new=- \
     po32ob1=path=stream,po=32,ob=1,sg=1 po16ob2=path=stream,po=16,ob=2,sg=1 \
     po16ob4=path=stream,po=16,ob=4,sg=1 po16ob8=path=stream,po=16,ob=8,sg=1 \
     po8ob4=path=stream,po=8,ob=4,sg=1 po8ob8=path=stream,po=8,ob=8,sg=1 \
     po4ob8=path=stream,po=4,ob=8,sg=1 po32ob4=path=stream,po=32,ob=4,sg=1 \
     po32ob8=path=stream,po=32,ob=8,sg=1 po64ob2=path=stream,po=64,ob=2,sg=1
done
# Row 1: B=1 d=1024 (L=128) and d=4096 (L=32)
$C "$O/row1.txt" 1024 128 1 old=- new=- po32ob4=path=stream,po=32,ob=4 po64ob2=path=stream,po=64,ob=2 \
   po16ob8=path=stream,po=16,ob=8 po32ob8=path=stream,po=32,ob=8 po64ob4=path=stream,po=64,ob=4
$C "$O/row1.txt" 4096 32 1 old=- new=- po64ob2=path=stream,po=64,ob=2 po32ob8=path=stream,po=32,ob=8 \
   po64ob4=path=stream,po=64,ob=4
# Row 3: gemm, the fetch a tile ahead, against the old kernels; tk and tiles
for r in 1 2; do
  $C "$O/row3.txt" 128 128 256 old=- new=- tk64=path=gemm,tk=64 tk128=path=gemm,tk=128 \
     rm1tk64=path=gemm,rm=1,tk=64 tiles64=path=tiles,tk=64,sg=2 tiles128=path=tiles,tk=128,sg=2
  $C "$O/row3.txt" 128 128 2048 old=- new=- tk32=path=gemm,tk=32 tk64=path=gemm,tk=64 \
     rm4=path=gemm,rm=4 tiles64=path=tiles,tk=64,sg=2
done
MINTIME=0.5 $C "$O/row3.txt" 4096 16 4096 old=- new=- tk32=path=gemm,tk=32 rm8=path=gemm,rm=8 \
   tk8=path=gemm,tk=8 old=- new=-
# Bits: cl:cr against host:cr with the new kernels
for spec in "77 5 13 -" "129 4 1 path=stream,po=16,ob=4" "129 4 1 path=stream,po=1,ob=8" \
            "1025 3 1 path=stream,po=64,ob=2" "130 3 300 -" "130 3 300 path=gemm,tk=128" \
            "1025 2 67 path=gemm,rm=4" "301 3 70 path=tiles,tk=64" "200 2 33 path=gemv,po=8,ob=4" \
            "333 2 5 path=splitk,po=4,ob=4,split=3"; do
  set -- $spec
  t=$4; [ "$t" = - ] && t=""
  echo "== d=$1 L=$2 B=$3 tune=$4" >> "$O/bits.txt"
  CLPARITY_CR_TUNE=$t timeout 120 $CLP compare -d NVIDIA -d host --engines cl:cr,host:cr --expect cr \
     --d-model $1 --layers $2 --batch $3 --runs 1 2>&1 | grep -E "^  cr |rror|builds: cl:cr" >> "$O/bits.txt"
done
