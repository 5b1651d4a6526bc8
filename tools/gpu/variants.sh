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
# round 4 (2026-11-25 13:15 UTC): deeper register prefetch for reg (rd with smaller rc) and the
# pipelined local-memory kernel at d=128 (L=3840: reg 6.47 ms, rd=3 6.45, rc=32 10.3, rc=16
# 17.8, pipe 13.5; L=128: 0.157, 0.157, 0.214, 0.321, 0.467): every chunk costs about one
# memory latency whatever the depth of the ring.
# round 5: cp_model_small_rot (rg = 2, 3, 4 groups taking the layers in turn) at the batch and
# depth points of d=128, against the chunked kernel (rg=1).
for pt in "128 3840 1" "128 128 1" "128 16384 1" "64 128 1" "128 128 16" "128 128 64" "128 128 256" "128 128 2048" "128 3840 64"; do
    set -- $pt
    for t in "rg=1" "rg=2" "rg=3" "rg=4"; do one reg "$t" "$@"; done
done
