#!/usr/bin/env python3
"""report_wording.py CLPARITY SOURCE WORK SCENARIO: what the reports say, as a newcomer reads
them (issue 36), each scenario one ctest:

rounds   `sweep --rounds`' default is one number: `sweep --help` (both places), a sweep's JSON
         (`sweep.rounds` without --rounds) and docs/COMMANDS.md agree.
xover    the crossover summary on made-up times (test hook sweep-times:FILE, a doctored sweep
         JSON): never faster, always faster, a crossover at a point, within noise everywhere,
         and the issue's case (faster at one point outside the noise, within noise at the
         rest: the line names the faster one and that point, never "never" with a count read
         as a grid value).
verdict  a speed verdict that cannot be trusted prints no ratio: --runs 1 says one run has no
         spread, --runs 3 fewer than 10 runs; neither prints "times faster".
units    run's, compare's and sweep's tables print a 0.4 µs forward in ms with significant
         digits, never 0.000, and the JSON keeps seconds; run's "builds:" line gives a cached
         build's and its probe's milliseconds, never "0.000 s" (on PoCL).
diff     docs/COMMANDS.md's diff section says what diff prints: the saved folders record the
         timing, and diff of two saved folders prints the timing table and the verdict."""
import json
import os
import re
import shutil
import subprocess
import sys

CLP, SRC, WORK, SCENARIO = sys.argv[1:5]
ENV = dict(os.environ)
bad = []


def run(*args, env=None, ok=(0,)):
    r = subprocess.run([CLP, *args], env=env or ENV, capture_output=True, text=True)
    if r.returncode not in ok:
        sys.exit(f"FAIL: clparity {' '.join(args)} exited {r.returncode}:\n{r.stdout}{r.stderr}")
    return r.stdout


def rounds():
    help_text = run("sweep", "--help")
    said = set(re.findall(r"the grid is run (\d+) times over", help_text))
    said |= set(re.findall(r"--rounds R.*?\(default (\d+);", help_text, re.S))
    js = os.path.join(WORK, "rounds.json")
    run("sweep", "-d", "host", "--engines", "host:exact", "--vary", "batch", "--grid", "1",
        "--d-model", "8", "--layers", "1", "--min-time", "0.001", "--warmup", "0", "--json", js)
    ran = json.load(open(js))["sweep"]["rounds"]
    doc = open(os.path.join(SRC, "docs", "COMMANDS.md"), encoding="utf-8").read()
    documented = set(re.findall(r"`--rounds R` \(default (\d+)\)", doc))
    if len(said) != 1 or documented != said or str(ran) not in said:
        bad.append(f"--rounds' default: --help says {sorted(said)}, COMMANDS.md {sorted(documented)}, "
                   f"a sweep ran {ran}")
    print(f"--help {sorted(said)}, COMMANDS.md {sorted(documented)}, ran {ran}")


def stats(m, runs=20, rel=0.01, nround=2):
    """A tight, made-up timing around median m (seconds)."""
    lo, hi = m * (1 - rel), m * (1 + rel)
    return {"wall_median_s": m, "wall_min_s": lo, "wall_max_s": hi, "wall_mean_s": m,
            "wall_sd_s": m * rel / 2, "wall_p10_s": lo, "wall_p90_s": hi, "wall_ci_low_s": lo,
            "wall_ci_high_s": hi, "wall_ci_level": 0.95, "runs": runs, "measured_s": m * runs,
            "round_medians_s": [m] * nround}


def xover():
    base = os.path.join(WORK, "base.json")
    args = ["sweep", "-d", "host", "--engines", "host:exact,host:openblas", "--vary", "batch",
            "--grid", "1,2,4,8", "--d-model", "8", "--layers", "1", "--runs", "4", "--rounds", "2",
            "--warmup", "0"]
    run(*args, "--json", base)
    doc = json.load(open(base))
    a, b = doc["crossovers"][0]["a"]["engine"], doc["crossovers"][0]["b"]["engine"]
    na, nb = f"{a} on host", f"{b} on host"
    # per case: the times of a and b at the 4 points (None: within noise, equal times), and
    # what the pair's line must say
    T, S = 1e-3, 3e-3
    cases = {
        "a never faster": ([S, S, S, S], [T, T, T, T],
                           f"never ({nb} is faster at every one of 4 common points)"),
        "a always faster": ([T, T, T, T], [S, S, S, S],
                            f"never ({na} is faster at every one of 4 common points)"),
        "crossover at 4": ([T, T, S, S], [S, S, T, T],
                           f"on host, {b} beats {a} on host from batch ≥ 4 (after batch = 2)"),
        "within noise": ([None] * 4, [None] * 4,
                         "no verdict (equal or within noise at every one of the 4 common points)"),
        "one point outside the noise": (
            [None, S, None, None], [None, T, None, None],
            f"no crossover outside the noise ({nb} is faster at the 1 of 4 common points "
            "outside it: batch = 2; within noise at the other 3)"),
    }
    for name, (ta, tb, want) in cases.items():
        d = json.loads(json.dumps(doc))
        for r in d["results"]:
            if r["status"] != "ok":
                continue
            p = r["point"]["index"]
            mine = ta if r["engine"] == a else tb
            t = stats(mine[p], rel=0.2) if mine[p] else stats(T, rel=0.2)
            r["timing"].update(t)
        made = os.path.join(WORK, f"made-{name.replace(' ', '_')}.json")
        json.dump(d, open(made, "w"))
        env = dict(ENV, CLPARITY_TEST_HOOK=f"sweep-times:{made}")
        out = run(*args, env=env)
        summary = out[out.index("\ncrossovers"):]
        print(f"--- {name}:{summary}")
        if want not in summary:
            bad.append(f"{name}: the summary lacks {want!r}:\n{summary}")
        if name == "one point outside the noise" and "within noise at batch = 1, 4, 8\n" not in summary:
            bad.append(f"{name}: the within-noise points are not batch = 1, 4, 8:\n{summary}")


