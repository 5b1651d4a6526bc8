#!/usr/bin/env bash
# Usage: train_optim.sh CLPARITY PYTHON SRCDIR OUTDIR SEL DIV_SQRT -- TRAIN_ARGS...
# `clparity train -d SEL,host TRAIN_ARGS` (an --optimizer and its options) for 100 steps, on
# d=16 L=2 B=5 and on the odd shape d=37 L=3 B=5 (random targets; $TRAIN_OPTIM_SHAPES, "16 2
# 5,37 3 5", names others), each checked:
#   - exit status 0;
#   - every one of cl:own's 100 step records in the JSON has base_max_ulp 0 and base_bitwise
#     1 (bit-identical to host:exact at every step), and its final optimizer state equals
#     host:exact's (state_equals_baseline);
#   - cl:own's div_sqrt starts with DIV_SQRT ("-": the result has none), and the report has its
#     line `div/sqrt: <device> cl:own: DIV_SQRT...`;
#   - tests/check_train.py --exact-equal on the --save folder: host:f64's weights and state
#     within 1e-12 (rel_to_max) of an independent float64 NumPy training with the optimizer,
#     the loss going down, cl:own's weights and state files bit-identical to host:exact's.
set -u
clp=$1 py=$2 src=$3 out=$4 sel=$5 divsqrt=$6
shift 6
[ "${1:-}" = "--" ] && shift
rm -rf "$out"
mkdir -p "$out"

die() {
    echo "FAIL: $*"
    exit 1
}

# TRAIN_OPTIM_SHAPES: "d l b,d l b" (Oclgrind's tests take the small one only)
IFS=, read -ra shapes <<<"${TRAIN_OPTIM_SHAPES:-16 2 5,37 3 5}"
for shape in "${shapes[@]}"; do
    read -r d l b <<<"$shape"
    tag=d${d}l${l}b${b}
    "$clp" train -d "$sel,host" --engines cl:own,host:exact,host:f64 --steps 100 --d-model "$d" \
        --layers "$l" --batch "$b" --target random --save "$out/$tag" --json "$out/$tag.json" \
        "$@" >"$out/$tag.txt" 2>&1
    rc=$?
    cat "$out/$tag.txt"
    [ $rc = 0 ] || die "train $* at $tag: exit status $rc"
    # the report says which way cl:own divides and takes square roots
    if [ "$divsqrt" != - ]; then
        grep -E '^div/sqrt: ' "$out/$tag.txt" | grep -qF " cl:own: $divsqrt" ||
            die "no line 'div/sqrt: ... cl:own: $divsqrt' in the report at $tag"
    fi
    "$py" - "$out/$tag.json" "$divsqrt" <<'PY' || die "the JSON of $tag ($out/$tag.json)"
import json, sys
d = json.load(open(sys.argv[1]))
own = [s for s in d["steps"] if s["engine"] == "cl:own"]
assert sorted(s["step"] for s in own) == list(range(1, 101)), len(own)
bad = [s["step"] for s in own if s["base_max_ulp"] != 0 or s["base_bitwise"] != 1]
assert not bad, f"cl:own differs from host:exact at steps {bad}"
r = [r for r in d["results"] if r["engine"] == "cl:own"][0]
name = d["model"]["optimizer"]["name"]
if name != "sgd":
    assert r["state_equals_baseline"] is True, r
want = sys.argv[2]
assert (r.get("div_sqrt", "-") if want == "-" else r.get("div_sqrt", "")).startswith(want), r
print(f"ok: {name}: cl:own bit-identical to host:exact at all 100 steps; div/sqrt: "
      f"{r.get('div_sqrt', '-')}")
PY
    "$py" "$src/tests/check_train.py" "$out/$tag" --exact-equal || die "check_train.py $out/$tag"
done
echo "ok"
