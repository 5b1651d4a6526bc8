#!/usr/bin/env bash
# The GPU machine's rows of docs/VENDORS.md (issue 20), as run through the device tool:
#   source .gpu/setup.sh; bash tools/gpu/vendors.sh "$OUT"
# On every OpenCL device there (NVIDIA's OpenCL, PoCL 5 on the CPU):
#   - matrix/: tools/vendor_matrix.py (the probe's verdict on each cl:own path, the reference
#     model through cl:own, cl:clblast and cl:relaxed);
#   - exact.txt: compare --expect bitwise at odd sizes, the default path and every forced one;
#   - planted.txt: each path forced with one bit planted (kernel-bit:<path>): the probe must
#     reject it, name it, and the next path must give host:exact's bits;
#   - train.txt: train for 20 steps on every device (the training kernels' probe included).
# Every case prints "case ... exit N"; the summary at the end counts the failures.
set -u
out=${1:-gpu-out}
mkdir -p "$out"
clp=build/clparity
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-/tmp/clparity-vendors-cache}
{
    date -u
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
    clinfo -l
    $clp devices --probe
} > "$out/devices.txt" 2>&1
python3 tools/vendor_matrix.py "$clp" "$out/matrix" --runs 20 > "$out/matrix.txt" 2>&1
echo "matrix exit $?" >> "$out/matrix.txt"

# P:D of every OpenCL device, from devices --json
sels=$($clp devices --json - 2>/dev/null | python3 -c '
import json, sys
for d in json.load(sys.stdin)["devices"]:
    if d["kind"] == "opencl" and not d["simulator"]:
        print("%d:%d:%s" % (d["platform_index"], d["device_index"], d["type"]))')
fail=0
run_case() { # name, expected exit, then the command
    local name=$1 want=$2
    shift 2
    local o rc
    o=$("$@" 2>&1)
    rc=$?
    echo "case $name exit $rc (want $want)"
    echo "$o" | grep -E '^builds:|^ +rejected|kernel path|--expect|FAILED' | cut -c1-400
    [ "$rc" = "$want" ] || fail=$((fail + 1))
}
# one-work-item kernels (cpu, cpu1, cpug) are for CPUs: not forced on a GPU
paths_of() {
    case $1 in
    *CPU*) echo naive small tiled vec pipe reg cpu cpu1 stream cpug ;;
    *) echo naive small tiled vec pipe reg stream ;;
    esac
}
for st in $sels; do
    sel=${st%:*}
    for path in default $(paths_of "$st"); do
        for shape in "1 3 5" "67 5 17" "257 3 64" "1023 2 5" "128 128 1"; do
            set -- $shape
            k=$path
            [ "$path" = default ] && k=""
            run_case "$sel $path d=$1 L=$2 B=$3" 0 env CLPARITY_OWN_KERNEL=$k \
                $clp compare -d "$sel" -d host --expect bitwise --engines cl:own,host:exact \
                --d-model "$1" --layers "$2" --batch "$3" --runs 1 --warmup 0
        done
    done
done > "$out/exact.txt" 2>&1
for st in $sels; do
    sel=${st%:*}
    for path in $(paths_of "$st"); do
        run_case "$sel planted $path" 0 env CLPARITY_OWN_KERNEL=$path \
            CLPARITY_TEST_HOOK=kernel-bit:$path $clp compare -d "$sel" -d host \
            --expect bitwise --engines cl:own,host:exact --d-model 67 --layers 3 --batch 5 \
            --runs 1 --warmup 0
    done
done > "$out/planted.txt" 2>&1
sel_list=$(for st in $sels; do echo "${st%:*}"; done | paste -sd,)
run_case "train" 0 $clp train -d "$sel_list" -d host --steps 20 --d-model 67 --layers 5 \
    --batch 17 > "$out/train.txt" 2>&1
n=$(cat "$out"/exact.txt "$out"/planted.txt "$out"/train.txt | grep -c '^case ')
echo "$n cases, $fail failed" | tee "$out/summary.txt"
exit $((fail > 0))
