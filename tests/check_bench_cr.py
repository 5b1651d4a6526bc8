#!/usr/bin/env python3
"""tools/bench --cr (issue 34's targets) on cut-down shapes (--cr-smoke), its --cr-json checked.

  check_bench_cr.py CLPARITY OUTDIR local [--rusticl]
      --cr --local: rows 5-7 present; 6 and 7 measured (5 too with --rusticl, else measured or
      "not measured" with the reason); every measured point's ratio the median of its rounds'
      ratios, each round's ratio the two wall medians' quotient, the denominator's hash equal
      to host:cr's in every round; a row's value its worst point's; row 7 at 2 threads and all
      cores; the table prints every row. Exit 0 expected.
  check_bench_cr.py CLPARITY OUTDIR planted
      the same run under CLPARITY_TEST_HOOK=corrupt-cl-cr (set by the caller): cl:cr's one-bit
      error must make row 6 a MISMATCH with no value, bench exit 1, row 7 still measured.
  check_bench_cr.py CLPARITY OUTDIR planted-run
      under CLPARITY_TEST_HOOK=corrupt-run (every engine's second forward loses a bit: the
      checked single forwards pass, the timed rounds do not): rows 6 and 7 MISMATCH, exit 1.
  check_bench_cr.py CLPARITY OUTDIR nogpu
      rows 1-4 with a GPU selector that matches nothing: every row (and 1bw) "not measured (no
      GPU found...)", exit 0.
  check_bench_cr.py CLPARITY OUTDIR gpu-on-pocl
      rows 1-4 with PoCL taken as the GPU: 1-3 measured, 1bw's bandwidth 4·d²·L / cl:cr's wall
      median against `clparity peak`'s; 4a and 4b measured with a float32-only routine, or "not
      measured" naming CLPARITY_CR_TUNE or the routine that ran.
"""
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "tools", "bench")
FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)


def bench(clp, out, extra):
    path = os.path.join(out, "cr.json")
    if os.path.exists(path):
        os.remove(path)
    cmd = [sys.executable, BENCH, "--cr", "--cr-smoke", "--rounds", "2", "--clparity", clp,
           "--cr-json", path] + extra
    res = subprocess.run(cmd, capture_output=True, text=True)
    sys.stdout.write(res.stdout)
    sys.stderr.write(res.stderr)
    doc = json.load(open(path)) if os.path.exists(path) else None
    return res.returncode, res.stdout, doc


def rows(doc):
    return {t["id"]: t for t in doc["rows"]}


def check_measured(t):
    """A measured row's arithmetic and hashes, from its points' rounds."""
    num, den = t["num"], t["den"]
    check(t["status"] == "measured", f"row {t['id']}: {t['status']}: {t.get('why')}")
    if t["status"] != "measured":
        return
    vals = []
    for p in t["points"]:
        where = f"row {t['id']} d={p['d']} L={p['layers']} B={p['batch']} {p['label']}"
        check(len(p["rounds"]) == 2, f"{where}: {len(p['rounds'])} rounds, 2 expected")
        ref = p["reference"]["hash"]
        check(p["check"][den]["hash"] == ref, f"{where}: checked {den} hash is not host:cr's")
        for i, r in enumerate(p["rounds"]):
            check(r[den]["hash"] == ref, f"{where}: round {i + 1}'s {den} hash is not host:cr's")
            check(r[num]["hash"] == p["check"][num]["hash"], f"{where}: {num}'s hash moved")
            q = r[num]["wall_median_s"] / r[den]["wall_median_s"]
            check(abs(r["ratio"] - q) <= 1e-12 * q, f"{where}: round {i + 1}'s ratio {r['ratio']} "
                                                    f"is not {q}")
        orders = [r["order"][0] for r in p["rounds"]]
        check(orders == [num, den], f"{where}: order of the rounds {orders}, not alternating")
        med = statistics.median(r["ratio"] for r in p["rounds"])
        check(p["ratio"] == med, f"{where}: ratio {p['ratio']} is not the rounds' median {med}")
        vals.append(p["ratio"] if t["kind"] == "ratio" else p[den]["wall_median_s"])
    want = min(vals) if t["kind"] == "ratio" else max(vals)
    check(t["value"] == want, f"row {t['id']}: value {t['value']} is not the worst point's {want}")
    if t["kind"] == "ratio":
        check(t["floor_met"] == (want >= t["floor"]), f"row {t['id']}: floor verdict wrong")


