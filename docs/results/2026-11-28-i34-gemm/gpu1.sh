#!/usr/bin/env bash
# Issue 34, target 3 on the GPU machine: cl:cr's gemm with the fallback out of line (one cr_dot
# call in a loop over the failed outputs) and rm (rows and outputs per work-item) 1, 2, 4, 8,
# against cl:own, side by side in one process per point; host:cr's bits checked (--expect cr)
# at d=128. From the repository root with build/clparity and .gpu/: bash gpu1.sh (writes $OUT).
set -u
source .gpu/setup.sh
B=build/clparity
O=${OUT:-/tmp/out}
mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/cache OPENBLAS_CORETYPE=SkylakeX
T0=$SECONDS
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } > "$O/env.txt" 2>&1
pt() { # tune d L B runs [host]
  echo "== CLPARITY_CR_TUNE=$1 d=$2 L=$3 B=$4 (t=$((SECONDS - T0)) s)"
  local eng=cl:own,cl:cr dev="-d gpu" ex=""
  if [ -n "${6:-}" ]; then eng=cl:own,cl:cr,host:cr; dev="-d gpu -d host"; ex="--expect cr"; fi
  env CLPARITY_CR_TUNE=$1 timeout 150 $B compare $dev --engines $eng --d-model "$2" --layers "$3" \
    --batch "$4" --runs "$5" --warmup 1 $ex 2>&1 |
    grep -E "^R[0-9] |^ *cr +|^builds: +cl:cr|^ran: +cl:cr|rror|INVALID|FAIL"
  echo "rc=${PIPESTATUS[0]}"
}
{
  for rm in 1 2 4 8; do
    pt path=gemm,rm=$rm 128 128 256 20 h
    pt path=gemm,rm=$rm 128 128 2048 20 h
  done
  for rm in 1 2 4; do pt path=tiles,rm=$rm 128 128 256 20 h; done
  pt path=gemm,rm=4,exact=1 128 128 256 3
  for rm in 2 4 8; do pt path=gemm,rm=$rm 4096 16 4096 2; done
  pt path=gemm,rm=8,tk=32 4096 16 4096 2
  pt path=gemm,rm=8,tk=8 4096 16 4096 2
} > "$O/gemm.txt" 2>&1
# the kernels as NVIDIA compiled them (PTX): spills show as .local
mkdir -p "$O/ptx"; find /tmp/cache -type f -size -4M | head -50 | while read -r f; do
  if grep -q "cr_gemm" "$f" 2>/dev/null; then cp "$f" "$O/ptx/"; fi; done
echo "total $((SECONDS - T0)) s" >> "$O/gemm.txt"
