#!/usr/bin/env bash
# Issue 12's kernel variants on the GPU machine, as run through the device tool:
#   source .gpu/setup.sh; bash tools/gpu/variants.sh "$OUT"
# cl:own's paths and tune settings at points of the four sweeps (median wall ms, 10 runs after
# 2 warm-ups), then PyTorch's CUDA-graph replay at the same points; every setting's hash must
# equal the first one's at that point (the kernels keep one summation order).
set -u
out=${1:-gpu-out}
mkdir -p "$out"
clp=build/clparity
export XDG_CACHE_HOME="$out/xdg"
log="$out/variants.txt"
: >"$log"
one() { # kernel tune d L B
    local j
    j=$(CLPARITY_OWN_KERNEL=$1 CLPARITY_OWN_TUNE=$2 $clp run -d gpu --engines cl:own --no-reference \
        --init-scale 0.5 --d-model "$3" --layers "$4" --batch "$5" --runs 10 --warmup 2 --json - 2>"$out/last.err") || j="$j $(head -c 300 "$out/last.err")"
    {
    python3 - "$j" "$1" "${2:--}" "$3" "$4" "$5" <<'PY' 
import json, sys
a = sys.argv
try:
    r = json.loads(a[1])["results"][0]
    ms = r["timing"]["wall_median_s"] * 1e3
    print(f"{a[2]:<7}{a[3]:<28}d={a[4]:<5} L={a[5]:<5} B={a[6]:<5} {ms:9.3f} ms  {r['hash']}")
except Exception:
    print(a[2], a[3], a[4:], "FAILED:", a[1][-300:].replace("\n", " "))
PY
    } | tee -a "$log"
}
# round 3 (docs/results/2026-11-25-h100/variants-3-prefetch.txt was this loop with reg's
# prefetch groups, tune pg and pa, at commit 7141d82; they measured no gain and were removed):
# reg's chunk settings against stream on models larger than the GPU's cache.
# round 4 (2026-11-25 afternoon): deeper register prefetch for reg (rd with smaller rc), and
# the pipelined local-memory kernel (more work-items than outputs) at d=128, where one
# work-group streams every layer's weights alone; stream at d=1024 for reference.
for pt in "128 3840 1" "128 128 1"; do
    set -- $pt
    for t in "" "rc=64,rd=3" "rc=32,rd=3" "rc=32,rd=4" "rc=16,rd=4"; do one reg "$t" "$@"; done
    one pipe "" "$@"
done
one stream "" 1024 128 1
