#!/usr/bin/env bash
# 2026-11-30 (session c), ninth GPU call (H200): what the fallback code costs where it never runs:
# mkvar.py's cut nofb (the second certificate's and the exact sum's code dropped, every
# certificate still computed; outputs wrong only where a certificate fails) against the same
# kernels whole (base), main 9009771's binary and rules; registers of each (nvregs).
#   python3 docs/results/2026-11-30c-gpu/mkvar.py clkernels build-gpu/kv; cp -r clkernels build-gpu/kv/base
#   bash docs/results/2026-11-30c-gpu/run9.sh   (writes $OUT/run9/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/clparity build/
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c9
H=docs/results/2026-11-30c-gpu
O=${OUT:-/tmp/out}/run9
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; build/clparity --version; } > "$O/env.txt" 2>&1
for v in base nofb; do
  k=build-gpu/kv/$v
  for o in "-DCR_WG=64 -DCR_OB=4 -DCR_RM=2" "-DCR_WG=64 -DCR_OB=4 -DCR_RM=4" "-DCR_WG=32 -DCR_OB=1 -DCR_RM=1 -DCR_STREAM" "-DCR_WG=32 -DCR_OB=1 -DCR_RM=2 -DCR_STREAM"; do
    echo "=== $v $o" >> "$O/regs.txt"
    build-gpu/nvregs $k/cr.cl "-cl-std=CL1.2 -I $k -DCR_TK=16 -DCR_VW=16 -DCR_RB=1 -DCR_F64 $o" 2>&1 \
      | grep -E "Compiling entry|spill|Used" | grep -A2 -E "cr_gemm'|cr_tiles'|cr_stream'" | grep -v "^--" >> "$O/regs.txt"
  done
done
K=build-gpu/kv
for r in 1 2; do
  for s in "128 128 256" "128 128 2048" "128 128 1" "1024 16 1024"; do
    python3 $H/dec.py "$O/t.txt" $s base=$K/base:- nofb=$K/nofb:-
  done
done
cat "$O/regs.txt"; cut -c1-150 "$O/t.txt"
