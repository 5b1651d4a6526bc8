#!/usr/bin/env python3
"""Checks the --csv and --json of one `clparity sweep` against each other and against what they
must hold: the golden CSV header first, the provenance in the sidecar CSV.json, one row per point x device x engine, every
field of a finished row (min <= median <= max, e2e >= wall, GFLOP/s = 2·macs/median wall, % of
peak from the device's peak), n/a kernel time exactly where the engine hides its events, the
grid, and the JSON schema.

usage: check_sweep.py CSV JSON SCHEMA HEADER VARY GRID SERIES [--refused N] [--interrupted]
  GRID is the expected comma list of the varied values, or '-' to take the JSON's;
  SERIES the expected number of device x engine series.
"""
import csv
import json
import math
import sys

import jsonschema


def fail(msg):
    sys.exit(f"FAIL: {msg}")


def close(a, b, rel=1e-6):
    return abs(a - b) <= rel * max(abs(a), abs(b))


def main():
    args = sys.argv[1:]
    refused = 0
    interrupted = False
    if "--refused" in args:
        i = args.index("--refused")
        refused = int(args[i + 1])
        del args[i : i + 2]
    if "--interrupted" in args:
        args.remove("--interrupted")
        interrupted = True
    csv_path, json_path, schema_path, header_path, vary, grid, nseries = args
    nseries = int(nseries)

    doc = json.load(open(json_path))
    jsonschema.validate(doc, json.load(open(schema_path)))

    lines = open(csv_path).read().splitlines()
    # The header first (issue 36); the provenance in the sidecar FILE.csv.json.
    side = json.load(open(csv_path + ".json"))
    prov = side["provenance"]
    for key in ("clparity_version", "git_hash", "command", "date", "host_cpu", "icd",
                "environment", "kernel_build_options"):
        if key not in prov:
            fail(f"CSV provenance lacks {key}")
    if prov.get("interrupted") != interrupted:
        fail(f"the sidecar's provenance says interrupted {prov.get('interrupted')}")
    golden = open(header_path).read().rstrip("\n")
    if lines[0] != golden:
        fail(f"CSV header differs from the golden one:\n  got  {lines[0]}\n  want {golden}")
    if ",".join(side["columns"]) != golden:
        fail(f"the sidecar's columns are not the header: {side['columns']}")
    rows = list(csv.DictReader(lines))

    sw = doc["sweep"]
    if sw["vary"] != vary:
        fail(f"vary {sw['vary']} != {vary}")
    if grid != "-" and sw["grid"] != [int(v) for v in grid.split(",")]:
        fail(f"grid {sw['grid']} != {grid}")
    if doc["interrupted"] != interrupted:
        fail(f"interrupted is {doc['interrupted']}")
    res = doc["results"]
    if len(res) != len(rows):
        fail(f"{len(res)} JSON results but {len(rows)} CSV rows")
    if not interrupted and len(rows) != len(sw["grid"]) * nseries:
        fail(f"{len(rows)} rows, expected {len(sw['grid'])} points x {nseries} series")
    if interrupted and not 0 < len(rows) <= len(sw["grid"]) * nseries:
        fail(f"an interrupted sweep kept {len(rows)} rows")

    peaks = {d["device"]["label"]: d["peak"] for d in doc["devices"]}
    n_refused = 0
    for row, r in zip(rows, res):
        where = f"{row['device']} {row['engine']} d={row['d']} L={row['layers']} B={row['batch']}"
        if row["status"] != r["status"] or row["engine"] != r["engine"]:
            fail(f"CSV and JSON disagree at {where}")
        d, L, B = int(row["d"]), int(row["layers"]), int(row["batch"])
        if float(row["macs"]) != B * d * d * L or float(row["params"]) != d * d * L:
            fail(f"macs or params wrong at {where}")
        x = {"batch": B, "width": d, "depth": L, "params": d}[vary]
        if x not in sw["grid"]:
            fail(f"{where}: {x} is not in the grid")
        if row["status"] == "refused":
            n_refused += 1
            reason = row["reason"]
            if " > " not in reason or not reason.endswith(")"):
                fail(f"{where}: a refusal must name size and limit: {reason}")
            if any(row[k] for k in ("wall_median_s", "gflops", "pct_peak")):
                fail(f"{where}: a refused row has timings")
            continue
        if row["status"] != "ok":
            fail(f"{where}: status {row['status']}: {row['reason']}")
        t = r["timing"]
        wmin, wmed, wmax = (float(row[k]) for k in ("wall_min_s", "wall_median_s", "wall_max_s"))
        emin, emed, emax = (float(row[k]) for k in ("e2e_min_s", "e2e_median_s", "e2e_max_s"))
        if not (0 < wmin <= wmed <= wmax and 0 < emin <= emed <= emax):
            fail(f"{where}: min <= median <= max fails")
        if emed < wmed:
            fail(f"{where}: end-to-end median {emed} below the wall median {wmed}")
        if not close(wmed, t["wall_median_s"]):
            fail(f"{where}: CSV and JSON wall times differ")
        gf = float(row["gflops"])
        if not close(gf, 2 * B * d * d * L / wmed / 1e9):
            fail(f"{where}: GFLOP/s {gf} is not 2·B·d²·L / median wall")
        hides = row["engine"] in ("cl:clblast",) or row["engine"].startswith("host:")
        if hides != (row["kernel_median_s"] == "") or hides != (t["kernel_median_s"] is None):
            fail(f"{where}: kernel time must be n/a exactly where the engine hides it")
        pk = peaks[row["device"]]
        if pk["available"]:
            if not close(float(row["pct_peak"]), 100 * gf / pk["fma_gflops"]):
                fail(f"{where}: % of peak is not 100·GFLOP/s / peak")
            if not close(float(row["peak_gflops"]), pk["fma_gflops"]):
                fail(f"{where}: peak_gflops differs from the device's peak")
        elif row["pct_peak"] != "" or r["pct_peak"] is not None:
            fail(f"{where}: a simulator has no % of peak")
        if int(row["warmup"]) != sw["warmup"]:
            fail(f"{where}: warmup")
        # runs: --runs N exactly; adaptive, at least 5 runs and min_time_s of measured time
        # (or past the 10 s limit), at most 200; CSV and JSON agree.
        runs, measured = int(row["runs"]), float(row["measured_s"])
        if runs != t["runs"] or not close(measured, t["measured_s"]):
            fail(f"{where}: CSV and JSON runs or measured time differ")
        # Rounds: the grid ran sw["rounds"] times over; each round took its share of the rule
        # (N / R runs; adaptive: ceil(5 / R) runs and min_time / R seconds, at most 200 // R
        # runs, no more past the limit / R), so the pooled rows keep the rule of one block.
        R, rm, rr = sw["rounds"], t["round_medians_s"], t["round_runs"]
        nr = len(rm)
        if len(rr) != nr or sum(rr) != runs:
            fail(f"{where}: round_runs {rr} do not add up to {runs} runs")
        long_fw = rm[0] >= 1.0  # a forward of 1 s or more: the first round only
        if nr != (1 if long_fw else R) and not interrupted:
            fail(f"{where}: {nr} rounds of {R} (first round's median {rm[0]} s)")
        if not all(t["wall_min_s"] <= m <= t["wall_max_s"] for m in rm):
            fail(f"{where}: a round median {rm} outside [min, max]")
        if sw["runs"] is not None:
            share = [sw["runs"] // R + (i < sw["runs"] % R) for i in range(R)]
            if rr != share[:nr]:
                fail(f"{where}: round_runs {rr}, --runs {sw['runs']} over {R} rounds")
        else:
            cap, floor = 200 // R, -(-5 // R)
            mt, lim = sw["min_time_s"] / R, max(sw["min_time_s"], 10) / R
            if not (max(rr) <= cap and (runs >= floor * nr or measured >= lim) and
                    (measured >= mt * nr or cap in rr or measured >= lim)):
                fail(f"{where}: {rr} runs, {measured} s measured: breaks the adaptive rule")
        p10, p90 = float(row["wall_p10_s"]), float(row["wall_p90_s"])
        lo, hi = float(row["wall_ci_low_s"]), float(row["wall_ci_high_s"])
        if not (wmin <= p10 <= wmed <= p90 <= wmax and wmin <= lo <= wmed <= hi <= wmax):
            fail(f"{where}: min <= p10, CI low <= median <= p90, CI high <= max fails")
        if (row["noisy"] == "1") != ((p90 - p10) / wmed > 0.2) or t["noisy"] != (row["noisy"] == "1"):
            fail(f"{where}: the noisy flag does not follow (p90 - p10) / median > 0.2")
    if n_refused != refused:
        fail(f"{n_refused} refused rows, expected {refused}")
    pairs = nseries * (nseries - 1) // 2
    if not interrupted and len(doc["crossovers"]) != pairs:
        fail(f"{len(doc['crossovers'])} crossover pairs, expected {pairs}")
    # The crossovers, recomputed from the rows: in grid order over the points where both ran,
    # each change of the faster (ties and points within noise keep the order before them).
    x_of = lambda row: int(row[{"batch": "batch", "width": "d", "depth": "layers", "params": "d"}[vary]])
    series, rounds = {}, {}
    for row, r in zip(rows, res):
        if row["status"] == "ok":
            series.setdefault((row["device"], row["engine"]), {})[x_of(row)] = float(row["wall_median_s"])
            rounds.setdefault((row["device"], row["engine"]), {})[x_of(row)] = r["timing"]["round_medians_s"]
    for c in doc["crossovers"]:
        a = series.get((c["a"]["device"], c["a"]["engine"]), {})
        b = series.get((c["b"]["device"], c["b"]["engine"]), {})
        common = [x for x in sw["grid"] if x in a and x in b]
        noise = set(c["within_noise"])
        if not noise <= set(common):
            fail(f"within_noise {sorted(noise)} outside the common points {common}")
        # A point whose two series' round medians overlap (two rounds or more each) is
        # within noise: some round of the slower one was as fast as a round of the faster.
        for x in common:
            ra, rb = rounds[(c["a"]["device"], c["a"]["engine"])][x], rounds[(c["b"]["device"], c["b"]["engine"])][x]
            if len(ra) > 1 and len(rb) > 1 and min(ra) <= max(rb) and min(rb) <= max(ra) and x not in noise:
                fail(f"{c['a']} vs {c['b']} at {x}: round medians {ra} and {rb} overlap, "
                     f"but the point is not within noise")
        want, cur, first, prev = [], None, None, None
        for x in common:
            f = cur if x in noise else "a" if a[x] < b[x] else "b" if b[x] < a[x] else cur
            if f is not None and cur is not None and f != cur:
                want.append({"at": x, "after": prev, "faster": f})
            if cur is None and f is not None:
                first = f
            if f is not None:
                cur = f
            prev = x
        got = [{k: v for k, v in x.items() if k != "text"} for x in c["crossings"]]
        if got != want or c["common_points"] != len(common) or c["faster_first"] != first:
            fail(f"crossovers of {c['a']} and {c['b']}: got {got}, recomputed {want}")
        if not c["crossings"] and not c["summary"].startswith(("never", "no verdict", "no crossover")):
            fail(f"no crossing but the summary says {c['summary']}")
        for x in c["crossings"]:
            w = c[x["faster"]]
            if not x["text"].startswith(f"on {w['device']}, {w['engine']} beats ") or not x["text"].endswith(f" ≥ {x['at']}"):
                fail(f"crossing text: {x['text']}")
    print(f"ok: {len(rows)} rows ({n_refused} refused), {len(doc['crossovers'])} crossover pairs")


main()