def verdict():
    for runs, why in (("1", "one run has no spread: run --runs 10 or more"),
                      ("3", "fewer than 10 runs on a side")):
        out = run("run", "-d", "host", "--engines", "host:exact,host:openblas", "--d-model", "8",
                  "--layers", "2", "--runs", runs, "--warmup", "0")
        verdict = out[out.index("\nspeed ("):]
        print(verdict)
        if "times faster" in verdict or re.search(r"\d ± \d", verdict):
            bad.append(f"--runs {runs}: a ratio printed where there is no verdict:\n{verdict}")
        if not re.search(r"^    within noise of \S+ on host: no verdict \(" + re.escape(why) + r"\)$",
                         verdict, re.M):
            bad.append(f"--runs {runs}: no line 'within noise of ...: no verdict ({why})':\n{verdict}")


def units():
    js = os.path.join(WORK, "units.json")
    out = run("run", "-d", "host", "--engines", "host:exact", "--d-model", "32", "--layers", "4",
              "--no-reference", "--json", js)
    row = next(line for line in out.splitlines() if line.startswith("host ") and "host:exact" in line)
    head = next(line for line in out.splitlines() if line.startswith("device"))
    med = json.load(open(js))["results"][0]["timing"]["wall_median_s"]
    print(head, row, f"JSON wall_median_s {med}", sep="\n")
    times = row.split()[2:5]
    if "median ms" not in head or med >= 1e-4:
        bad.append(f"run: the header is not in ms or the forward is not short ({med} s): {head}")
    for t in times:
        v = float(t.rstrip("~"))
        sig = re.sub(r"^[0.]*", "", t.rstrip("~"))
        if v == 0 or len(sig) < 3:
            bad.append(f"run: {t} is not a time in ms with 3 significant digits (median {med} s)")
    out = run("compare", "-d", "host", "--engines", "host:exact,host:openblas", "--d-model", "32",
              "--layers", "4")
    rows = [line for line in out.splitlines() if re.match(r"R\d+ +host +host:", line)]
    if len(rows) != 2:
        bad.append(f"compare: {len(rows)} result rows, not 2:\n{out}")
    for line in rows:
        t = line.split()[3]
        if re.fullmatch(r"0\.000~?", t) or not re.fullmatch(r"[0-9.]+~?", t):
            bad.append(f"compare: median ms {t!r}: {line}")
    print(*rows, sep="\n")
    out = run("sweep", "-d", "host", "--engines", "host:exact", "--vary", "batch", "--grid", "1",
              "--d-model", "32", "--layers", "4", "--runs", "3", "--warmup", "0")
    rows = [line for line in out.splitlines() if "host:exact" in line and "%" in line]
    for line in rows:
        for t in line.split()[5:8]:
            if re.fullmatch(r"0\.0+~?", t) or "e-" in t:
                bad.append(f"sweep: a time {t!r} that reads as zero or in e-notation: {line}")
    print(*rows, sep="\n")
    # the build and probe times of an OpenCL engine (a cache hit: a millisecond or so)
    run("run", "-d", "0", "--engines", "cl:own", "--d-model", "8", "--layers", "1", "--runs", "1")
    out = run("run", "-d", "0", "--engines", "cl:own", "--d-model", "8", "--layers", "1", "--runs", "1")
    builds = next((line for line in out.splitlines() if line.startswith("builds:")), "")
    print(builds)
    took = re.findall(r"(?:: |probes )(\d[\d.]*) (m?s)\b", builds)
    if len(took) != 2 or not re.search(r" m?s \(cache hit\)", builds):
        bad.append(f"run: no build time and probe time on the builds line: {builds!r}")
    for v, unit in took:  # below 0.1 s in ms, with significant digits: never "0.000 s"
        if float(v) == 0 or (unit == "s" and float(v) < 0.1):
            bad.append(f"run: a build or probe time {v} {unit}: {builds!r}")


def diff():
    doc = open(os.path.join(SRC, "docs", "COMMANDS.md"), encoding="utf-8").read()
    sec = doc[doc.index("## `clparity diff"):doc.index("## `clparity peak")]
    if "record no timing" in sec:
        bad.append("COMMANDS.md's diff section says the saved folders record no timing")
    if "record each result's timing" not in sec:
        bad.append("COMMANDS.md's diff section does not say that the folders record the timing")
    a, b = os.path.join(WORK, "a"), os.path.join(WORK, "b")
    for d, engines in ((a, "host:exact"), (b, "host:exact")):
        run("compare", "-d", "host", "--engines", engines, "--d-model", "16", "--layers", "2",
            "--runs", "3", "--save", d)
    out = run("diff", a, b)
    if "\ntiming: wall ms per forward" not in out or "\nspeed (median wall time" not in out:
        bad.append(f"diff prints no timing table or no verdict:\n{out}")
    print(out[out.index("\ntiming:"):] if "\ntiming:" in out else out)


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    {"rounds": rounds, "xover": xover, "verdict": verdict, "units": units, "diff": diff}[SCENARIO]()
    for b in bad:
        print("FAIL:", b)
    if not bad:
        print(f"ok: {SCENARIO}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
