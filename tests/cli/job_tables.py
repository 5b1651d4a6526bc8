#!/usr/bin/env python3
"""job_tables.py CLPARITY WORK HEADER: run's and compare's --csv and --plot (issue 22).
1. compare --csv --json --plot on PoCL and host: one CSV row per result, the golden header
   (HEADER) first, the provenance in the sidecar c.csv.json, and every row's timings, hash and metrics equal to the
   JSON's (the same run); the plot (SVG, when gnuplot is here) names every engine and both
   panels.
2. run --csv - : the CSV on stdout, the table on stderr, metrics equal to run --json's.
3. run --no-reference --csv: empty metric fields, never a number.
4. Refused before any work (status 2, no file): --plot x.pdf, --json - with --csv -, and a
   --csv path inside the --save folder."""
import csv
import io
import json
import os
import shutil
import subprocess
import sys


def main():
    clp, work, header_path = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    bad = []
    gnuplot = shutil.which("gnuplot") is not None

    def run(args, want=0):
        r = subprocess.run([clp, *args], capture_output=True, text=True)
        if r.returncode != want:
            sys.exit(f"FAIL: clparity {' '.join(args)} exited {r.returncode}, not {want}:\n"
                     f"{r.stdout}{r.stderr}")
        return r

    def rows_of(text, side_path=None):
        """The rows and the header of a CSV: its header first (issue 36); a file's provenance
        is in the sidecar FILE.json, whose "columns" are that header (stdout has none)."""
        lines = text.splitlines()
        if not lines or lines[0].startswith("#"):
            bad.append("the CSV's first line is not its header")
            return [], ""
        if side_path:
            side = json.load(open(side_path))
            if lines[0] != ",".join(side["columns"]):
                bad.append("the CSV's header is not the one its sidecar lists")
            if "clparity_version" not in side["provenance"]:
                bad.append("the CSV's sidecar has no provenance")
        return list(csv.DictReader(io.StringIO(text))), lines[0]

    golden = open(header_path).read().rstrip("\n")
    shape = ["--d-model", "16", "--layers", "3", "--batch", "4", "--runs", "3", "--warmup", "1"]

    # 1. compare
    c, j, p = (os.path.join(work, n) for n in ("c.csv", "c.json", "c.svg"))
    run(["compare", "-d", "0", "-d", "host", *shape, "--csv", c, "--json", j]
        + (["--plot", p] if gnuplot else []))
    rows, head = rows_of(open(c).read(), c + ".json")
    if head != golden:
        bad.append(f"compare's CSV header differs from the golden one:\n  got  {head}\n  want {golden}")
    js = json.load(open(j))
    cmp = js["comparison"]["results"]
    if len(rows) != len(js["results"]) or len(rows) < 4:
        bad.append(f"compare: {len(rows)} CSV rows for {len(js['results'])} results")
    for row, res, cr in zip(rows, js["results"], cmp):
        name = f"{row['device']} {row['engine']}"
        if row["engine"] != res["engine"] or row["hash"] != res["hash"] or \
                row["routine"] != res["routine"] or not row["routine"]:
            bad.append(f"{name}: engine, hash or routine differs from the JSON's")
        for k in ("wall_median_s", "wall_min_s", "wall_max_s", "wall_mean_s", "wall_sd_s",
                  "wall_p10_s", "wall_p90_s", "wall_ci_low_s", "wall_ci_high_s", "measured_s",
                  "runs", "gflops"):
            if abs(float(row[k]) - res["timing"][k]) > 1e-8 * max(1e-12, abs(res["timing"][k])):  # 9 digits
                bad.append(f"{name}: {k} {row[k]} vs JSON {res['timing'][k]}")
        if row["noisy"] != ("1" if res["timing"]["noisy"] else "0"):
            bad.append(f"{name}: noisy {row['noisy']} vs JSON {res['timing']['noisy']}")
        if int(row["runs"]) != 3:  # --runs 3 fixes the count
            bad.append(f"{name}: runs {row['runs']}, not 3")
        if not float(row["wall_min_s"]) <= float(row["wall_median_s"]) <= float(row["wall_max_s"]):
            bad.append(f"{name}: min <= median <= max does not hold")
        m = cr["metrics"]
        if m is None:
            if any(row[k] for k in ("max_ulp", "max_abs", "bitwise")):
                bad.append(f"{name}: the reference has metric values")
            continue
        for k in ("max_ulp", "median_ulp", "max_abs", "max_rel", "bitwise", "baseline_bitwise",
                  "cr_bitwise", "cr_max_ulp", "argmax", "nan", "inf"):
            if m.get(k) is None:
                ok = row[k] == ""
            else:
                ok = row[k] != "" and abs(float(row[k]) - m[k]) <= 1e-8 * abs(m[k])  # 9 digits
            if not ok:
                bad.append(f"{name}: {k} {row[k]!r} vs JSON {m.get(k)!r}")
        if row["deterministic"] != ("1" if cr["deterministic"] else "0"):
            bad.append(f"{name}: deterministic {row['deterministic']} vs JSON {cr['deterministic']}")
    if gnuplot:
        svg = open(p).read()
        for want in ["max ULP against host:f64", "wall time (ms): median, min to max"] + \
                [r["engine"] for r in rows]:
            if f">{want}<" not in svg:
                bad.append(f"the plot has no text {want!r}")

    # 2. run --csv -
    r = run(["run", "-d", "host", *shape, "--csv", "-"])
    rows, head = rows_of(r.stdout)
    # run -d host: host:openblas, host:exact, host:f64 and host:cr (the defaults)
    if head != golden or len(rows) != 4 or "median ms" not in r.stderr:
        bad.append(f"run --csv -: header, {len(rows)} rows, or the table not on stderr")
    rj = os.path.join(work, "r.json")
    run(["run", "-d", "host", *shape, "--json", rj])
    for row, res in zip(rows, json.load(open(rj))["results"]):
        if res["metrics"] and str(res["metrics"]["max_ulp"]) != row["max_ulp"]:
            bad.append(f"run: {row['engine']} max_ulp {row['max_ulp']} vs JSON {res['metrics']['max_ulp']}")

    # 3. no reference: no metric is made up
    r = run(["run", "-d", "host", "--engines", "host:exact", *shape, "--no-reference", "--csv", "-"])
    rows, _ = rows_of(r.stdout)
    if len(rows) != 1 or any(rows[0][k] for k in ("max_ulp", "max_abs", "bitwise", "compared")):
        bad.append(f"run --no-reference: metric fields are not empty: {rows}")

    # 4. refused before any work
    for args, msg in [
            (["--plot", os.path.join(work, "bad", "x.pdf")], "must end in .png or .svg"),
            (["--json", "-", "--csv", "-"], "only one of them can take stdout"),
            (["--save", os.path.join(work, "bad", "s"), "--csv",
              os.path.join(work, "bad", "s", "x.csv")], "--csv")]:
        os.makedirs(os.path.join(work, "bad"), exist_ok=True)
        r = run(["compare", "-d", "host", *shape, *args], want=2)
        first = r.stderr.splitlines()[0] if r.stderr else ""
        if msg not in first or os.listdir(os.path.join(work, "bad")):
            bad.append(f"compare {' '.join(args)}: {first!r}, files {os.listdir(os.path.join(work, 'bad'))}")
        shutil.rmtree(os.path.join(work, "bad"))
    for b in bad:
        print("FAIL:", b)
    if not bad:
        print("ok: run and compare --csv match their JSON; --plot drawn"
              + ("" if gnuplot else " (skipped: no gnuplot)") + "; bad paths refused")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
