#!/usr/bin/env bash
# 2026-12-01 (third session), sixth GPU call (H200): issue 34 row 4b (the float32-only method
# forced, d=128 L=128 B=2048, f32-gemm): what the second launch a layer (cr_f32_fix, the exact
# sums of the listed outputs) costs. build-gpu/k_nofix: cr_f32_fix returns at once (timing only:
# outputs wrong where a certificate failed). dec.py, two rounds alternating.
#   bash docs/results/2026-12-01c-gpu/run6.sh          (writes $OUT/run6/)
set -u
source .gpu/setup.sh
export XDG_CACHE_HOME=/tmp/c6 PYTHONUNBUFFERED=1
mkdir -p build && cp build-gpu/clparity_main build/clparity
R=${OUT:-/tmp/out}
O=$R/run6
mkdir -p "$O"
for r in 1 2; do
  for sh in "128 128 2048" "128 128 1024" "512 16 2048"; do
    set -- $sh
    python3 build-gpu/dec.py "$O/dec.txt" $1 $2 $3 f32gemm=-:method=f32 nofix=build-gpu/k_nofix:method=f32 \
        f32gemm_rm2=-:method=f32,rm=2 nofix_rm2=build-gpu/k_nofix:method=f32,rm=2
  done
done
cat "$O/dec.txt"
