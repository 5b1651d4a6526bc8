#!/usr/bin/env bash
# 2026-11-30 (session d), third GPU call (H200): where f32-gemm's time goes, by timing-only cuts
# of cr_f32.cl (outputs wrong; CLPARITY_OWN_PROBE=off through dec.py): nofb (an output whose
# certificate fails is not summed exactly: no cr_dot), nomu (the running bound's two additions
# a term replaced by one fma of |x|·|w|), nol (no error sums: only the q's into l), fma1 (each
# term one fma into h: cl:own's arithmetic in f32-gemm's skeleton); then tools/bench --cr's row 4
# with this binary (f32-gemm the rule at B=2048).
#   bash docs/results/2026-11-30d-gpu/run3.sh   (writes $OUT/run3/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/clparity build/
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c3
D=docs/results/2026-11-30c-gpu
O=${OUT:-/tmp/out}/run3
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nproc; build/clparity --version; } > "$O/env.txt" 2>&1
K=build-gpu/kv
for rm in 1 2; do
  F=method=f32,path=gemm,rm=$rm
  python3 $D/dec.py "$O/t.txt" 128 128 2048 base$rm=$K/base:$F nofb$rm=$K/nofb:$F nomu$rm=$K/nomu:$F nol$rm=$K/nol:$F fma1$rm=$K/fma1:$F
done
python3 $D/dec.py "$O/t.txt" 512 16 2048 base2=$K/base:method=f32,path=gemm,rm=2 nofb2=$K/nofb:method=f32,path=gemm,rm=2 nomu2=$K/nomu:method=f32,path=gemm,rm=2 fma1_2=$K/fma1:method=f32,path=gemm,rm=2
timeout 300 python3 tools/bench --cr --gpu NVIDIA --only 4 --rounds 1 --cr-min-time 0.2 \
    --cr-json "$O/bench_cr_gpu.json" > "$O/bench_cr_gpu.txt" 2>&1
echo "rc=$?" >> "$O/bench_cr_gpu.txt"
cut -c1-175 "$O/t.txt"; tail -20 "$O/bench_cr_gpu.txt"
