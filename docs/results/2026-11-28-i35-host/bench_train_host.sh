#!/usr/bin/env bash
# Usage: bench_train_host.sh CLPARITY [ROUNDS] [SHAPES]
# Issue 35's host targets, side by side in one process per measure: host:exact's forward (run,
# the median wall time of 5 runs at batch B) against host:exact's and host:f64's training step
# (train --optimizer $OPTIMIZER (adam) --lr $LR (0.001) --steps S: the mean of steps 2..S), at
# each shape "d L B" of SHAPES (default the
# issue's three), ROUNDS times (default 1). Prints one line per shape and round:
#   d L B fwd_ms exact_step_ms f64_step_ms exact/fwd f64/fwd
# (train's JSON's step_ms_mean; run's JSON's wall_median_s). STEPS (env, default 5) steps;
# INIT (default 0.5) the --init-scale of both.
set -u -o pipefail
clp=$1 rounds=${2:-1}
IFS=, read -ra shapes <<<"${3:-128 128 64,512 8 64,1024 16 64}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
steps=${STEPS:-5}
echo "d L B fwd_ms exact_step_ms f64_step_ms exact/fwd f64/fwd"
for ((i = 0; i < rounds; ++i)); do
    for shape in "${shapes[@]}"; do
        read -r d l b <<<"$shape"
        "$clp" run -d host --engines host:exact --d-model "$d" --layers "$l" --batch "$b" \
            --init-scale "${INIT:-0.5}" --runs 5 --json "$tmp/run.json" >"$tmp/run.txt" 2>&1 ||
            { cat "$tmp/run.txt"; exit 1; }
        "$clp" train -d host --engines host:exact,host:f64 --d-model "$d" --layers "$l" \
            --batch "$b" --init-scale "${INIT:-0.5}" --steps "$steps" --target random --optimizer "${OPTIMIZER:-adam}" --lr "${LR:-0.001}" \
            --json "$tmp/train.json" >"$tmp/train.txt" 2>&1 || { cat "$tmp/train.txt"; exit 1; }
        python3 - "$tmp/run.json" "$tmp/train.json" "$d $l $b" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
def find(o):
    if isinstance(o, dict):
        if "wall_median_s" in o:
            return o["wall_median_s"]
        for v in o.values():
            x = find(v)
            if x is not None:
                return x
    if isinstance(o, list):
        for v in o:
            x = find(v)
            if x is not None:
                return x
fwd = find(r) * 1e3
t = {x["engine"]: x["step_ms_mean"] for x in json.load(open(sys.argv[2]))["results"]}
e, f = t["host:exact"], t["host:f64"]
print(f"{sys.argv[3]} {fwd:.3f} {e:.3f} {f:.3f} {e / fwd:.2f} {f / fwd:.2f}")
PY
    done
done
