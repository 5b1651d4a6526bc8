#!/usr/bin/env bash
# 2026-11-30 (session d), sixth GPU call (H200): the committed binary (main 56832d7: run5's
# kernels, the counts written from the host instead of filled): time at the rule's points
# against f32 (dec.py), registers, bits against host:cr (also with test hook
# corrupt-cl-cr:fallback), planted; then tools/bench --cr's row 4.
#   bash docs/results/2026-11-30d-gpu/run6.sh   (writes $OUT/run6/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/clparity build/
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c6
D=docs/results/2026-11-30c-gpu
O=${OUT:-/tmp/out}/run6
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; build/clparity --version; } > "$O/env.txt" 2>&1
for o in "-DCR_RM=1" "-DCR_RM=2"; do
  echo "=== $o" >> "$O/regs.txt"
  build-gpu/nvregs clkernels/cr_f32.cl "-cl-std=CL1.2 -I clkernels -DCR_WG=64 -DCR_OB=4 -DCR_TK=16 -DCR_VW=16 -DCR_RB=1 $o" 2>&1 \
    | grep -E "Compiling entry|spill|Used" | grep -A2 -E "cr_f32_gemm'|cr_f32_fix'" | grep -v "^--" >> "$O/regs.txt"
done
F=method=f32
python3 $D/dec.py "$O/t.txt" 128 128 2048 rule=-:$F g1=-:$F,path=gemm,rm=1 g2=-:$F,path=gemm,rm=2 tiles=-:$F,path=tiles,rm=2,sg=8 rule_again=-:$F
for s in "128 128 512" "256 64 512" "1024 16 1024"; do
  python3 $D/dec.py "$O/t.txt" $s f32=-:$F,path=gemv g1=-:$F,path=gemm,rm=1 g2=-:$F,path=gemm,rm=2
done
{
for tune in "$F" "$F,path=gemm" "$F,path=gemm,rm=2,tk=8,ftz=1"; do
for hook in - corrupt-cl-cr:fallback; do
for shape in "128 8 300" "100 4 700" "77 5 13" "1025 2 67" "1 3 270" "33 2 2048"; do
  set -- $shape
  echo "### CLPARITY_CR_TUNE=$tune hook=$hook d=$1 L=$2 B=$3"
  env $( [ "$hook" != - ] && echo CLPARITY_TEST_HOOK=$hook ) CLPARITY_CR_TUNE=$tune timeout 60 build/clparity compare -d NVIDIA -d host --engines cl:cr,host:cr \
      --expect cr --runs 1 --warmup 0 --d-model $1 --layers $2 --batch $3 2>&1 | grep -E "^  cr  |^ran: +cl:cr|rror"
done
done
done
for shape in "128 8 300" "77 5 13" "1025 2 67" "64 3 1"; do
  set -- $shape
  echo "### double method (default) d=$1 L=$2 B=$3"
  timeout 60 build/clparity compare -d NVIDIA -d host --engines cl:cr,host:cr \
      --expect cr --runs 1 --warmup 0 --d-model $1 --layers $2 --batch $3 2>&1 | grep -E "^  cr  |^ran: +cl:cr|rror"
done
echo "### planted: corrupt-cl-cr must fail"
for hook in corrupt-cl-cr corrupt-cl-cr:fallback+plant; do
CLPARITY_CR_TUNE=$F CLPARITY_TEST_HOOK=$hook timeout 60 build/clparity compare -d NVIDIA -d host \
   --engines cl:cr,host:cr --expect cr --runs 1 --warmup 0 --batch 300 --d-model 64 --layers 3 2>&1 | grep -E "^  cr  |^ran: +cl:cr|rror"
done
} > "$O/bits.txt" 2>&1
timeout 200 python3 tools/bench --cr --gpu NVIDIA --only 4 --rounds 1 --cr-min-time 0.2 \
    --cr-json "$O/bench_cr_gpu.json" > "$O/bench_cr_gpu.txt" 2>&1
echo "rc=$?" >> "$O/bench_cr_gpu.txt"
cut -c1-175 "$O/t.txt"; cat "$O/regs.txt"; grep -c "  cr  *PASS" "$O/bits.txt"; grep -E "FAIL|rror" "$O/bits.txt" | sort | uniq -c | cut -c1-200; tail -12 "$O/bench_cr_gpu.txt"
