#!/usr/bin/env bash
# Usage: train_ux.sh CLPARITY PYTHON SRCDIR OUTDIR
# What `clparity train` prints (issue 35, "train as users expect it"), on PoCL and host:
#   - by default about ten recorded steps (TRAIN_PRINTED_STEPS: the first and the last among
#     them) and a line that says how many were shown, while --json keeps every step; a first
#     divergence at another step (test hook train-ulp-at:37) is printed beside them;
#   - --every K prints every recorded step (K-th and the last), and no such line;
#   - --no-f64: no host:f64 row, "-" in the f64 columns, the JSON valid against
#     docs/train.schema.json without f64 fields, and the bits still checked: with the test
#     hook train-ulp (one of cl:own's weights moved one ULP) the run exits 1, naming host:exact;
#     --no-f64 with --engines naming host:f64, or with only host:exact, is refused (status 2);
#   - builds: a cold program cache (a fresh XDG_CACHE_HOME) gives a "builds: cl:own on 0:0 ...
#     (cache miss" line and the same folder again "(cache hit"; build_s is in the JSON, and
#     the first step's time excludes the builds: first_step_ms <= 10 x step_ms_mean + 5 ms
#     (PoCL compiles a kernel at its first launch: 250-350 ms against 0.3 ms a step when the
#     first step held that).
set -u
clp=$1 py=$2 src=$3 out=$4
rm -rf "$out"
mkdir -p "$out"
schema=$src/docs/train.schema.json
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
small="--d-model 8 --layers 2 --batch 2 --target random"
# shellcheck disable=SC2086
steps_printed() { # FILE: the distinct steps of the step table
    awk '/^step /{t=1; next} t && /^[0-9]+ /{print $1} t && /^$/{exit}' "$1" | sort -un | tr '\n' ' '
}

# 1. The default: ten of 100 steps, the first and the last; the JSON has them all.
# shellcheck disable=SC2086
"$clp" train -d 0,host $small --steps 100 --json "$out/default.json" >"$out/default.txt" ||
    fail "default: exit $?"
got=$(steps_printed "$out/default.txt")
want="1 12 23 34 45 56 67 78 89 100 "
[ "$got" = "$want" ] || fail "default: printed steps '$got', expected '$want'"
grep -q "^(10 of the 100 recorded steps shown" "$out/default.txt" ||
    fail "default: no '(10 of the 100 recorded steps shown' line"
"$py" -c 'import json,sys; s=json.load(open(sys.argv[1]))["steps"]; assert len(s)==300, len(s)' \
    "$out/default.json" || fail "default: the JSON does not have every step of every result"
# ... and a divergence at a step that the sample leaves out (test hook train-ulp-at:37: one of
# cl:own's weights moved one ULP after step 37) is printed beside it, and is status 1.
# shellcheck disable=SC2086
CLPARITY_TEST_HOOK=train-ulp-at:37 "$clp" train -d 0,host $small --steps 100 >"$out/div37.txt" \
    2>"$out/div37.err"
rc=$?
got=$(steps_printed "$out/div37.txt")
want="1 12 23 34 37 45 56 67 78 89 100 "
[ $rc = 1 ] && [ "$got" = "$want" ] && grep -q "diverged from host:exact at step 37" "$out/div37.err" ||
    fail "divergence at step 37: exit $rc, printed steps '$got' (expected '$want'), $(cat "$out/div37.err")"

# 2. --every 1 prints every step, --every 7 the 7th ones and the last.
# shellcheck disable=SC2086
"$clp" train -d 0,host $small --steps 100 --every 1 >"$out/every1.txt" || fail "--every 1: exit $?"
n=$(steps_printed "$out/every1.txt" | wc -w)
[ "$n" = 100 ] || fail "--every 1: $n steps printed, expected 100"
grep -q "recorded steps shown" "$out/every1.txt" && fail "--every 1: says steps were left out"
# shellcheck disable=SC2086
"$clp" train -d 0,host $small --steps 100 --every 7 >"$out/every7.txt" || fail "--every 7: exit $?"
got=$(steps_printed "$out/every7.txt")
want="$(seq -s ' ' 7 7 98) 100 "
[ "$got" = "$want" ] || fail "--every 7: printed steps '$got', expected '$want'"

# 3. --no-f64.
# shellcheck disable=SC2086
"$clp" train -d 0,host $small --steps 20 --no-f64 --json "$out/nof64.json" --csv "$out/nof64.csv" \
    >"$out/nof64.txt" || fail "--no-f64: exit $?"
