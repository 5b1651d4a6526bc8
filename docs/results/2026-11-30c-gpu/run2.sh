#!/usr/bin/env bash
# 2026-11-30 (session c), second GPU call (H200): cl:cr's team rewritten (one work-group, the
# row kept in local memory at B=1, the next layer's weights, norms and bias loaded ahead, the
# bound's depth, Sum2 by the certifier) against stream, cl:own beside each (dec.py); its
# registers (nvregs); its bits against host:cr (compare --expect cr), planted error too.
#   cp -r clkernels build-gpu/kv/new; bash docs/results/2026-11-30c-gpu/run2.sh   (writes $OUT/run2/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/clparity build/
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c2
H=docs/results/2026-11-30c-gpu
O=${OUT:-/tmp/out}/run2
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; build/clparity --version; } > "$O/env.txt" 2>&1
k=build-gpu/kv/new
for s in 4 8 16; do
  echo "=== team split=$s" >> "$O/regs.txt"
  build-gpu/nvregs $k/cr.cl "-cl-std=CL1.2 -I $k -DCR_WG=1024 -DCR_OB=4 -DCR_TK=16 -DCR_VW=16 -DCR_RB=1 -DCR_F64 -DCR_TEAM -DCR_TPO=$s -DCR_PF=$((128 / s))" 2>&1 \
    | grep -E "ptxas|spill|Used|cr_team" | grep -B1 -A2 cr_team >> "$O/regs.txt"
done
D=$H/dec.py
t() { for s in "$@"; do printf 'team%s=-:path=team,split=%s ' "$s" "$s"; done; }
for r in 1 2; do
  python3 $D "$O/t.txt" 128 128 1 stream=-:- $(t 2 4 8 16)
done
python3 $D "$O/t.txt" 128 128 2 stream=-:- $(t 4 8)
python3 $D "$O/t.txt" 128 128 4 stream=-:- $(t 4 8)
python3 $D "$O/t.txt" 64 128 1 stream=-:- $(t 4 8)
python3 $D "$O/t.txt" 128 32 1 stream=-:- $(t 4 8)
python3 $D "$O/t.txt" 256 64 1 stream=-:- $(t 4 8)
python3 $D "$O/t.txt" 128 3840 1 stream=-:- $(t 8)
{
for tune in path=team,split=8 path=team,split=4 path=team,split=16 path=team,split=3; do
 for shape in "128 128 1" "77 5 1" "77 5 13" "1025 2 1" "200 6 1" "1 3 1"; do
  set -- $shape
  echo "### CLPARITY_CR_TUNE=$tune d=$1 L=$2 B=$3"
  CLPARITY_CR_TUNE=$tune timeout 60 build/clparity compare -d NVIDIA -d host --engines cl:cr,host:cr \
      --expect cr --runs 1 --warmup 0 --d-model $1 --layers $2 --batch $3 2>&1 | grep -E "^  cr  |^ran: +cl:cr|rror|^clparity"
 done
done
echo "### planted: corrupt-cl-cr with team must fail"
CLPARITY_TEST_HOOK=corrupt-cl-cr CLPARITY_CR_TUNE=path=team,split=8 timeout 60 build/clparity compare -d NVIDIA -d host \
   --engines cl:cr,host:cr --expect cr --runs 1 --warmup 0 2>&1 | grep -E "^  cr  |rror"; echo "exit $?"
} > "$O/bits.txt" 2>&1
cat "$O/regs.txt" "$O/t.txt" "$O/bits.txt"
