#!/usr/bin/env python3
"""compare's =cr and crULP columns (issue 23, acceptance 3), from its --json and --save:
cl:cr must be bit-equal to host:cr (cr_bitwise 1, cr_max_ulp 0), host:exact not (on the model
of the test: its chains round more than once), and every float32 result has both fields;
diff of the saved folder against itself must give the same fields from cr.npy. With
--planted (test hook corrupt-cl-cr: one bit of one output of cl:cr) cl:cr must show the flip:
cr_bitwise below 1 and cr_max_ulp 1.

Usage: check_cr_compare.py CLPARITY COMPARE_JSON SAVE_DIR OUT_JSON [--planted]"""
import json
import subprocess
import sys


def fields(doc):
    out = {}
    for r in doc["comparison"]["results"]:
        if r["metrics"] is not None:
            m = r["metrics"]
            out[r["engine"]] = (m.get("cr_bitwise"), m.get("cr_max_ulp"))
    return out


def main():
    clp, cjson, save, djson = sys.argv[1:5]
    planted = "--planted" in sys.argv[5:]
    bad = []
    with open(cjson) as f:
        got = fields(json.load(f))
    print("compare:", got)
    if any(v[0] is None or v[1] is None for v in got.values()):
        bad.append("a float32 result lacks cr_bitwise or cr_max_ulp")
    cl, ex = got.get("cl:cr"), got.get("host:exact")
    if cl is None or ex is None:
        bad.append("no cl:cr or host:exact result")
    elif planted:
        if not (cl[0] < 1 and cl[1] == 1):
            bad.append(f"the planted bit went unseen: cl:cr =cr {cl[0]}, crULP {cl[1]}")
    else:
        if cl != (1, 0):
            bad.append(f"cl:cr =cr {cl[0]}, crULP {cl[1]}: not host:cr's bits")
        if not ex[0] < 1:
            bad.append(f"host:exact =cr {ex[0]}: the model does not tell the two apart")
    p = subprocess.run([clp, "diff", save, save, "--json", djson], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        bad.append(f"diff exited {p.returncode}: {p.stderr.strip()}")
    else:
        with open(djson) as f:
            d = fields_diff(json.load(f))
        print("diff:", d)
        for e, v in got.items():
            if d.get(e) != v:
                bad.append(f"diff's {e}: {d.get(e)}, compare's {v}")
    for b in bad:
        print("FAIL:", b)
    return 1 if bad else 0


def fields_diff(doc):
    comp = doc["comparison"] if "comparison" in doc else doc
    out = {}
    for r in comp["results"]:
        if r.get("metrics"):
            out[r["engine"]] = (r["metrics"].get("cr_bitwise"), r["metrics"].get("cr_max_ulp"))
    return out


if __name__ == "__main__":
    sys.exit(main())