def main():
    clp, out, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(out, exist_ok=True)
    if mode == "planted-run":
        rc, text, doc = bench(clp, out, ["--local", "--only", "6,7"])
        check(rc == 1, f"bench exit {rc}, 1 expected (a planted mismatch in the rounds)")
        for i, t in rows(doc).items():
            check(t["status"] == "mismatch" and t["value"] is None and "round 1" in t["why"],
                  f"row {i}: {t['status']}: {t['why']}: the planted bit was not caught")
    elif mode in ("local", "planted"):
        rc, text, doc = bench(clp, out, ["--local"])
        if doc is None:
            sys.exit(f"FAIL: no --cr-json written (bench exit {rc})")
        rs = rows(doc)
        check(sorted(rs) == ["5", "6", "7"], f"rows {sorted(rs)}, 5-7 expected")
        for i in rs:
            check(any(line.startswith(f"{i} ") for line in text.splitlines()),
                  f"row {i} missing from the table")
        t7 = rs.get("7")
        if t7:
            check_measured(t7)
            labels = {p["label"] for p in t7["points"]}
            check(all("thread" in lb for lb in labels) and
                  {p["env"].get("CLPARITY_HOST_THREADS") for p in t7["points"]} >= {"2"},
                  f"row 7: points {labels} not at 2 threads and all cores")
        if mode == "local":
            check(rc == 0, f"bench exit {rc}, 0 expected")
            check_measured(rs["6"])
            t5 = rs["5"]
            if "--rusticl" in sys.argv[4:] or t5["status"] == "measured":
                check_measured(t5)
                check("rusticl" in (t5["device"] or {}).get("platform", "").lower(),
                      f"row 5 ran on {t5['device']}, not rusticl")
            else:
                check(t5["status"] == "not measured" and "no rusticl found" in t5["why"],
                      f"row 5: {t5['status']}: {t5['why']}")
        else:
            t6 = rs["6"]
            check(rc == 1, f"bench exit {rc}, 1 expected (a planted mismatch)")
            check(t6["status"] == "mismatch" and t6["value"] is None,
                  f"row 6: {t6['status']}, value {t6['value']}: the planted bit was not caught")
            check("MISMATCH" in text, "no MISMATCH in the table")
    elif mode == "nogpu":
        rc, text, doc = bench(clp, out, ["--only", "1,2,3,4", "--gpu", "no-such-device-34"])
        check(rc == 0, f"bench exit {rc}, 0 expected")
        rs = rows(doc)
        check(sorted(rs) == ["1", "1bw", "2", "3", "4a", "4b"], f"rows {sorted(rs)}")
        for i, t in rs.items():
            check(t["status"] == "not measured" and "no GPU found" in t["why"]
                  and t["value"] is None, f"row {i}: {t['status']}: {t['why']}")
        check(text.count("NOT MEASURED") >= 6, "the table does not say NOT MEASURED for each row")
    elif mode == "gpu-on-pocl":
        rc, text, doc = bench(clp, out, ["--only", "1,2,3,4", "--gpu", "portable"])
        check(rc == 0, f"bench exit {rc}, 0 expected")
        rs = rows(doc)
        for i in ("1", "2", "3"):
            check_measured(rs[i])
        bw = rs["1bw"]
        check(bw["status"] == "measured", f"row 1bw: {bw['status']}: {bw.get('why')}")
        if bw["status"] == "measured":
            for p, q in zip(bw["points"], rs["1"]["points"]):
                g = 4.0 * q["d"] ** 2 * q["layers"] / q["cl:cr"]["wall_median_s"] / 1e9
                check(abs(p["gbs"] - g) <= 1e-9 * g, f"1bw: {p['gbs']} GB/s, {g} expected")
                check(abs(p["fraction"] - g / bw["peak"]["gbs"]) <= 1e-9,
                      "1bw: the fraction is not GB/s over peak's")
            check(bw["value"] == min(p["fraction"] for p in bw["points"]), "1bw: not the worst")
        for i in ("4a", "4b"):
            t = rs[i]
            if t["status"] == "measured":
                check_measured(t)
            else:
                check(t["status"] == "not measured" and ("CLPARITY_CR_TUNE" in t["why"] or
                                                         "float32-only" in t["why"]),
                      f"row {i}: {t['status']}: {t['why']}")
    else:
        sys.exit(f"unknown mode {mode}")
    for f in FAILS:
        print(f"FAIL: {f}")
    print("check_bench_cr: " + ("FAILED" if FAILS else "passed"))
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()
