#!/usr/bin/env python3
"""check_timing.py JSON TEXT RULE [--floor-decides]: the timing statistics and the speed verdict of a run or
compare --json file (JSON) against the rule RULE ("fixed:N", or "adaptive:S" for --min-time S),
and the verdict lines in the printed report (TEXT).

- every result that ran: runs as the rule says (with --floor-decides, at least one adaptive
  result must have stopped at the time floor rather than at the 200-run cap) (fixed: exactly N; adaptive: at least 5 runs
  and S seconds measured, or the 200-run cap, or the 10 s limit), min <= p10 <= median <= p90
  <= max, the median's interval inside [min, max] around the median, mean inside [min, max],
  sd >= 0, noisy exactly when (p90 - p10) / median > 0.2;
- the speed verdict (run: "speed" at the top; compare: comparison.speed): the fastest has the
  smallest median, each ratio is median / fastest median, ratio_sd follows the robust
  propagation, within_noise follows its rule (fewer than 10 runs on either side, overlapping
  intervals, or ratio - 1 <= ratio_sd), and TEXT holds "  <fastest> ran" and one line
  "    <ratio> ± <sd> times faster than <name>" per other result, or where within noise no number:
  "    within noise of <name>: no verdict (<why>)", the why as the rule decided (one run has no
  spread; fewer than 10 runs; the spread larger than the difference; the intervals overlap).
"""
import json
import math
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def close(a, b, rel=1e-9):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def main():
    doc = json.load(open(sys.argv[1]))
    text = open(sys.argv[2], encoding="utf-8").read()
    kind, _, arg = sys.argv[3].partition(":")
    compare = "comparison" in doc
    stats = []  # (name, timing) in the verdict's order
    floor_met = 0  # adaptive results that stopped at the time floor, not at the 200-run cap
    for i, r in enumerate(doc["results"]):
        if "error" in r:
            stats.append(None)
            continue
        t = r["timing"]
        where = f"result {i} ({r['engine']})"
        n, meas = t["runs"], t["measured_s"]
        if kind == "fixed":
            if n != int(arg):
                fail(f"{where}: {n} runs, --runs {arg}")
        else:
            floor = float(arg)
            if not (n <= 200 and (n >= 5 or meas >= 10) and (meas >= floor or n == 200 or meas >= 10)):
                fail(f"{where}: {n} runs, {meas} s measured: breaks the adaptive rule (floor {floor} s)")
            floor_met += n < 200
        mn, p10, med, p90, mx = (t["wall_" + k] for k in ("min_s", "p10_s", "median_s", "p90_s", "max_s"))
        lo, hi, mean, sd = t["wall_ci_low_s"], t["wall_ci_high_s"], t["wall_mean_s"], t["wall_sd_s"]
        if not (mn <= p10 <= med <= p90 <= mx and mn <= lo <= med <= hi <= mx and mn <= mean <= mx and sd >= 0):
            fail(f"{where}: the statistics are out of order: {t}")
        if not (meas >= n * mn * (1 - 1e-9) and meas <= n * mx * (1 + 1e-9)):
            fail(f"{where}: measured_s {meas} is not the sum of {n} runs in [{mn}, {mx}]")
        if t["noisy"] != ((p90 - p10) / med > 0.2) or (t["noise_cause"] is None) == t["noisy"]:
            fail(f"{where}: noisy {t['noisy']} / cause {t['noise_cause']} for spread {(p90 - p10) / med}")
        stats.append(t)
    if kind == "adaptive" and len(sys.argv) > 4 and sys.argv[4] == "--floor-decides" and not floor_met:
        fail("every result stopped at the 200-run cap: the --min-time floor was not exercised")
    speed = doc["comparison"]["speed"] if compare else doc["speed"]
    timed = [t for t in stats if t]
    if len(timed) < 2:
        if speed is not None:
            fail("a speed verdict over fewer than two timed results")
        print("ok: fewer than two timed results, no verdict")
        return
    b = speed["fastest"]
    fast = stats[b]
    if fast is None or any(t and t["wall_median_s"] < fast["wall_median_s"] for t in stats):
        fail(f"result {b} is not the fastest")
    if f"\n  {speed['fastest_name']} ran\n" not in text:
        fail(f"the report lacks '  {speed['fastest_name']} ran'")
    if len(speed["others"]) != len(timed) - 1:
        fail(f"{len(speed['others'])} verdict lines for {len(timed)} timed results")
    rsd = lambda t: (t["wall_p90_s"] - t["wall_p10_s"]) / 2.5631 / t["wall_median_s"]
    for o in speed["others"]:
        t = stats[o["index"]]
        ratio = t["wall_median_s"] / fast["wall_median_s"]
        sd = ratio * math.sqrt(rsd(fast) ** 2 + rsd(t) ** 2)
        within = (fast["runs"] < 10 or t["runs"] < 10 or fast["wall_ci_high_s"] >= t["wall_ci_low_s"]
                  or ratio - 1 <= sd)
        if not close(o["ratio"], ratio) or not close(o["ratio_sd"], sd, 1e-6) or o["within_noise"] != within:
            fail(f"verdict on {o['name']}: {o} against ratio {ratio}, sd {sd}, within noise {within}")
        if not within:
            line = f"\n    {ratio:.2f} ± {sd:.2f} times faster than {o['name']}\n"
        elif fast["runs"] < 2 or t["runs"] < 2:
            line = f"\n    within noise of {o['name']}: no verdict (one run has no spread: run --runs 10 or more)\n"
        elif fast["runs"] < 10 or t["runs"] < 10:
            line = f"\n    within noise of {o['name']}: no verdict (fewer than 10 runs on a side)\n"
        elif ratio - 1 <= sd:
            line = f"\n    within noise of {o['name']}: no verdict (the spread is larger than the difference)\n"
        else:
            line = f"\n    within noise of {o['name']}: no verdict (the medians' intervals overlap)\n"
        if line not in text:
            fail(f"the report lacks the line {line.strip()!r}")
    print(f"ok: {len(timed)} timed results, {speed['fastest_name']} fastest, "
          f"{sum(o['within_noise'] for o in speed['others'])} within noise")


main()
