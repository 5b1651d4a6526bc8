#!/usr/bin/env bash
# The GPU machine's speed runs (issue 4), as run through the device tool:
#   source .gpu/setup.sh; bash tools/gpu/perf.sh "$OUT" [bench args...]
# Exactness of the GPU kernels first (issue 12's at the sweeps' extremes too) (a fast kernel that changed a bit would be worthless),
# then `clparity tune` on every device, then tools/bench (targets 1-5, side by side with
# PyTorch). Everything goes to the folder given.
set -u
out=${1:-gpu-out}
shift || true
bench_args=("$@")
mkdir -p "$out"
clp=build/clparity
export XDG_CACHE_HOME="$out/xdg"
{
    date -u
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
    $clp devices
} >"$out/devices.txt" 2>&1
status=0
for v in "reg 128 128 1" "reg 67 5 13" "reg 1024 4 3" "reg 128 128 1 rc=32,rd=4" \
    "reg 200 9 3 rc=16,rd=4" "reg 130 7 2 rc=64,rd=3" "tiled 4096 2 300" "tiled 130 3 131" \
    "tiled 4096 2 300 bk=32,db=1" "tiled 132 3 131 bk=32" "tiled 4096 2 260 pf=0"; do
    set -- $v
    echo "== CLPARITY_OWN_KERNEL=$1 CLPARITY_OWN_TUNE=${5:-} compare -d gpu -d host --d-model $2 --layers $3 --batch $4"
    CLPARITY_OWN_KERNEL=$1 CLPARITY_OWN_TUNE=${5:-} $clp compare -d gpu -d host --expect bitwise \
        --engines cl:own,host:exact --d-model "$2" --layers "$3" --batch "$4" --runs 2 --warmup 0 |
        tail -3
    rc=${PIPESTATUS[0]}
    echo "exit status: $rc"
    [ "$rc" = 0 ] || status=1
done >"$out/exact.txt" 2>&1
# Issue 12: cl:own on the GPU bit-identical to host:exact at each sweep's smallest and largest
# point, with the kernels it picks there (reg, stream; exact.txt of tools/gpu/sweeps.sh).
mkdir -p "$out/sweeps-exact"
bash tools/gpu/sweeps.sh "$out/sweeps-exact" exact || status=1
$clp tune --json "$out/tune.json" >"$out/tune.txt" 2>&1 || status=1
python3 tools/bench "${bench_args[@]}" >"$out/bench.txt" 2>&1 || status=1
exit $status
