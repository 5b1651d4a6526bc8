#!/usr/bin/env bash
# 2026-11-30, third GPU call (H200): the float32-only method in one launch (variant f32-stream,
# clkernels/cr_f32.cl's cr_f32_stream) against its launch per layer (f32, path=gemv) and the
# double method (stream), cl:own beside each (cfg.py); its settings; its bits against host:cr.
#   bash docs/results/2026-11-30-gpu/run3.sh          (writes $OUT/run3.tgz)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/* build/
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c3
H=docs/results/2026-11-29d-gpu # its cfg.py
R=${OUT:-/tmp/out}
O=$R/run3
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; build/clparity --version; } > "$O/env.txt" 2>&1
for shape in "128 128 1" "1024 128 1" "64 128 1" "2048 64 1" "4096 32 1" "512 8 64"; do
  timeout 200 python3 $H/cfg.py "$O/f32.txt" $shape f32stream=method=f32 f32gemv=method=f32,path=gemv double=- f32stream2=method=f32
done
for shape in "128 128 1" "1024 128 1"; do
  timeout 200 python3 $H/cfg.py "$O/f32_tune.txt" $shape wg32=method=f32,wg=32 wg64=method=f32,wg=64 wg128=method=f32,wg=128 \
     ob1=method=f32,ob=1 ob2=method=f32,ob=2 ob4=method=f32,ob=4 sg1=method=f32,sg=1 sg2=method=f32,sg=2 sg4=method=f32,sg=4
done
{
for shape in "--d-model 64 --layers 128 --batch 1" "--d-model 4096 --layers 8 --batch 1" \
             "--d-model 77 --layers 5 --batch 13" "--d-model 1025 --layers 2 --batch 67" \
             "--d-model 100 --layers 4 --batch 64" "--d-model 1 --layers 3 --batch 1"; do
  echo "### CLPARITY_CR_TUNE=method=f32 $shape"
  CLPARITY_CR_TUNE=method=f32 timeout 60 build/clparity compare -d NVIDIA -d host --engines cl:cr,host:cr \
      --expect cr --runs 1 --warmup 0 $shape 2>&1 | grep -E "^  cr  |^ran: +cl:cr|rror|^clparity"
done
echo "### planted: corrupt-cl-cr with f32-stream must fail"
CLPARITY_TEST_HOOK=corrupt-cl-cr CLPARITY_CR_TUNE=method=f32 timeout 60 build/clparity compare -d NVIDIA -d host \
    --engines cl:cr,host:cr --expect cr --runs 1 --warmup 0 --d-model 128 --layers 8 --batch 1 2>&1 | grep -E "^  cr  |^ran: +cl:cr|rror" | head -4
} > "$O/f32_bits.txt" 2>&1
