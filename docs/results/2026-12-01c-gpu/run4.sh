#!/usr/bin/env bash
# 2026-12-01 (third session), fourth GPU call (H200): issue 34 row 2, a second timing variant
# of `team` (build-gpu/k_tf2/cr_team.cl: rows outer and layers inner, the row and the layer table
# in local memory, up to 4 outputs a work-item with their chains interleaved, weights read in the
# chain, no exact sum), with split 2, 4, 8, against the rule's stream (dec.py), its bits against
# host:cr (compare --expect cr), and registers and work-group limits (nvregs).
#   bash docs/results/2026-12-01c-gpu/run4.sh          (writes $OUT/run4/)
set -u
source .gpu/setup.sh
export XDG_CACHE_HOME=/tmp/c4 PYTHONUNBUFFERED=1
mkdir -p build && cp build-gpu/clparity_main build/clparity
R=${OUT:-/tmp/out}
O=$R/run4
mkdir -p "$O"
K=build-gpu/k_tf2
for wg in 256 512 1024; do
  for s in 2 4 8; do
    echo "### wg=$wg split=$s"
    build-gpu/nvregs $K/cr.cl "-cl-std=CL1.2 -I $K -DCR_WG=$wg -DCR_OB=4 -DCR_TK=16 -DCR_VW=16 -DCR_RB=1 -DCR_F64 -DCR_TEAM -DCR_TPO=$s -DCR_PF=16 -DCP_KERNELS -DCP_K_cr_team" 2>&1 \
      | grep -E "stack frame|Used|max wg" | tail -3
  done
done > "$O/regs.txt" 2>&1
for r in 1 2; do
  for sh in "128 128 1" "64 128 1" "128 32 1" "128 128 2"; do
    set -- $sh
    python3 build-gpu/dec.py "$O/dec.txt" $1 $2 $3 stream=-:- tf2_2=$K:path=team,split=2 \
        tf2_4=$K:path=team,split=4 tf2_8=$K:path=team,split=8
  done
done
for s in 2 4 8; do
  for sh in "128 128 1" "64 128 1" "100 7 3" "256 16 1"; do
    set -- $sh
    CLPARITY_OWN_PROBE=off CLPARITY_KERNEL_DIR=$K CLPARITY_CR_TUNE=path=team,split=$s timeout 60 \
      build/clparity compare -d NVIDIA -d host --engines cl:cr,host:cr --expect cr --runs 1 --warmup 0 \
      --d-model $1 --layers $2 --batch $3 > "$O/c.txt" 2>&1
    echo "split=$s d=$1 L=$2 B=$3 exit $? $(grep -E '^  cr  |rror' "$O/c.txt" | head -2 | tr '\n' ' ')"
  done
done > "$O/bits.txt" 2>&1
cat "$O/regs.txt" "$O/dec.txt" "$O/bits.txt"
