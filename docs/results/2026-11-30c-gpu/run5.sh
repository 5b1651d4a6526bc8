#!/usr/bin/env bash
# 2026-11-30 (session c), fifth GPU call (H200): the binary with tiles' new defaults up to 128
# wide (rm=1, sg=4): its rule's choice against the old settings (rm=2, sg=1) side by side
# (dec.py), and its bits against host:cr (compare --expect cr), planted error too.
#   bash docs/results/2026-11-30c-gpu/run5.sh   (writes $OUT/run5/)
set -u
source .gpu/setup.sh
mkdir -p build && cp build-gpu/clparity build/
export OPENBLAS_CORETYPE=SkylakeX PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/c5
H=docs/results/2026-11-30c-gpu
O=${OUT:-/tmp/out}/run5
mkdir -p "$O"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; build/clparity --version; } > "$O/env.txt" 2>&1
for s in "128 128 65" "128 128 128" "128 128 256"; do
  python3 $H/dec.py "$O/t.txt" $s rule=-:- old=-:path=tiles,rm=2,sg=1 rule2=-:-
done
{
for shape in "128 8 256" "100 4 200" "77 5 65" "128 128 100" "1 3 70" "64 3 255" "128 2 129"; do
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
   --engines cl:cr,host:cr --expect cr --runs 1 --warmup 0 --batch 100 --d-model 64 --layers 3 2>&1 | grep -E "^  cr  |^ran: +cl:cr|rror"
} > "$O/bits.txt" 2>&1
rm -f "$O/c.json"
cut -c1-150 "$O/t.txt"; grep -c "  cr  *PASS" "$O/bits.txt"; grep -E "FAIL|rror|build options" "$O/bits.txt" | sort | uniq -c | cut -c1-200
