#!/usr/bin/env bash
# The GPU machine's part of the exactness checks (issue 3), as run through the device tool:
#   source .gpu/setup.sh; bash tools/gpu/compare.sh "$OUT"
# It writes its outputs to the folder given (default ./gpu-out).
set -u
out=${1:-gpu-out}
mkdir -p "$out"
clp=build/clparity
{
    date -u
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
    clinfo -l
    ldd "$clp" | grep 'not found'
    $clp devices
} > "$out/devices.txt" 2>&1
status=0
# The three points of the acceptance list, over NVIDIA, PoCL and host.
for p in "128 128 1" "1024 16 256" "4096 4 64"; do
    set -- $p
    extra=""
    [ "$1" = 128 ] && extra="--save $out/save_d128"
    echo "== compare -d all --expect bitwise --engines cl:own,host:exact --d-model $1 --layers $2 --batch $3"
    $clp compare -d all --expect bitwise --engines cl:own,host:exact --d-model "$1" \
        --layers "$2" --batch "$3" --runs 3 --warmup 1 $extra
    rc=$?
    echo "exit status: $rc"
    [ $rc = 0 ] || status=1
done > "$out/exact.txt" 2>&1
# Every engine at the reference model, with the invariance checks, for the README.
$clp compare -d all --d-model 128 --layers 128 --batch 1 --runs 5 --warmup 2 \
    --json "$out/all_d128.json" > "$out/all_d128.txt" 2>&1
$clp compare -d all --d-model 1024 --layers 16 --batch 256 --runs 3 --warmup 1 --invariance \
    > "$out/all_d1024.txt" 2>&1
tar -C "$out" -czf "$out/save_d128.tgz" save_d128 && rm -rf "$out/save_d128"
exit $status
