#!/usr/bin/env bash
# Usage: train_schema.sh CLPARITY PYTHON SRCDIR OUTDIR
# `clparity train --json` against docs/train.schema.json, and its --csv's header against the
# golden tests/cli/train_header.csv:
#   - the built-in model on host (host:exact, host:f64, host:openblas) and PoCL (cl:own,
#     cl:clblast), 5 steps: JSON valid; CSV = the exact header first (the provenance in the
#     sidecar blocks.csv.json), then one row per JSON step record, with the same step, device
#     and engine;
#   - a --model file (the digits MLP, biases) on host, 1 step: the other shape of "model", and
#     results without step_ms_mean;
#   - each optimizer's "optimizer" object, and cl:own's div_sqrt, state_equals_baseline and
#     state_files, and cl:relaxed's div_sqrt and note (adamw and momentum with Nesterov on PoCL
#     and host, 3 steps).
set -u
clp=$1 py=$2 src=$3 out=$4
rm -rf "$out"
mkdir -p "$out"
schema=$src/docs/train.schema.json

die() {
    echo "FAIL: $*"
    exit 1
}

"$clp" train -d host -d 0 --engines cl:own,cl:clblast,host:exact,host:f64,host:openblas \
    --steps 5 --d-model 12 --layers 2 --batch 3 --target random --json "$out/blocks.json" \
    --csv "$out/blocks.csv" >"$out/blocks.txt" || die "train (blocks): exit status $?"
"$py" "$src/tests/validate_json.py" "$schema" "$out/blocks.json" || die "blocks.json"
"$py" -c 'import json, sys; assert "clparity_version" in json.load(open(sys.argv[1]))["provenance"]' \
    "$out/blocks.csv.json" || die "no provenance in the sidecar blocks.csv.json"
head -n 1 "$out/blocks.csv" | diff "$src/tests/cli/train_header.csv" - ||
    die "the CSV header differs from tests/cli/train_header.csv"
"$py" - "$out/blocks.json" "$out/blocks.csv" <<'PY' || die "CSV rows against the JSON"
import csv, json, sys
steps = json.load(open(sys.argv[1]))["steps"]
rows = list(csv.DictReader(open(sys.argv[2])))
assert len(rows) == len(steps) == 5 * 5, (len(rows), len(steps))
for r, s in zip(rows, steps):
    assert (int(r["step"]), r["device"], r["engine"]) == (s["step"], s["device"], s["engine"]), (r, s)
    assert float(r["loss"]) == s["loss"] and int(r["base_max_ulp"]) == s["base_max_ulp"], (r, s)
print(f"ok: {len(rows)} CSV rows match the JSON's steps")
PY
"$clp" train -d host --model "$src/tests/fixtures/digits.safetensors" --steps 1 --batch 2 \
    --json "$out/model.json" >"$out/model.txt" || die "train (model): exit status $?"
"$py" "$src/tests/validate_json.py" "$schema" "$out/model.json" || die "model.json"
for opt in "--optimizer adamw --betas 0.5,0.9" "--optimizer momentum --nesterov" \
    "--optimizer sgd --weight-decay 0.1"; do
    f=$out/optim_${opt// /_}.json
    # shellcheck disable=SC2086
    "$clp" train -d host -d 0 --engines cl:own,cl:relaxed,host:exact,host:f64 --steps 3 --d-model 8 \
        --layers 2 --batch 2 --target random $opt --json "$f" >"$f.txt" ||
        die "train ($opt): exit status $?"
    "$py" "$src/tests/validate_json.py" "$schema" "$f" || die "$f"
done
echo "ok"
