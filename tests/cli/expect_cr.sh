#!/usr/bin/env bash
# Usage: expect_cr.sh CLP OUT MODE PYTHON SCHEMA VALIDATOR
# compare --expect cr (issue 23) on PoCL and the host with cl:cr, host:cr and host:exact, then
# diff --expect cr of the folder it saved (diff reads the files: no test hook reaches it).
#   plain: both exit 0; the verdict line is "cr PASS"; the JSON (valid against SCHEMA) has
#          expect "cr", verdicts.cr true and mismatches.cr 0 for cl:cr and host:cr.
#   cl:    under CLPARITY_TEST_HOOK=corrupt-cl-cr (cl:cr's one flipped bit): both exit 1 and
#          stderr's first line names cl:cr alone (diff: A's and B's), with 1 mismatched
#          element; host:exact, which differs from host:cr by design, is not judged.
#   host:  under CLPARITY_TEST_HOOK=corrupt-cr (host:cr's own one flipped bit): host:cr's
#          output is what cr judges by, so the flipped bit shows as cl:cr's failure (exit 1,
#          cl:cr named, host:cr not): --expect cr cannot say which side is wrong;
#          tests/check_cr.py is host:cr's independent check.
set -u
clp=$1 out=$2 mode=$3 py=$4 schema=$5 validator=$6
dir=$out/expect_cr_$mode
rm -rf "$dir" "$dir.json" "$dir.txt" "$dir.err" "$dir.diff.err"
"$clp" compare -d pocl,host --engines cl:cr,host:cr,host:exact --d-model 33 --layers 3 \
    --batch 4 --runs 1 --warmup 0 --expect cr --json "$dir.json" --save "$dir" \
    >"$dir.txt" 2>"$dir.err"
got=$?
"$clp" diff "$dir" "$dir" --expect cr >/dev/null 2>"$dir.diff.err"
got_diff=$?
ok=1
fail() {
    echo "FAIL ($mode): $*"
    ok=0
}
want=1
[ "$mode" = plain ] && want=0
[ "$got" = "$want" ] || fail "compare exited $got, expected $want"
[ "$got_diff" = "$want" ] || fail "diff exited $got_diff, expected $want"
"$py" "$validator" "$schema" "$dir.json" || fail "compare's JSON does not match $schema"
if [ "$mode" = plain ]; then
    grep -Eq '^  cr       PASS \(every cl:cr and host:cr result bit-identical to host:cr' \
        "$dir.txt" || fail "no 'cr PASS' verdict line"
    "$py" - "$dir.json" <<'EOF' || fail "the JSON's expect, verdicts.cr or mismatches.cr"
import json, sys
d = json.load(open(sys.argv[1]))
c = d["comparison"]
assert d["expect"] == "cr", d["expect"]
assert c["verdicts"]["cr"] is True, c["verdicts"]
crs = [r for r in c["results"] if r["engine"].endswith(":cr")]
assert len(crs) == 2 and all(r["mismatches"]["cr"] == 0 for r in crs), crs
EOF
else
    first=$(head -n 1 "$dir.err")
    first_diff=$(head -n 1 "$dir.diff.err")
    # diff of the folder with itself: its cl:cr result twice, as A: and B:
    printf '%s\n' "$first" |
        grep -Eq '^clparity compare: --expect cr failed for 1 result: [^,]* cl:cr$' ||
        fail "compare's stderr: $first"
    printf '%s\n' "$first_diff" |
        grep -Eq '^clparity diff: --expect cr failed for 2 results: A: [^,]* cl:cr, B: [^,]* cl:cr$' ||
        fail "diff's stderr: $first_diff"
    grep -Eq '^  cr       FAIL ' "$dir.txt" || fail "no 'cr FAIL' verdict line"
    grep -Eq '^    R[0-9]+ .* cl:cr: Mismatched elements: 1 / 132 ' "$dir.txt" ||
        fail "no 'Mismatched elements: 1 / 132' line for cl:cr"
    if grep -Eq '^    R[0-9]+ .* host:(cr|exact): Mismatched' \
        <(sed -n '/^  cr /,/^  checks /p' "$dir.txt"); then
        fail "cr judged host:cr or host:exact"
    fi
    "$py" -c 'import json,sys; v=json.load(open(sys.argv[1]))["comparison"]["verdicts"]["cr"]; sys.exit(v is not False)' \
        "$dir.json" || fail "the JSON's verdicts.cr is not false"
fi
if [ $ok = 0 ]; then
    echo "--- compare's stderr:"
    cat "$dir.err"
    echo "--- diff's stderr:"
    cat "$dir.diff.err"
    echo "--- compare's verdicts:"
    sed -n '/^verdicts:/,/^  checks /p' "$dir.txt"
    exit 1
fi
echo "ok ($mode)"
