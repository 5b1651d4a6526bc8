#!/usr/bin/env bash
# Usage: cr_train_optim.sh CLPARITY PYTHON SRCDIR OUTDIR SEL EXPECT -- TRAIN_ARGS...
# The correctly rounded engines' training with an optimizer (issue 34, "Also 1"): `clparity
# train -d SEL,host --engines cl:cr,host:cr --every 1 TRAIN_ARGS` (an --optimizer and its
# options, --steps, a shape or --model) saved and checked:
#   - cl:cr's weights are host:cr's at every step (train's own check: exit status 0, and
#     check_cr_train.py on the JSON: first_divergent_step_cr 0, forward and hash equal), and
#     its final optimizer state too (state_equals_baseline: its twin's, host:cr's);
#   - tests/check_cr_train.py on the --save folder: cl:cr's and host:cr's final weights, state
#     and every step's loss are the bits of the independent exact-rational reference.
# EXPECT says which outcome passes:
#   ok          all of the above hold;
#   plant-ref   the run is as for ok, and check_cr_train.py --plant-bit 2 (one bit of the
#               reference flipped after step 2) must fail for both engines;
#   fail        a test hook plants an error in cl:cr (CLPARITY_TEST_HOOK): train must exit 1
#               and check_cr_train.py must fail on cl:cr and pass host:cr;
#   own-fails   the control of a flushing device (CLPARITY_TEST_HOOK=train-denorms-are-zero):
#               the same run of cl:own against host:exact must exit 1, diverged at step 1.
# CR_TRAIN_TINY=SCALE trains tests/make_tiny_model.py's model of that scale (--model), whose
# training meets subnormal floats.
set -u
clp=$1 py=$2 src=$3 out=$4 sel=$5 expect=$6
shift 6
[ "${1:-}" = "--" ] && shift
rm -rf "$out"
mkdir -p "$out"

die() {
    echo "FAIL: $*"
    exit 1
}

check="$src/tests/check_cr_train.py"
if [ -n "${CR_TRAIN_TINY:-}" ]; then
    "$py" "$src/tests/make_tiny_model.py" "$out/tiny.safetensors" "$CR_TRAIN_TINY" ||
        die "make_tiny_model.py $CR_TRAIN_TINY"
    set -- "$@" --model "$out/tiny.safetensors"
fi
if [ "$expect" = own-fails ]; then
    "$clp" train -d "$sel,host" --engines cl:own,host:exact --every 1 "$@" >"$out/own.txt" 2>&1
    rc=$?
    cat "$out/own.txt"
    [ $rc = 1 ] || die "cl:own with ${CLPARITY_TEST_HOOK:-no hook}: exit status $rc, not 1"
    grep -q '^clparity train: cl:own on .* diverged from host:exact at step 1 ' "$out/own.txt" ||
        die "cl:own did not diverge from host:exact at step 1"
    echo "ok: cl:own left host:exact at step 1 (${CLPARITY_TEST_HOOK:-})"
    exit 0
fi
# Oclgrind's reports (OCLGRIND_LOG, where the test sets it) fail the test
[ -n "${OCLGRIND_LOG:-}" ] && rm -f "$OCLGRIND_LOG"
"$clp" train -d "$sel,host" --engines cl:cr,host:cr --every 1 --save "$out/run" \
    --json "$out/run.json" "$@" >"$out/run.txt" 2>&1
rc=$?
cat "$out/run.txt"
if [ "$expect" = fail ]; then
    [ $rc = 1 ] || die "train $* with ${CLPARITY_TEST_HOOK:-no hook}: exit status $rc, not 1"
    "$py" "$check" "$out/run" >"$out/ref.txt" 2>&1
    rc=$?
    cat "$out/ref.txt"
    [ $rc = 1 ] || die "check_cr_train.py passed a planted error (exit status $rc)"
    grep -q '^ok: host:cr on host: weights' "$out/ref.txt" || die "host:cr is not the reference's"
    grep -q '^FAIL: cl:cr on ' "$out/ref.txt" || die "the failure is not cl:cr's"
    echo "ok: the planted error (${CLPARITY_TEST_HOOK:-}) was caught by train and by the reference"
    exit 0
fi
[ $rc = 0 ] || die "train $*: exit status $rc"
if [ -n "${OCLGRIND_LOG:-}" ] && [ -s "$OCLGRIND_LOG" ]; then
    head -n 40 "$OCLGRIND_LOG"
    die "Oclgrind reported problems ($OCLGRIND_LOG, above)"
fi
"$py" "$check" "$out/run.json" || die "check_cr_train.py $out/run.json"
"$py" - "$out/run.json" <<'PY' || die "the JSON ($out/run.json)"
import json, sys
d = json.load(open(sys.argv[1]))
steps = int(d["model"]["steps"])
for r in d["results"]:
    if r["engine"] != "cl:cr":
        continue
    recs = [s for s in d["steps"] if s["engine"] == "cl:cr" and s["device"] == r["device"]]
    assert sorted(s["step"] for s in recs) == list(range(1, steps + 1)), len(recs)
    name = d["model"]["optimizer"]["name"]
    if name != "sgd":
        assert r.get("state_equals_baseline") is True, r
    if name in ("adam", "adamw"):
        assert r["div_sqrt"].startswith("float"), r
    print(f"ok: {name}: cl:cr on {r['device']} is host:cr's at all {steps} steps, its state too")
PY
if [ "$expect" = plant-ref ]; then
    "$py" "$check" "$out/run" --json "$out/run.json" --plant-bit 2 >"$out/ref.txt" 2>&1
    rc=$?
    cat "$out/ref.txt"
    [ $rc = 1 ] || die "check_cr_train.py --plant-bit 2: exit status $rc, not 1"
    [ "$(grep -c '^FAIL: .* weights differ' "$out/ref.txt")" = 2 ] ||
        die "the planted bit was not seen in both engines' weights"
    echo "ok: the reference's planted bit was seen in both engines"
    exit 0
fi
"$py" "$check" "$out/run" --json "$out/run.json" || die "check_cr_train.py $out/run"
echo "ok"
