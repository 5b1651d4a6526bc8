#!/usr/bin/env python3
"""The vendor matrix of docs/VENDORS.md, measured on the devices the ICD loader finds here.

usage: tools/vendor_matrix.py CLPARITY OUT_DIR [--runs N]

For every OpenCL device (`clparity devices --probe --json`):
  - the probe's verdict on each of cl:own's kernel paths (the reference model's class);
  - the reference model (d=128 L=128 B=1) through cl:own, cl:clblast and cl:relaxed beside
    host:exact and host:f64 (`clparity compare`): cl:own's path and its bits against host:exact,
    each engine's max ULP and max_rel against host:f64, and cl:own's median time.
Writes OUT_DIR/matrix.md (a Markdown table, one row per device) and OUT_DIR/matrix.json (the
raw numbers), and prints the table. A simulator (Oclgrind) runs with --allow-slow and 1 run.
Exits 1 when a device's cl:own result is not host:exact's bits, 2 on a usage error.
"""
import json
import os
import subprocess
import sys


def run_json(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        return p.returncode, json.loads(p.stdout), p.stderr
    except json.JSONDecodeError:
        return p.returncode, None, p.stderr


def main(argv):
    if len(argv) < 3 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) > 1 and argv[1] in ("-h", "--help") else 2
    clp, out = argv[1], argv[2]
    runs = int(argv[argv.index("--runs") + 1]) if "--runs" in argv else 20
    os.makedirs(out, exist_ok=True)
    rc, devs, err = run_json([clp, "devices", "--probe", "--json", "-"])
    if devs is None:
        print(f"vendor_matrix: devices failed (exit {rc}): {err}", file=sys.stderr)
        return 1
    rows, raw, bad = [], [], 0
    for d in devs["devices"]:
        if d["kind"] != "opencl":
            continue
        sel = f'{d["platform_index"]}:{d["device_index"]}'
        passed = [p["path"] for p in d["own_paths"] if p["verdict"] == "passed"]
        rejected = [p for p in d["own_paths"] if p["verdict"] == "rejected"]
        na = [p["path"] for p in d["own_paths"] if p["verdict"] == "n/a"]
        cmd = [clp, "compare", "-d", sel, "-d", "host", "--engines",
               "cl:own,cl:clblast,cl:relaxed,host:exact,host:f64", "--json", "-"]
        cmd += ["--allow-slow", "--runs", "1", "--warmup", "1"] if d["simulator"] else \
            ["--runs", str(runs)]
        rc, cmp, err = run_json(cmd)
        entry = {"device": d, "compare_exit": rc, "compare_stderr": err[-2000:]}
        cells = {}
        if cmp:
            res = {r["engine"]: r for r in cmp["results"]}
            met = {r["engine"]: r for r in cmp["comparison"]["results"]}
            own = res.get("cl:own", {})
            path = own.get("own_path", {}).get("used", "?")
            base = met.get("cl:own", {}).get("metrics", {}).get("baseline_bitwise")
            cells["own"] = f"{path}, {100 * base:.0f} % =host:exact" if base is not None else path
            if base != 1:
                bad += 1
            t = own.get("timing", {}).get("wall_median_s")
            cells["time"] = f"{1e3 * t:.3f}" if t is not None else "n/a"
            for e in ("cl:clblast", "cl:relaxed"):
                m = met.get(e, {}).get("metrics")
                cells[e] = f'{m["max_ulp"]} / {m["max_rel"]:.2g}' if m else "failed"
            entry["compare"] = {"results": cmp["results"], "comparison": cmp["comparison"]}
        else:
            bad += 1
            cells = {"own": f"compare failed (exit {rc})", "time": "n/a", "cl:clblast": "n/a",
                     "cl:relaxed": "n/a"}
        raw.append(entry)
        by_why = {}
        for p in rejected:  # paths rejected for the same reason share a line
            by_why.setdefault(p["why"].replace(" (cached)", ""), []).append(p["path"])
        rej = "; ".join(f'{" ".join(ps)}: {w}' for w, ps in by_why.items()) or "none"
        rows.append(f'| {d["platform"]} {d["driver_version"]} | {d["name"]} | '
                    f'{" ".join(passed) or "none"} | {rej} | {" ".join(na) or "-"} | '
                    f'{cells["own"]} | {cells["time"]} | {cells["cl:clblast"]} | '
                    f'{cells["cl:relaxed"]} |')
    head = ("| implementation, driver | device | cl:own paths passed | rejected (why) | n/a | "
            "reference model: cl:own path, bits | cl:own ms | cl:clblast max ULP / max_rel "
            "vs host:f64 | cl:relaxed max ULP / max_rel |\n|---|---|---|---|---|---|---|---|---|")
    table = head + "\n" + "\n".join(rows) + "\n"
    with open(os.path.join(out, "matrix.md"), "w") as f:
        f.write(table)
    with open(os.path.join(out, "matrix.json"), "w") as f:
        json.dump({"provenance": devs.get("provenance"), "devices": raw}, f, indent=1)
    print(table)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
