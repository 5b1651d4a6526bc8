#!/usr/bin/env bash
# 2026-11-30 (session d), first GPU call (H200): the float32-only method in gemm's tiles (new
# variants f32-gemm, a launch per layer, and f32-tiles, every layer in one launch), forced with
# method=f32: registers (nvregs), time against f32 (gemv's layout, the rule past B=4) and
# f32-stream side by side (dec.py), and bits against host:cr (compare --expect cr), planted too.
#   bash docs/results/2026-11-30d-gpu/run1.sh   (writes $OUT/run1/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/clparity build/
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c1
D=docs/results/2026-11-30c-gpu
O=${OUT:-/tmp/out}/run1
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; build/clparity --version; } > "$O/env.txt" 2>&1
for o in "-DCR_RM=1 -DCR_STREAM" "-DCR_RM=2 -DCR_STREAM" "-DCR_RM=4 -DCR_STREAM" "-DCR_RM=2" "-DCR_RM=4"; do
  echo "=== $o" >> "$O/regs.txt"
  build-gpu/nvregs clkernels/cr_f32.cl "-cl-std=CL1.2 -I clkernels -DCR_WG=64 -DCR_OB=4 -DCR_TK=16 -DCR_VW=16 -DCR_RB=1 $o" 2>&1 \
    | grep -E "Compiling entry|spill|Used" | grep -A2 -E "cr_f32_gemm'|cr_f32_tiles'" | grep -v "^--" >> "$O/regs.txt"
done
F=method=f32
python3 $D/dec.py "$O/t.txt" 128 128 2048 f32=-:$F,path=gemv t1s16=-:$F,path=tiles,rm=1,sg=16 t2s8=-:$F,path=tiles,rm=2,sg=8 \
  t2s4=-:$F,path=tiles,rm=2,sg=4 t4s4=-:$F,path=tiles,rm=4,sg=4 t4s2=-:$F,path=tiles,rm=4,sg=2 t2s8k32=-:$F,path=tiles,rm=2,sg=8,tk=32 \
  g2=-:$F,path=gemm,rm=2 g4=-:$F,path=gemm,rm=4 dbl=-:-
python3 $D/dec.py "$O/t.txt" 128 128 256 f32=-:$F,path=gemv t1s4=-:$F,path=tiles,rm=1,sg=4 t1s8=-:$F,path=tiles,rm=1,sg=8 t2s4=-:$F,path=tiles,rm=2,sg=4 g2=-:$F,path=gemm,rm=2
python3 $D/dec.py "$O/t.txt" 128 128 16 f32=-:$F,path=gemv st=-:$F,path=stream t1s4=-:$F,path=tiles,rm=1,sg=4 t1s8=-:$F,path=tiles,rm=1,sg=8
python3 $D/dec.py "$O/t.txt" 512 8 64 f32=-:$F,path=gemv t1s4=-:$F,path=tiles,rm=1,sg=4 t2s4=-:$F,path=tiles,rm=2,sg=4 g1=-:$F,path=gemm,rm=1 g2=-:$F,path=gemm,rm=2 g4=-:$F,path=gemm,rm=4
python3 $D/dec.py "$O/t.txt" 1024 16 64 f32=-:$F,path=gemv t2s4=-:$F,path=tiles,rm=2,sg=4 g1=-:$F,path=gemm,rm=1 g2=-:$F,path=gemm,rm=2 g4=-:$F,path=gemm,rm=4
python3 $D/dec.py "$O/t.txt" 1024 16 1024 f32=-:$F,path=gemv g2=-:$F,path=gemm,rm=2 g4=-:$F,path=gemm,rm=4 t4s4=-:$F,path=tiles,rm=4,sg=4
python3 $D/dec.py "$O/t.txt" 1024 32 8 f32=-:$F,path=gemv g1=-:$F,path=gemm,rm=1 t1s4=-:$F,path=tiles,rm=1,sg=4
python3 $D/dec.py "$O/t.txt" 4096 8 1024 f32=-:$F,path=gemv g4=-:$F,path=gemm,rm=4 g2=-:$F,path=gemm,rm=2
{
for tune in "$F,path=tiles" "$F,path=gemm" "$F,path=tiles,rm=1,sg=4" "$F,path=tiles,rm=4,tk=8" "$F,path=gemm,rm=1,ftz=1" "$F,path=tiles,ftz=1"; do
for shape in "128 8 256" "100 4 700" "77 5 13" "1025 2 67" "128 3 1" "1 3 70" "33 2 2048"; do
  set -- $shape
  echo "### CLPARITY_CR_TUNE=$tune d=$1 L=$2 B=$3"
  CLPARITY_CR_TUNE=$tune timeout 60 build/clparity compare -d NVIDIA -d host --engines cl:cr,host:cr \
      --expect cr --runs 1 --warmup 0 --d-model $1 --layers $2 --batch $3 2>&1 | grep -E "^  cr  |^ran: +cl:cr|rror"
done
done
echo "### planted: corrupt-cl-cr must fail"
for tune in "$F,path=tiles" "$F,path=gemm"; do
CLPARITY_CR_TUNE=$tune CLPARITY_TEST_HOOK=corrupt-cl-cr timeout 60 build/clparity compare -d NVIDIA -d host \
   --engines cl:cr,host:cr --expect cr --runs 1 --warmup 0 --batch 100 --d-model 64 --layers 3 2>&1 | grep -E "^  cr  |^ran: +cl:cr|rror"
done
} > "$O/bits.txt" 2>&1
cut -c1-175 "$O/t.txt"; cat "$O/regs.txt"; grep -c "  cr  *PASS" "$O/bits.txt"; grep -E "FAIL|rror" "$O/bits.txt" | sort | uniq -c | cut -c1-200
