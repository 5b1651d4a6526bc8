#!/usr/bin/env python3
"""peak_spread.py CLPARITY WORK SWEEP_SCHEMA PEAK_SCHEMA: `peak` shows a spread, keeps it in
the cache, and no table prints a % of peak above 100 without the flag. In a fresh
XDG_CACHE_HOME under WORK:
1. `peak -d host --json`: the row shows the median with its p10-p90 range; the JSON holds the
   spread (min <= p10 <= median <= p90 <= max, 7 to 21 repetitions) and validates.
2. The cache file turned into an older clparity's (schema 1, no spread): `peak` measures again
   and says so.
3. The cached fma peak set far too low: `sweep` on host:openblas gets % of peak above 100 on
   every row; each such row carries '!', a note explains it and names `peak --remeasure`, the
   JSON has pct_peak_suspect true (and validates), the CSV's column is 1; the cached entry is
   dropped (the table says so), and the next `peak` measures again.
4. The peak set far too high: no '!', no note, pct_peak_suspect false everywhere."""
import csv
import glob
import json
import os
import re
import shutil
import subprocess
import sys


def main():
    clp, work, sweep_schema, peak_schema = sys.argv[1:5]
    validate = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                            "validate_json.py")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ, XDG_CACHE_HOME=work)
    env.pop("CLPARITY_CACHE", None)
    bad = []

    def run(*args):
        r = subprocess.run([clp, *args], env=env, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"FAIL: clparity {' '.join(args)} exited {r.returncode}:\n{r.stdout}{r.stderr}")
        print(r.stdout, end="")
        return r.stdout

    def valid(schema, path):
        r = subprocess.run([sys.executable, validate, schema, path], capture_output=True, text=True)
        if r.returncode != 0:
            bad.append(f"{path} does not validate against {schema}: {r.stdout}{r.stderr}")

    pj = os.path.join(work, "peak.json")
    text = run("peak", "-d", "host", "--json", pj)
    if not re.search(r"^host +[0-9.]+ \([0-9.]+-[0-9.]+\)~? +[0-9.]+ \([0-9.]+-[0-9.]+\)~? +n/a +\d+ reps",
                     text, re.M):
        bad.append("peak's host row shows no median with its p10-p90 range and repetitions")
    valid(peak_schema, pj)
    pk = json.load(open(pj))["devices"][0]["peak"]
    for fig in ("fma_gflops", "bandwidth_gbs"):
        s = pk["spread"][fig]
        if not (s["min"] <= s["p10"] <= pk[fig] * (1 + 1e-5) and pk[fig] <= s["p90"] * (1 + 1e-5)
                and s["p90"] <= s["max"] and 7 <= s["reps"] <= 21):
            bad.append(f"{fig}: the spread {s} is not ordered around the median {pk[fig]}")
    (cache,) = glob.glob(os.path.join(work, "clparity", "peak-*.json"))
    entry = json.load(open(cache))
    if entry.get("schema") != 2 or "spread" not in entry or not entry.get("measured_at"):
        bad.append(f"the cache file lacks schema 2, the spread or the date: {entry}")

    old = {k: v for k, v in entry.items() if k != "spread"}
    old["schema"] = 1
    json.dump(old, open(cache, "w"))
    text = run("peak", "-d", "host")
    if "an older entry without a spread, measured again" not in text:
        bad.append("an older cache entry (schema 1) was not measured again with a note")

    def sweep(tag, fma):
        if not os.path.exists(cache):  # dropped by a sweep whose % of peak went above 100
            run("peak", "-d", "host")
        e = json.load(open(cache))
        e["fma_gflops"] = fma
        e["spread"]["fma_gflops"].update(min=fma, p10=fma, p90=fma, max=fma)
        json.dump(e, open(cache, "w"))
        js, cs = os.path.join(work, f"{tag}.json"), os.path.join(work, f"{tag}.csv")
        out = run("sweep", "-d", "host", "--engines", "host:openblas", "--vary", "batch", "--grid",
                  "1,8", "--d-model", "32", "--layers", "2", "--runs", "3", "--warmup", "1",
                  "--json", js, "--csv", cs)
        valid(sweep_schema, js)
        rows = [r for r in json.load(open(js))["results"] if r["status"] == "ok"]
        lines = list(csv.DictReader(line for line in open(cs) if not line.startswith("#")))
        table = [line for line in out.splitlines() if "host:openblas" in line and "%" in line]
        return out, rows, lines, table

    out, rows, lines, table = sweep("low", 1e-6)
    if len(rows) != 2 or not all(r["pct_peak"] > 100 and r["pct_peak_suspect"] is True for r in rows):
        bad.append(f"peak too low: JSON rows {[(r['pct_peak'], r['pct_peak_suspect']) for r in rows]}")
    if len(table) != 2 or not all(line.endswith("%!") for line in table):
        bad.append(f"peak too low: table rows without '!': {table}")
    if "above 100 % of peak" not in out or "clparity peak\n  --remeasure" not in out:
        bad.append("peak too low: no note explaining the '!' and naming peak --remeasure")
    if "The cached peak of host is dropped" not in out or os.path.exists(cache):
        bad.append("peak too low: the cached peak that the results exceeded was not dropped")
    text = run("peak", "-d", "host")
    if re.search(r"\bcached\b", text) or not os.path.exists(cache):
        bad.append(f"peak too low: the next peak did not measure again:\n{text}")
    if [r["pct_peak_suspect"] for r in lines] != ["1", "1"]:
        bad.append(f"peak too low: CSV pct_peak_suspect {[r['pct_peak_suspect'] for r in lines]}")

    out, rows, lines, table = sweep("high", 1e9)
    if len(rows) != 2 or any(r["pct_peak_suspect"] for r in rows) or any("!" in t for t in table) \
            or "above 100 % of peak" in out or [r["pct_peak_suspect"] for r in lines] != ["0", "0"]:
        bad.append("peak high enough: a row is flagged all the same")
    for b in bad:
        print("FAIL:", b)
    if not bad:
        print("ok: peak shows and keeps its spread; % of peak above 100 is flagged, and only then")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
