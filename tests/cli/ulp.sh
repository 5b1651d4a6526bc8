#!/usr/bin/env bash
# Usage: ulp.sh CLPARITY PYTHON SRCDIR OUTDIR MODE SEL SAMPLES
# Command-line tests of `clparity ulp -d SEL --samples SAMPLES`:
#   table  every function: exit status 0; the header line exactly; one row per function and
#          build in the table's order for the device; --json valid against
#          docs/ulp.schema.json, with the same rows; where the device reports
#          CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT, sqrt and divide built correctly-rounded have
#          0 ULP, no bit differing and check "ok" (else they are n/a)
#   float  --functions train_sqrt,train_divide (train's float way, clkernels/divsqrt.cl):
#          exit status 0, SAMPLES inputs each, every result bit-identical to the host's
#          correctly rounded / and sqrtf (bits_differ 0, max_ulp 0, no non-finite mismatch)
set -u
clp=$1 py=$2 src=$3 out=$4 mode=$5 sel=$6 samples=$7
rm -rf "$out"
mkdir -p "$out"

die() {
    echo "FAIL: $*"
    exit 1
}

case $mode in
table) fns=() ;;
float) fns=(--functions train_sqrt,train_divide) ;;
*) die "unknown mode $mode" ;;
esac
# --allow-slow: Oclgrind's float rows run 2^20 inputs (about 36 s here)
"$clp" ulp -d "$sel" --samples "$samples" "${fns[@]}" --allow-slow --json "$out/ulp.json" \
    >"$out/ulp.txt" 2>&1
rc=$?
cat "$out/ulp.txt"
[ $rc = 0 ] || die "ulp: exit status $rc"
"$py" "$src/tests/validate_json.py" "$src/docs/ulp.schema.json" "$out/ulp.json" || die "schema"
"$py" - "$out/ulp.json" "$out/ulp.txt" "$mode" "$samples" <<'PY' || die "the table or the JSON"
import json, sys
doc = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read().splitlines()
mode, samples = sys.argv[3], int(sys.argv[4])
header = ("device                         function      build                 inputs    max ULP"
          "     mean ULP non-finite bits differ")
assert text[0] == header, text[0]
assert len(doc["devices"]) == 1, len(doc["devices"])
dev = doc["devices"][0]
rows = dev["results"]
order = [(r["function"], r["build"]) for r in rows]
if mode == "table":
    want = [("sqrt", "default"), ("sqrt", "correctly-rounded"), ("divide", "default"),
            ("divide", "correctly-rounded"), ("native_sqrt", "default"),
            ("native_divide", "default"), ("native_recip", "default"), ("half_sqrt", "default"),
            ("half_divide", "default"), ("half_recip", "default"),
            ("train_sqrt", "fma-correction"), ("train_divide", "fma-correction")]
else:
    want = [("train_sqrt", "fma-correction"), ("train_divide", "fma-correction")]
assert order == want, order
lines = [l for l in text[1:] if l.startswith(dev["device"]["label"][:30])]
assert len(lines) == len(rows), (len(lines), len(rows))
for line, r in zip(lines, rows):
    cells = line[31:].split()
    assert cells[:2] == [r["function"], r["build"]], (cells, r)
    if not r["available"]:
        assert cells[2] == "n/a:" and r["why"] in line, (line, r)
        continue
    assert [int(cells[2]), int(cells[3]), int(cells[5]), int(cells[6])] == \
        [r["inputs"], r["max_ulp"], r["nonfinite_mismatches"], r["bits_differ"]], (line, r)
    assert r["inputs"] == samples, r
for r in rows:
    if r["build"] == "correctly-rounded" and r["available"]:
        assert r["max_ulp"] == 0 and r["bits_differ"] == 0 and r["check"] == "ok", r
    if r["build"] == "fma-correction":
        assert r["max_ulp"] == 0 and r["bits_differ"] == 0 and r["nonfinite_mismatches"] == 0 \
            and r["check"] == "ok", r
print(f"ok: {len(rows)} rows on {dev['device']['label']}:",
      [(r["function"], r["build"], r.get("max_ulp", "n/a")) for r in rows])
PY
echo "ok"
