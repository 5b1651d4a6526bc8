#!/usr/bin/env bash
# 2026-11-30 (session c), third GPU call (H200): cl:cr's certificate from the bits (no
# conversions) and gemm/tiles' sums of squares spread over the work-items, against main's
# kernels (old), each change alone (newcert, newsq) and both (new), cl:own beside each (dec.py);
# registers (nvregs); bits against host:cr with the new kernels (compare --expect cr).
#   kernels: build-gpu/kv/{old,new,newcert,newsq} (old: git archive 4c2e513 clkernels)
#   bash docs/results/2026-11-30c-gpu/run3.sh   (writes $OUT/run3/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/clparity build/
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c3
H=docs/results/2026-11-30c-gpu
O=${OUT:-/tmp/out}/run3
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; build/clparity --version; } > "$O/env.txt" 2>&1
for v in old new; do
  k=build-gpu/kv/$v
  for o in "-DCR_WG=64 -DCR_OB=4 -DCR_TK=16 -DCR_RM=2" "-DCR_WG=64 -DCR_OB=4 -DCR_TK=16 -DCR_RM=4" "-DCR_WG=32 -DCR_OB=1 -DCR_TK=16 -DCR_RM=2 -DCR_STREAM"; do
    echo "=== $v $o" >> "$O/regs.txt"
    build-gpu/nvregs $k/cr.cl "-cl-std=CL1.2 -I $k -DCR_VW=16 -DCR_RB=1 -DCR_F64 $o" 2>&1 \
      | grep -E "Compiling entry|spill|Used" >> "$O/regs.txt"
  done
done
K=build-gpu/kv
v() { for n in "$@"; do printf '%s=%s:%s ' "$n" "$K/$n" "${TUNE:--}"; done; }
D="python3 $H/dec.py $O/t.txt"
for r in 1 2; do
  $D 128 128 256 $(v old new newcert newsq)
  $D 128 128 2048 $(v old new newcert newsq)
  $D 128 128 1 $(v old new newcert)
done
$D 1024 128 1 $(v old new)
$D 512 8 64 $(v old new)
$D 4096 16 4096 $(v old new)
TUNE=path=tiles,rm=1,sg=4 $D 128 128 256 $(TUNE=path=tiles,rm=1,sg=4 v old new)
TUNE=path=gemm,rm=1 $D 128 128 2048 $(TUNE=path=gemm,rm=1 v new)
TUNE=path=tiles $D 128 128 512 $(TUNE=path=tiles v new)
$D 128 128 512 $(v new)
{
export CLPARITY_KERNEL_DIR=$PWD/build-gpu/kv/new
for tune in - path=gemm,rm=1 path=gemm,rm=4 path=tiles path=gemv path=splitk,split=3 path=gemm,ftz=1 path=stream,ftz=1; do
 for shape in "128 128 1" "77 5 13" "100 4 200" "1025 2 67" "64 3 300" "1 3 5"; do
  set -- $shape
  echo "### CLPARITY_CR_TUNE=$tune d=$1 L=$2 B=$3"
  env $( [ "$tune" != - ] && echo CLPARITY_CR_TUNE=$tune ) timeout 60 build/clparity compare -d NVIDIA -d host --engines cl:cr,host:cr \
      --expect cr --runs 1 --warmup 0 --d-model $1 --layers $2 --batch $3 2>&1 | grep -E "^  cr  |^ran: +cl:cr|rror|^clparity"
 done
done
echo "### planted: corrupt-cl-cr must fail"
CLPARITY_TEST_HOOK=corrupt-cl-cr CLPARITY_CR_TUNE=path=gemm timeout 60 build/clparity compare -d NVIDIA -d host \
   --engines cl:cr,host:cr --expect cr --runs 1 --warmup 0 --batch 100 2>&1 | grep -E "^  cr  |rror"
} > "$O/bits.txt" 2>&1
cat "$O/regs.txt" "$O/t.txt"; grep -c "  cr  *PASS" "$O/bits.txt"; grep -E "FAIL|rror" "$O/bits.txt"
