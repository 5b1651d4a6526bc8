#!/usr/bin/env bash
# 2026-11-30 (session c), tenth GPU call (H200): the fallback functions (cr_dot2, cr_dot,
# cr_group_dot) marked __attribute__((noinline)) (kernels noinl: a copy of 9009771's with the three
# attributes), against the kernels as they are (base) and the cut nofb (run9); registers (nvregs).
#   bash docs/results/2026-11-30c-gpu/run10.sh   (writes $OUT/run10/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/clparity build/
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c10
H=docs/results/2026-11-30c-gpu
O=${OUT:-/tmp/out}/run10
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; build/clparity --version; } > "$O/env.txt" 2>&1
k=build-gpu/kv/noinl
for o in "-DCR_WG=64 -DCR_OB=4 -DCR_RM=4" "-DCR_WG=32 -DCR_OB=1 -DCR_RM=1 -DCR_STREAM" "-DCR_WG=32 -DCR_OB=1 -DCR_RM=2 -DCR_STREAM"; do
  echo "=== noinl $o" >> "$O/regs.txt"
  build-gpu/nvregs $k/cr.cl "-cl-std=CL1.2 -I $k -DCR_TK=16 -DCR_VW=16 -DCR_RB=1 -DCR_F64 $o" 2>&1 \
    | grep -E "Compiling entry|spill|Used" | grep -A2 -E "cr_gemm'|cr_tiles'|cr_stream'" | grep -v "^--" >> "$O/regs.txt"
done
K=build-gpu/kv
for s in "128 128 256" "128 128 2048" "128 128 1" "1024 16 1024"; do
  python3 $H/dec.py "$O/t.txt" $s base=$K/base:- noinl=$K/noinl:-
done
{
export CLPARITY_KERNEL_DIR=$PWD/$k
for shape in "128 8 256" "100 4 700" "77 5 13" "1025 2 67" "128 3 1"; do
  set -- $shape
  echo "### d=$1 L=$2 B=$3"
  timeout 60 build/clparity compare -d NVIDIA -d host --engines cl:cr,host:cr \
      --expect cr --runs 1 --warmup 0 --d-model $1 --layers $2 --batch $3 2>&1 | grep -E "^  cr  |^ran: +cl:cr|rror"
done
} > "$O/bits.txt" 2>&1
cat "$O/regs.txt"; cut -c1-150 "$O/t.txt"; grep -c "  cr  *PASS" "$O/bits.txt"
