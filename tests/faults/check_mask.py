#!/usr/bin/env python3
"""The stdout check of run.py (report_lines) on a real report: a run on PoCL and the host
whose speed section ranks the other result first (the order of two results is noise, as CI
once saw: host ran first in the fault-free run, PoCL in a faulted one) must compare equal; a
report cut short, or with a changed line outside the speed section, must not.

usage: check_mask.py CLPARITY   (with OCL_ICD_VENDORS naming PoCL)"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import report_lines  # noqa: E402


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    argv = [sys.argv[1], "run", "-d", "0,host", "--engines", "cl:own,host:exact", "--d-model",
            "13", "--layers", "2", "--batch", "3", "--runs", "1", "--warmup", "0"]
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode != 0:
        print(f"check_mask: {' '.join(argv)} exited {p.returncode}:\n{p.stderr}", file=sys.stderr)
        return 1
    out = p.stdout
    # The speed section, as report.c prints it: "  A ran", then "    within noise of B: ...".
    m = re.search(r"^speed \(.*\n  (.+) ran\n    within noise of (.+?): no verdict", out, re.M)
    if not m:
        print("check_mask: no speed section naming two results in:\n" + out, file=sys.stderr)
        return 1
    a, b = m.group(1), m.group(2)
    if {a.split(" on ")[1] == "host", b.split(" on ")[1] == "host"} != {True, False}:
        print(f"check_mask: want one host and one PoCL result, have '{a}' and '{b}'",
              file=sys.stderr)
        return 1
    start = m.start()
    swapped = out[:start] + out[start:].replace(a, "\0").replace(b, a).replace("\0", b)
    cut = "\n".join(out.splitlines()[:-1]) + "\n"
    changed = out.replace("y = x + relu", "y = x - relu", 1)
    base = report_lines(out, "/nonexistent")
    bad = []
    if report_lines(swapped, "/nonexistent") != base:
        bad.append("the report with the speed section's two results swapped compares unequal")
    if report_lines(cut, "/nonexistent") == base:
        bad.append("the report with its last line cut compares equal")
    if changed == out or report_lines(changed, "/nonexistent") == base:
        bad.append("the report with its model line changed compares equal")
    for x in bad:
        print("check_mask: FAIL: " + x, file=sys.stderr)
    if not bad:
        print(f"check_mask: PASS: '{a}' and '{b}' swapped compare equal; a cut report and a "
              f"changed model line do not")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