grep -q "host:f64" "$out/nof64.txt" && fail "--no-f64: a host:f64 row: $(grep -m1 host:f64 "$out/nof64.txt")"
grep -Eq '^20 +0:0 .* cl:own .* 1\.000000 +- +-$' "$out/nof64.txt" ||
    fail "--no-f64: no cl:own row at step 20 with its f64 columns '-'"
"$py" "$src/tests/validate_json.py" "$schema" "$out/nof64.json" || fail "--no-f64: the JSON"
"$py" - "$out/nof64.json" <<'PY' || fail "--no-f64: the JSON's content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["model"]["no_f64"] is True
e = sorted(r["engine"] for r in d["results"])
assert e == ["cl:own", "host:exact"], e
assert all("f64_max_abs" not in s and "f64_max_ulp" not in s for s in d["steps"])
assert all(s["base_bitwise"] == 1 for s in d["steps"]), "cl:own differs from host:exact"
PY
grep -q ',cl:own,.*,,$' "$out/nof64.csv" || fail "--no-f64: the CSV's f64 columns are not empty"
# shellcheck disable=SC2086
CLPARITY_TEST_HOOK=train-ulp "$clp" train -d 0,host $small --steps 5 --no-f64 >"$out/nof64_hook.txt" \
    2>"$out/nof64_hook.err"
rc=$?
[ $rc = 1 ] && grep -q "cl:own on .* diverged from host:exact at step 1" "$out/nof64_hook.err" ||
    fail "--no-f64 with a cl:own weight moved one ULP: exit $rc, $(cat "$out/nof64_hook.err")"
"$clp" train -d 0,host --engines cl:own,host:f64 --no-f64 >/dev/null 2>"$out/nof64_named.err"
rc=$?
[ $rc = 2 ] && grep -q "^clparity train: --no-f64 skips host:f64" "$out/nof64_named.err" ||
    fail "--no-f64 with --engines host:f64: exit $rc, $(cat "$out/nof64_named.err")"
"$clp" train -d host --no-f64 >/dev/null 2>"$out/nof64_alone.err"
rc=$?
[ $rc = 2 ] && grep -q "host:exact would be the only result" "$out/nof64_alone.err" ||
    fail "--no-f64 with host:exact alone: exit $rc, $(cat "$out/nof64_alone.err")"

# 4. builds: a cold cache, then the same cache warm; the first step without the builds.
for k in cold warm; do
    # shellcheck disable=SC2086
    XDG_CACHE_HOME=$out/cache "$clp" train -d 0,host $small --steps 20 --json "$out/$k.json" \
        >"$out/$k.txt" || fail "builds ($k): exit $?"
done
grep -Eq '^builds: cl:own on 0:0 .*: [0-9.]+ m?s \(cache miss' "$out/cold.txt" ||
    fail "builds (cold cache): no 'builds: cl:own on 0:0 ...: N s (cache miss' line: $(grep -a builds "$out/cold.txt")"
grep -Eq '^builds: cl:own on 0:0 .*: [0-9.]+ m?s \(cache hit' "$out/warm.txt" ||
    fail "builds (warm cache): no '(cache hit' line: $(grep -a builds "$out/warm.txt")"
for k in cold warm; do
    "$py" "$src/tests/validate_json.py" "$schema" "$out/$k.json" || fail "builds ($k): the JSON"
    "$py" - "$out/$k.json" "$k" <<'PY' || fail "builds ($k): the first step holds more than a step"
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    own = r["engine"] == "cl:own"
    assert ("build_s" in r) == own and ("build_cache" in r) == own, r
    if own:
        want = "miss" if sys.argv[2] == "cold" else "hit"
        assert r["build_cache"] == want, (r["build_cache"], want)
        first, mean = r["first_step_ms"], r["step_ms_mean"]
        print(f"{sys.argv[2]}: cl:own build {r['build_s']:.3f} s, 1st {first:.3f} ms, "
              f"mean {mean:.3f} ms")
        # builds counted in the first step would make it at least the build's time; a step
        # under load may take many means, so only the cold build (about a second: kernels
        # compiled and probed) tells the two apart, never a timing of the step itself
        if sys.argv[2] == "cold":
            assert first < 500 * r["build_s"], (first, r["build_s"])
PY
done

[ $fails = 0 ] || exit 1
echo "ok"
