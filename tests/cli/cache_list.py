#!/usr/bin/env python3
"""cache_list.py CLPARITY WORK: `cache list` names every file of the cache folder and fits 100
columns. In a fresh XDG_CACHE_HOME under WORK: a run on PoCL (program binaries, probe
verdicts), `peak -d host` (a peak-*.json), a tune.json and a file left by an interrupted write;
then every line of the table is at most 100 characters, every program binary shows by the first
12 hex digits of its name, every other file by its full name, the peak with its device and
date, and --json lists the other files with their kinds."""
import json
import os
import shutil
import subprocess
import sys


def main():
    clp, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ, XDG_CACHE_HOME=work)
    env.pop("CLPARITY_CACHE", None)

    def run(*args):
        r = subprocess.run([clp, *args], env=env, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"FAIL: clparity {' '.join(args)} exited {r.returncode}:\n{r.stdout}{r.stderr}")
        return r.stdout

    run("run", "-d", "0,host", "--engines", "cl:own,host:exact", "--d-model", "8", "--layers", "1",
        "--runs", "1", "--warmup", "0")
    run("peak", "-d", "host")
    folder = os.path.join(work, "clparity")
    with open(os.path.join(folder, "tune.json"), "w") as f:
        f.write("{}\n")
    with open(os.path.join(folder, "tune.json.tmp.12345"), "w") as f:
        f.write("{")
    text = run("cache", "list")
    print(text)
    bad = []
    for line in text.splitlines():
        if len(line) > 100 and not line.startswith("folder: "):
            bad.append(f"a line of {len(line)} characters: {line}")
    files = sorted(os.listdir(folder))
    bins = [f for f in files if f.endswith(".bin") and len(f) == 68]
    others = [f for f in files if f not in bins]
    if not bins or not any(f.startswith("peak-") for f in others):
        bad.append(f"the scenario made no binary or no peak file: {files}")
    for f in bins:
        if not any(line.startswith(f[:12] + " ") for line in text.splitlines()):
            bad.append(f"program binary {f} not listed")
    for f in others:
        if not any(line.startswith(f + " ") for line in text.splitlines()):
            bad.append(f"file {f} not listed")
    if not any(line.startswith("peak-") and "peak: host " in line and " 20" in line
               for line in text.splitlines()):
        bad.append("the peak file's line does not name host and the date")
    if f"total: {len(bins)} program binar" not in text or f"; {len(others)} other file" not in text:
        bad.append(f"the total does not count {len(bins)} binaries and {len(others)} other files")
    js = json.loads(run("cache", "list", "--json", "-"))
    kinds = {o["file"]: o["kind"] for o in js.get("other_files", [])}
    want = {f: ("peak" if f.startswith("peak-") else "temporary" if ".tmp" in f
                else "tune" if f == "tune.json" else "other") for f in others}
    if kinds != want:
        bad.append(f"--json other_files: {kinds}, expected {want}")
    if len(js["entries"]) != len(bins) or not all("options" in e and "driver" in e for e in js["entries"]):
        bad.append("--json entries lack the binaries or their details")
    for b in bad:
        print("FAIL:", b)
    if not bad:
        print(f"ok: {len(bins)} binaries and {len(others)} other files listed in 100 columns")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
