#!/usr/bin/env python3
"""A device fault in run or compare (issue 21, point 5): the failed result ends with a named
error and every other result of the run is kept.

Usage: kept.py --status N --regex RE [--lacks RE2] --dir DIR --failed ENGINE [--kept ENGINE]...
               [--schema FILE] [--diff] -- COMMAND [ARGS...]

Empties DIR, runs COMMAND (which writes DIR/out.json and DIR/save, TO_DIR's paths) and checks:
  - the exit status is N, and the first stderr line matches RE (the cause, named);
  - no stderr line matches RE2;
  - stdout has a row for ENGINE that says `error: <cause>`, and a row with numbers for each
    --kept ENGINE; compare's verdicts say that ENGINE did not run, and none says PASS;
  - out.json holds ENGINE's result with an "error" string and no numbers, and each --kept
    ENGINE's with its hash (and, for compare, in "comparison" too, with metrics); with
    --schema, out.json is valid against that JSON Schema;
  - save/index.json lists the kept results with their files (present, and no file for ENGINE)
    and ENGINE under "errors" with its cause;
  - with --diff, `clparity diff DIR/save DIR/save --expect bitwise` (diff takes two) shows ENGINE's error row, fails every
    verdict naming it, and exits 1.
Prints what failed and exits 1, else 0.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys


def main():
    argv = sys.argv[1:]
    cut = argv.index("--")
    p = argparse.ArgumentParser()
    p.add_argument("--status", type=int, required=True)
    p.add_argument("--regex", required=True)
    p.add_argument("--lacks")
    p.add_argument("--dir", required=True)
    p.add_argument("--failed", required=True)
    p.add_argument("--kept", action="append", default=[])
    p.add_argument("--diff", action="store_true", default=bool(os.environ.get("KEPT_DIFF")),
                   help="also diff the save folder: its error row, every verdict failing (default $KEPT_DIFF)")
    p.add_argument("--schema", default=os.environ.get("KEPT_SCHEMA"),
                   help="also validate out.json against this JSON Schema (default $KEPT_SCHEMA)")
    a = p.parse_args(argv[:cut])
    cmd = argv[cut + 1:]
    shutil.rmtree(a.dir, ignore_errors=True)
    os.makedirs(a.dir)
    r = subprocess.run(cmd, capture_output=True, text=True)
    bad = []
    err = r.stderr.splitlines()
    first = err[0] if err else ""
    if r.returncode != a.status:
        bad.append(f"exit status {r.returncode}, expected {a.status}")
    if not re.search(a.regex, first):
        bad.append(f"first stderr line does not match /{a.regex}/: {first}")
    if a.lacks and any(re.search(a.lacks, line) for line in err):
        bad.append(f"stderr has a line matching /{a.lacks}/")
    compare = "compare" in cmd
    rows = r.stdout.splitlines()
    eng = re.escape(a.failed)
    if not any(re.search(rf"\s{eng}\s+error: \S", line) for line in rows):
        bad.append(f"no row for {a.failed} saying 'error: <cause>'")
    for k in a.kept:
        if not any(re.search(rf"\s{re.escape(k)}\s+[0-9]", line) for line in rows):
            bad.append(f"no row with numbers for {k}")
    if compare:
        if not any(re.search(rf"{eng}: did not run", line) for line in rows):
            bad.append(f"no verdict says that {a.failed} did not run")
        if any(re.search(r"\bPASS\b", line) for line in rows):
            bad.append("a verdict says PASS over a missing result")
    try:
        doc = json.load(open(os.path.join(a.dir, "out.json")))
        if a.schema:
            import jsonschema

            try:
                jsonschema.validate(doc, json.load(open(a.schema)))
            except jsonschema.ValidationError as e:
                bad.append(f"out.json is not valid against {a.schema}: {e.message}")
        res = {x["engine"]: x for x in doc["results"]}
        f = res.get(a.failed, {})
        if not isinstance(f.get("error"), str) or not f["error"] or "hash" in f or "timing" in f:
            bad.append(f"out.json: {a.failed}'s result is not an error entry: {f}")
        for k in a.kept:
            if "hash" not in res.get(k, {}) or "error" in res.get(k, {}):
                bad.append(f"out.json: {k}'s result is missing or has no hash")
        if compare:
            cres = {x["engine"]: x for x in doc["comparison"]["results"]}
            if "error" not in cres.get(a.failed, {}) or "metrics" in cres.get(a.failed, {}):
                bad.append(f"out.json: comparison: {a.failed} is not an error entry")
            for k in a.kept:
                if "metrics" not in cres.get(k, {}):
                    bad.append(f"out.json: comparison: {k} has no metrics")
            if any(doc["comparison"]["verdicts"].values()):
                bad.append("out.json: a verdict is true over a missing result")
    except (OSError, ValueError, KeyError) as e:
        bad.append(f"out.json: {e!r}")
    try:
        save = os.path.join(a.dir, "save")
        idx = json.load(open(os.path.join(save, "index.json")))
        engines = [x["engine"] for x in idx["results"]]
        if a.failed in engines or sorted(engines) != sorted(a.kept):
            bad.append(f"index.json: results {engines}, expected {a.kept}")
        for x in idx["results"]:
            if not os.path.isfile(os.path.join(save, x["file"])):
                bad.append(f"index.json names {x['file']}, which is not there")
        failed = [x for x in idx.get("errors", []) if x.get("engine") == a.failed]
        if len(failed) != 1 or not failed[0].get("error"):
            bad.append(f"index.json: 'errors' does not name {a.failed}: {idx.get('errors')}")
        tag = a.failed.replace(":", "-")
        if any(n.endswith(f".{tag}.npy") for n in os.listdir(save)):
            bad.append(f"save/ holds a file for {a.failed}")
    except (OSError, ValueError, KeyError) as e:
        bad.append(f"save/index.json: {e!r}")
    if a.diff:
        save = os.path.join(a.dir, "save")  # twice: diff takes two folders or more
        dr = subprocess.run([cmd[0], "diff", save, save, "--expect", "bitwise"],
                            capture_output=True, text=True)
        drows = dr.stdout.splitlines()
        if dr.returncode != 1:
            bad.append(f"diff --expect bitwise of the save folder exited {dr.returncode}, not 1")
        if not any(re.search(rf"\s{eng}\s+error: \S", line) for line in drows):
            bad.append(f"diff: no row for {a.failed} saying 'error: <cause>'")
        if any(re.search(r"\bPASS\b", line) for line in drows) or not any(
                re.search(rf"{eng}: did not run", line) for line in drows):
            bad.append(f"diff: a verdict passes over {a.failed}, or none says it did not run")
        if bad:
            print("--- diff's stdout:\n" + dr.stdout + "--- diff's stderr:\n" + dr.stderr)
    if not bad:
        print(f"ok: exit {r.returncode}; stderr: {first}")
        return 0
    for b in bad:
        print("FAIL:", b)
    print("--- stderr:\n" + r.stderr + "--- stdout:\n" + r.stdout)
    return 1


if __name__ == "__main__":
    sys.exit(main())
