#!/usr/bin/env python3
"""csv_header_first.py CLPARITY WORK: every --csv starts with its header, as hyperfine's and
clpeak's do, and its provenance is in the sidecar FILE.csv.json (issue 36, docs/COMMANDS.md
"Files"). For run, train and sweep on the host:
- the first line is the header, and it is the sidecar's "columns"; the sidecar's provenance
  has clparity_version, command and date;
- Python's csv module reads the file back with no option (and pandas.read_csv, where pandas is
  installed, with no comment=): the same columns, one row per JSON result, and the values of
  the JSON (run's hash and max_ulp, train's loss);
- --csv - puts the header first on stdout and writes no sidecar;
- a second run onto the same CSV replaces it (clparity's own: its sidecar says so); a CSV of
  the user's without a sidecar is refused (status 2) and left as it was."""
import csv
import io
import json
import math
import os
import shutil
import subprocess
import sys

clp, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
BAD = []
SMALL = ["--d-model", "8", "--layers", "2", "--runs", "2", "--warmup", "0", "--quiet"]
try:
    import pandas
except ImportError:
    pandas = None


def clparity(argv, want=0):
    r = subprocess.run([clp, *argv], capture_output=True, text=True, cwd=work)
    if r.returncode != want:
        BAD.append(f"clparity {' '.join(argv)} exited {r.returncode}, not {want}: {r.stderr}")
    return r


def read_back(name, path):
    """The rows of a CSV file, after checking its first line and its sidecar."""
    text = open(path).read()
    first = text.split("\n", 1)[0]
    if first.startswith("#"):
        BAD.append(f"{name}: the first line is not the header: {first[:60]}")
    side = json.load(open(path + ".json")) if os.path.exists(path + ".json") else {}
    if not side:
        BAD.append(f"{name}: no sidecar {os.path.basename(path)}.json")
    if first != ",".join(side.get("columns", [])):
        BAD.append(f"{name}: the first line is not the header listed by the sidecar: {first[:60]}")
    prov = side.get("provenance", {})
    for key in ("clparity_version", "command", "date"):
        if key not in prov:
            BAD.append(f"{name}: the sidecar's provenance lacks {key}")
    if side.get("csv") != os.path.basename(path):
        BAD.append(f"{name}: the sidecar names {side.get('csv')!r}, not the CSV")
    rows = list(csv.DictReader(io.StringIO(text)))
    if not rows or list(rows[0]) != side.get("columns"):
        BAD.append(f"{name}: csv.DictReader read the columns {list(rows[0]) if rows else []}")
    if pandas is not None:
        df = pandas.read_csv(path)
        if list(df.columns) != side.get("columns") or len(df) != len(rows):
            BAD.append(f"{name}: pandas.read_csv read {list(df.columns)[:3]}..., {len(df)} rows")
    print(f"{name}: header first, {len(rows)} rows read back by csv"
          f"{' and pandas' if pandas is not None else ' (pandas is not installed)'}")
    return rows


# run: one row per result, hash and max_ulp as in --json
clparity(["run", "-d", "host", *SMALL, "--csv", "r.csv", "--json", "r.json"])
rows = read_back("run", os.path.join(work, "r.csv"))
res = json.load(open(os.path.join(work, "r.json")))["results"]
if len(rows) != len(res):
    BAD.append(f"run: {len(rows)} CSV rows for {len(res)} results")
for row, r in zip(rows, res):
    m = r.get("metrics") or {}
    if row.get("engine") != r["engine"] or row.get("hash") != r["hash"] or \
            (m.get("max_ulp") is not None and row.get("max_ulp") != str(m["max_ulp"])):
        BAD.append(f"run: row {row} is not the JSON's")

# train: the loss of every step
clparity(["train", "-d", "host", "--engines", "host:exact", "--d-model", "8", "--layers", "2",
          "--steps", "2", "--batch", "2", "--quiet", "--csv", "t.csv", "--json", "t.json"])
rows = read_back("train", os.path.join(work, "t.csv"))
steps = json.load(open(os.path.join(work, "t.json")))["steps"]
# (to 1 ulp: cJSON prints a double with 15 digits where its own, tolerant, check says they
# read back, so the JSON can be 1 ulp off the CSV's %.17g)
if len(rows) != len(steps) or not all(
        math.isclose(float(r["loss"]), s["loss"], rel_tol=2.3e-16) for r, s in zip(rows, steps)):
    BAD.append("train: the CSV's losses are not the JSON's")

# sweep: the header first there too
clparity(["sweep", "--vary", "batch", "--grid", "1,2", "-d", "host", "--engines", "host:exact",
          "--d-model", "8", "--layers", "2", "--runs", "2", "--rounds", "1", "--warmup", "0",
          "--quiet", "--csv", "s.csv"])
if len(read_back("sweep", os.path.join(work, "s.csv"))) != 2:
    BAD.append("sweep: not one row per point")

# --csv -: the header first on stdout, no sidecar
r = clparity(["run", "-d", "host", "--engines", "host:exact", *SMALL, "--csv", "-"])
if not r.stdout.startswith("device,"):
    BAD.append(f"run --csv -: stdout starts with {r.stdout[:40]!r}")
if os.path.exists(os.path.join(work, "-.json")):
    BAD.append("run --csv -: a sidecar -.json was written")

# its own CSV is replaced; the user's (no sidecar) is refused and kept
clparity(["run", "-d", "host", "--engines", "host:exact", *SMALL, "--csv", "r.csv"])
user = "a,b\n1,2\n"
open(os.path.join(work, "u.csv"), "w").write(user)
r = clparity(["run", "-d", "host", "--engines", "host:exact", *SMALL, "--csv", "u.csv"], want=2)
if "clparity did not write it" not in r.stderr or open(os.path.join(work, "u.csv")).read() != user:
    BAD.append(f"the user's u.csv was not refused and kept: {r.stderr}")

for b in BAD:
    print(f"FAIL: {b}")
sys.exit(1 if BAD else 0)
