#!/usr/bin/env python3
"""--save is atomic as a whole: a save killed (SIGKILL) at any moment leaves the folder
exactly as it was or entirely the new one, and the next save removes what the killed one
left behind.

Makes a save D (d=512, 16 layers, seed 1), then N times: starts `run --seed K --save D` with a
larger model (d=1024, 32 layers: 128 MiB of weights), kills it after a random delay drawn
over a measured run's duration (seeded: --seed, printed), and checks that D is
- "old": the same files, byte for byte, as a copy taken before, or
- "new": the complete save of seed K: exactly its files, x.npy's and weights.npy's SHA-256
  and every result's FNV-1a as index.json records them, and `clparity diff D D` exits 0.
Anything else ("MIX") fails. A save of the small model follows each kill: it must succeed
and leave no D.tmp.<pid>, D.old.<pid> beside D nor *.tmp.<pid> inside it.

--planted: the killed runs get CLPARITY_TEST_HOOK=save-nonatomic (the save writes into D
itself, one file after another); the test then passes only if it catches a MIX, which
shows that it can fail. --hook NAME: the hook for every save (e.g. save-no-exchange, the
two-rename fallback).

Usage: save_kill9.py CLPARITY WORKDIR [--iterations N] [--seed S] [--planted] [--hook NAME]
"""
import argparse
import filecmp
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time

import numpy as np

SMALL = ["--d-model", "512", "--layers", "16"]
LARGE = ["--d-model", "1024", "--layers", "32"]


def fnv1a(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def npy_data(path):
    a = np.load(path)
    return a.astype(a.dtype.newbyteorder("<")).tobytes()


def run_cmd(clp, seed, size, folder):
    return [clp, "run", "-d", "host", "--engines", "host:exact", "--runs", "1", "--warmup", "0",
            "--seed", str(seed), *size, "--save", folder]


def env_with(hook):
    env = dict(os.environ)
    if hook:
        env["CLPARITY_TEST_HOOK"] = hook
    else:
        env.pop("CLPARITY_TEST_HOOK", None)
    return env


def same_tree(a, b):
    """The same file names and the same bytes."""
    la, lb = sorted(os.listdir(a)), sorted(os.listdir(b))
    if la != lb:
        return False, f"files {la} vs {lb}"
    for f in la:
        if not filecmp.cmp(os.path.join(a, f), os.path.join(b, f), shallow=False):
            return False, f"{f} differs"
    return True, ""


def complete_save(clp, folder, seed, d):
    """D is the whole save of this seed and size, and agrees with its index.json."""
    try:
        index = json.load(open(os.path.join(folder, "index.json")))
    except (OSError, ValueError) as e:
        return False, f"index.json: {e}"
    m = index.get("model", {})
    if m.get("seed") != str(seed) or m.get("d") != d:
        return False, f"index.json is of seed {m.get('seed')} d={m.get('d')}"
    want = {"x.npy", "weights.npy", "index.json", index["reference"]["file"]}
    want |= {r["file"] for r in index["results"]}
    have = set(os.listdir(folder))
    if have != want:
        return False, f"files {sorted(have)}, index.json lists {sorted(want)}"
    for f, key in (("x.npy", "input_sha256"), ("weights.npy", "weights_sha256")):
        got = hashlib.sha256(npy_data(os.path.join(folder, f))).hexdigest()
        if got != m[key]:
            return False, f"{f}: SHA-256 {got} != index.json's {m[key]}"
    for r in [index["reference"], *index["results"]]:
        got = f"{fnv1a(npy_data(os.path.join(folder, r['file']))):016x}"
        if got != r["hash"]:
            return False, f"{r['file']}: hash {got} != index.json's {r['hash']}"
    res = subprocess.run([clp, "diff", folder, folder], capture_output=True, text=True)
    if res.returncode != 0:
        return False, f"diff D D exited {res.returncode}: {res.stderr.strip()}"
    return True, ""


def leftovers(parent, name, folder):
    out = [f for f in os.listdir(parent) if f.startswith(name + ".tmp.") or
           f.startswith(name + ".old.")]
    if os.path.isdir(folder):
        out += [f"{name}/{f}" for f in os.listdir(folder) if ".tmp." in f]
    return sorted(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("clparity")
    ap.add_argument("workdir")
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--planted", action="store_true")
    ap.add_argument("--hook", default="")
    a = ap.parse_args()
    clp = a.clparity
    work = os.path.abspath(a.workdir)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    folder, snap = os.path.join(work, "D"), os.path.join(work, "old")
    rng = random.Random(a.seed)
    kill_hook = "save-nonatomic" if a.planted else a.hook
    print(f"random seed {a.seed}; killed saves with CLPARITY_TEST_HOOK={kill_hook or '(none)'}")

    def good_save():
        res = subprocess.run(run_cmd(clp, 1, SMALL, folder), capture_output=True, text=True,
                             env=env_with(a.hook))
        if res.returncode != 0:
            sys.exit(f"FAIL: the save of the small model exited {res.returncode}: {res.stderr}")
        left = leftovers(work, "D", folder)
        if left:
            sys.exit(f"FAIL: a successful save left {left}")
        ok, why = complete_save(clp, folder, 1, 512)
        if not ok:
            sys.exit(f"FAIL: the small save is not complete: {why}")
        shutil.rmtree(snap, ignore_errors=True)
        shutil.copytree(folder, snap)

    good_save()
    # How long a save of the large model takes, start to end (the kills are drawn over it).
    t0 = time.monotonic()
    scratch = os.path.join(work, "scratch")
    subprocess.run(run_cmd(clp, 999, LARGE, scratch), capture_output=True, check=True,
                   env=env_with(a.hook))
    duration = time.monotonic() - t0
    shutil.rmtree(scratch)
    print(f"a save of the large model takes {duration:.2f} s; kills drawn over 0..{1.1 * duration:.2f} s")

    counts = {"old": 0, "new": 0, "MIX": 0}
    for it in range(1, a.iterations + 1):
        seed = 100 + it
        delay = rng.uniform(0.0, 1.1 * duration)
        p = subprocess.Popen(run_cmd(clp, seed, LARGE, folder), stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, env=env_with(kill_hook))
        time.sleep(delay)
        finished = p.poll() is not None
        if not finished:
            os.kill(p.pid, signal.SIGKILL)
        rc = p.wait()
        left = leftovers(work, "D", folder)
        same, why_old = same_tree(folder, snap) if os.path.isdir(folder) else (False, "no D")
        if same:
            state = "old"
        else:
            ok, why_new = complete_save(clp, folder, seed, 1024)
            state = "new" if ok else "MIX"
        counts[state] += 1
        how = "finished before the kill" if finished else "killed"
        print(f"iteration {it:2d}: seed {seed}, kill after {delay:.3f} s ({how}, exit {rc}): "
              f"D is {state}; left behind: {', '.join(left) if left else 'nothing'}")
        if state == "MIX":
            print(f"    not the old folder ({why_old}), not the new one ({why_new})")
            if a.planted:
                print(f"ok: the planted non-atomic save was caught at iteration {it}")
                return 0
            sys.exit("FAIL: D is neither the old folder nor the new one")
        good_save()  # must succeed and clear what the kill left
        if left:
            print(f"    the next save removed {len(left)} leftover(s)")
    print(f"{counts['old']} old, {counts['new']} new, {counts['MIX']} mixed")
    if a.planted:
        sys.exit("FAIL: the planted non-atomic save was never caught: this test cannot fail")
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
