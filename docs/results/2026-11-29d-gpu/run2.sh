#!/usr/bin/env bash
# 2026-11-29 (fourth session), second GPU call (H200): issue 34's rows 1-3 after run1, with the
# gemm tile's certificate operands loaded ahead, the failed-output rounds skipped where a tile
# has none, and cr_block_sums' last loads issued together; against main 83c9ade's kernels
# (oldk/). Registers and spills of the kernels (nvregs, -cl-nv-verbose), old and new.
#   bash docs/results/2026-11-29d-gpu/run2.sh          (writes $OUT/run2.tgz)
set -u
source .gpu/setup.sh
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 CLP=build-gpu/clparity XDG_CACHE_HOME=/tmp/c2
R=${OUT:-/tmp/out}
O=$R/run2
mkdir -p "$O"
pack() { tar czf "$R/run2.tgz" -C "$R" run2; }
trap pack EXIT
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; $CLP --version; } > "$O/env.txt" 2>&1
for k in oldk clkernels; do
  for o in "-DCR_WG=64 -DCR_OB=4 -DCR_TK=16 -DCR_RM=2" "-DCR_WG=64 -DCR_OB=4 -DCR_TK=16 -DCR_RM=4" \
           "-DCR_WG=64 -DCR_OB=4 -DCR_TK=64 -DCR_RM=2" "-DCR_WG=32 -DCR_OB=1 -DCR_TK=16 -DCR_RM=4 -DCR_STREAM" \
           "-DCR_WG=128 -DCR_OB=4 -DCR_TK=16 -DCR_RM=4 -DCR_STREAM"; do
    echo "=== $k $o" >> "$O/regs.txt"
    build-gpu/nvregs $k/cr.cl "-cl-std=CL1.2 -I $k -DCR_VW=16 -DCR_RB=1 -DCR_F64 $o" 2>&1 \
      | grep -vE "^\s*$" | grep -E "ptxas|kernel |build|Function properties|spill|Used" >> "$O/regs.txt"
  done
done
C="python3 docs/results/2026-11-29d-gpu/cfg.py"
for r in 1 2; do
  $C "$O/row2.txt" 128 128 1 old=- new=- po32ob1=path=stream,po=32,ob=1,sg=1 po16ob2=path=stream,po=16,ob=2,sg=1 \
     po8ob2=path=stream,po=8,ob=2,sg=1
  $C "$O/row3.txt" 128 128 256 old=- new=- tk64=path=gemm,tk=64 rm1tk64=path=gemm,rm=1,tk=64 \
     tiles64=path=tiles,tk=64,sg=2 tiles32=path=tiles,tk=32,sg=1 tiles16=path=tiles,sg=2
  $C "$O/row3.txt" 128 128 2048 old=- new=- tk32=path=gemm,tk=32 tiles16=path=tiles,sg=2
done
$C "$O/row1.txt" 1024 128 1 old=- new=-
MINTIME=0.5 $C "$O/row3.txt" 4096 16 4096 old=- new=- tk8=path=gemm,tk=8 new=-
for spec in "77 5 13 -" "129 4 1 path=stream,po=8,ob=2" "130 3 300 -" "130 3 300 path=tiles,tk=32" \
            "1025 2 67 path=gemm,rm=4" "301 3 70 path=tiles,tk=64" "200 2 33 path=gemv,ob=4"; do
  set -- $spec
  t=$4; [ "$t" = - ] && t=""
  echo "== d=$1 L=$2 B=$3 tune=$4" >> "$O/bits.txt"
  CLPARITY_CR_TUNE=$t timeout 120 $CLP compare -d NVIDIA -d host --engines cl:cr,host:cr --expect cr \
     --d-model $1 --layers $2 --batch $3 --runs 1 2>&1 | grep -E "^  cr |rror" >> "$O/bits.txt"
done
