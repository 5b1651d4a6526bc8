#!/usr/bin/env bash
# 2026-11-30 (session d), second GPU call (H200): f32-gemm with the rows' smallest keys of x
# taken from the loads of the tiles (hoist) against run1's kernels (base: a key per x read in
# the terms' loop), side by side (dec.py, CLPARITY_KERNEL_DIR); where f32-gemm overtakes f32
# (gemv's layout) at d=64..256 and B=256..2048; registers; bits (compare --expect cr).
#   bash docs/results/2026-11-30d-gpu/run2.sh   (writes $OUT/run2/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/clparity build/
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c2
D=docs/results/2026-11-30c-gpu
O=${OUT:-/tmp/out}/run2
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; build/clparity --version; } > "$O/env.txt" 2>&1
K=build-gpu/kv
for o in "-DCR_RM=1" "-DCR_RM=2" "-DCR_RM=2 -DCR_STREAM"; do
  echo "=== hoist $o" >> "$O/regs.txt"
  build-gpu/nvregs $K/hoist/cr_f32.cl "-cl-std=CL1.2 -I $K/hoist -DCR_WG=64 -DCR_OB=4 -DCR_TK=16 -DCR_VW=16 -DCR_RB=1 $o" 2>&1 \
    | grep -E "Compiling entry|spill|Used" | grep -A2 -E "cr_f32_gemm'|cr_f32_tiles'" | grep -v "^--" >> "$O/regs.txt"
done
F=method=f32
python3 $D/dec.py "$O/t.txt" 128 128 2048 base=$K/base:$F,path=gemm,rm=2 hoist=$K/hoist:$F,path=gemm,rm=2 \
  base1=$K/base:$F,path=gemm,rm=1 hoist1=$K/hoist:$F,path=gemm,rm=1 hk8=$K/hoist:$F,path=gemm,rm=2,tk=8 hk32=$K/hoist:$F,path=gemm,rm=2,tk=32 \
  htiles=$K/hoist:$F,path=tiles,rm=2,sg=8 hoist_again=$K/hoist:$F,path=gemm,rm=2 base_again=$K/base:$F,path=gemm,rm=2
for s in "128 128 512" "128 128 1024" "64 128 2048" "64 128 512" "256 64 2048" "256 64 512" "512 16 2048"; do
  python3 $D/dec.py "$O/t.txt" $s f32=$K/hoist:$F,path=gemv g1=$K/hoist:$F,path=gemm,rm=1 g2=$K/hoist:$F,path=gemm,rm=2
done
{
export CLPARITY_KERNEL_DIR=$PWD/$K/hoist
for tune in "$F,path=gemm" "$F,path=tiles,sg=1" "$F,path=tiles,rm=1,sg=2" "$F,path=gemm,rm=4,tk=8,ftz=1"; do
for shape in "128 8 256" "100 4 700" "77 5 13" "1025 2 67" "1 3 70" "33 2 2048"; do
  set -- $shape
  echo "### CLPARITY_CR_TUNE=$tune d=$1 L=$2 B=$3"
  CLPARITY_CR_TUNE=$tune timeout 60 build/clparity compare -d NVIDIA -d host --engines cl:cr,host:cr \
      --expect cr --runs 1 --warmup 0 --d-model $1 --layers $2 --batch $3 2>&1 | grep -E "^  cr  |^ran: +cl:cr|rror"
done
done
echo "### planted: corrupt-cl-cr must fail"
CLPARITY_CR_TUNE=$F,path=gemm CLPARITY_TEST_HOOK=corrupt-cl-cr timeout 60 build/clparity compare -d NVIDIA -d host \
   --engines cl:cr,host:cr --expect cr --runs 1 --warmup 0 --batch 100 --d-model 64 --layers 3 2>&1 | grep -E "^  cr  |^ran: +cl:cr|rror"
} > "$O/bits.txt" 2>&1
cut -c1-175 "$O/t.txt"; cat "$O/regs.txt"; grep -c "  cr  *PASS" "$O/bits.txt"; grep -E "FAIL|rror" "$O/bits.txt" | sort | uniq -c | cut -c1-200
