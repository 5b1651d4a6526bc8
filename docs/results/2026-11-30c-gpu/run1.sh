#!/usr/bin/env bash
# 2026-11-30 (session c), first GPU call (H200): where a layer's time goes in cl:cr's stream
# (reference model), tiles (d=128 B=256) and gemm (d=128 B=2048): timing-only cuts of the
# kernels (mkvar.py; their outputs are wrong), cl:own beside each (dec.py).
#   python3 docs/results/2026-11-30c-gpu/mkvar.py clkernels build-gpu/kv; cp -r clkernels build-gpu/kv/base
#   bash docs/results/2026-11-30c-gpu/run1.sh          (writes $OUT/run1/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/clparity build/
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c1
H=docs/results/2026-11-30c-gpu
O=${OUT:-/tmp/out}/run1
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; build/clparity --version; } > "$O/env.txt" 2>&1
K=build-gpu/kv
v() { for n in "$@"; do printf '%s=%s:%s ' "$n" "$K/${n%%@*}" "${TUNE:--}"; done; }
python3 $H/dec.py "$O/dec.txt" 128 128 1 $(v base nobar nocert nosqrt notree novol nopf nobar_cert_tree nocert_tree base)
TUNE=method=f32 python3 $H/dec.py "$O/dec.txt" 128 128 1 $(TUNE=method=f32 v base nobar novol nopf)
python3 $H/dec.py "$O/dec.txt" 1024 128 1 $(v base nobar nocert notree nopf)
python3 $H/dec.py "$O/dec.txt" 128 128 256 $(v base nobar nocert nosqrt nosq novol base)
python3 $H/dec.py "$O/dec.txt" 128 128 2048 $(v base nocert nosqrt nosq base)
python3 $H/dec.py "$O/dec.txt" 128 128 2048 base_tiles=$K/base:path=tiles nocert_tiles=$K/nocert:path=tiles
cat "$O/dec.txt"
