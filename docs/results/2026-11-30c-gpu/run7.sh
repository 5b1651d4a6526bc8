#!/usr/bin/env bash
# 2026-11-30 (session c), seventh GPU call (H200): the binary whose rules take tiles up to B=2048
# at layers up to 128 wide (rm=1 sg=4 up to B=256, rm=2 sg=8 past it): the rule's choice against
# gemm (a launch per layer, the old rule past B=256) side by side (dec.py), and its bits against
# host:cr (compare --expect cr), planted error too.
#   bash docs/results/2026-11-30c-gpu/run7.sh   (writes $OUT/run7/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/clparity build/
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c7
H=docs/results/2026-11-30c-gpu
O=${OUT:-/tmp/out}/run7
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; build/clparity --version; } > "$O/env.txt" 2>&1
for s in "128 128 2048" "128 128 300" "128 128 1024" "64 128 1024" "100 32 700" "128 128 256"; do
  python3 $H/dec.py "$O/t.txt" $s rule=-:- gemm=-:path=gemm
done
python3 $H/dec.py "$O/t.txt" 128 128 2048 rule=-:- gemm=-:path=gemm
{
for shape in "128 8 2048" "100 4 700" "77 5 257" "128 3 1000" "1 3 300" "64 3 2047"; do
  set -- $shape
  for tune in - ftz=1; do
  echo "### CLPARITY_CR_TUNE=$tune d=$1 L=$2 B=$3"
  env $( [ "$tune" != - ] && echo CLPARITY_CR_TUNE=$tune ) timeout 60 build/clparity compare -d NVIDIA -d host --engines cl:cr,host:cr \
      --expect cr --runs 1 --warmup 0 --d-model $1 --layers $2 --batch $3 --json "$O/c.json" 2>&1 | grep -E "^  cr  |^ran: +cl:cr|rror|^clparity"
  python3 -c 'import json,sys; print("build options:", json.load(open(sys.argv[1]))["provenance"]["kernel_build_options"])' "$O/c.json"
  done
done
echo "### planted: corrupt-cl-cr must fail"
CLPARITY_TEST_HOOK=corrupt-cl-cr timeout 60 build/clparity compare -d NVIDIA -d host \
   --engines cl:cr,host:cr --expect cr --runs 1 --warmup 0 --batch 1000 --d-model 64 --layers 3 2>&1 | grep -E "^  cr  |^ran: +cl:cr|rror"
} > "$O/bits.txt" 2>&1
rm -f "$O/c.json"
cut -c1-150 "$O/t.txt"; grep -c "  cr  *PASS" "$O/bits.txt"; grep -E "FAIL|rror|build options" "$O/bits.txt" | sed 's/-DCP_SPIN.*-DCR_RM/.. -DCR_RM/' | sort | uniq -c | cut -c1-220
