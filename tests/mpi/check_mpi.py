#!/usr/bin/env python3
"""compare --mpi and train --mpi under `mpirun --allow-run-as-root --oversubscribe -np 3`, each
rank a machine of its own through tests/mpi/rank.sh: rank 0 sees PoCL, rank 1 Oclgrind, rank 2
no OpenCL platform at all (host only).

Usage: check_mpi.py CASE CLPARITY RANK_SH POCL_ICD OCLGRIND_ICD OUT_DIR MPIEXEC
Cases:
  bitwise   every rank's rows in one report, --expect bitwise passes for cl:own and host:exact,
            --json lists the three ranks; --save D, then `diff D` gives the same verdicts
  planted   one ULP planted in rank 2's host:exact (test hook corrupt-exact): exit 1, and
            the message names rank 2's row
  failed    -d 0:0 matches nothing on rank 2: its row says failed, exit 2 within 60 s
  version   rank 1 claims another version (test hook mpi-version): exit 2 naming both
  killed    rank 1 is killed mid-run (test hook mpi-die): mpirun ends non-zero within 60 s
  train     train --mpi: every rank's cl:own and host:exact in one per-step table, none
            diverging, exit 0
  train_planted   rank 1's cl:own moves one ULP (test hook train-ulp): exit 1 naming its row
Exit status 0 when the case holds, 1 otherwise."""
import json
import os
import re
import shutil
import subprocess
import sys
import time


def run(argv, env, timeout=90):
    t0 = time.monotonic()
    p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr, time.monotonic() - t0


def fail(msg, out="", err=""):
    print("FAIL:", msg)
    print("--- stdout\n" + out[-6000:] + "\n--- stderr\n" + err[-6000:])
    sys.exit(1)


def main():
    case, clp, rank_sh, pocl, oclgrind, out, mpiexec = sys.argv[1:8]
    os.makedirs(out, exist_ok=True)
    empty = os.path.join(out, "no-icd")
    os.makedirs(empty, exist_ok=True)
    env = dict(os.environ)
    env["CLPARITY_TEST_RANK_ICDS"] = ":".join([pocl, oclgrind, empty])
    env.pop("CLPARITY_TEST_RANK_HOOK", None)
    env.pop("CLPARITY_DEVICES", None)
    mpirun = [mpiexec, "--allow-run-as-root", "--oversubscribe", "-np", "3", rank_sh, clp]
    small = ["--d-model", "33", "--layers", "3", "--batch", "5", "--runs", "2", "--warmup", "1",
             "--allow-slow", "--engines", "cl:own,host:exact"]
    host = r"[^/\s]+#"  # rows are labelled host#rank/P:D where the ranks share a host name

    if case in ("bitwise", "planted"):
        if case == "planted":
            env["CLPARITY_TEST_RANK_HOOK"] = "2:corrupt-exact"
        save, js = os.path.join(out, "save"), os.path.join(out, "compare.json")
        shutil.rmtree(save, ignore_errors=True)
        os.makedirs(save)
        rc, o, e, _ = run(mpirun + ["compare", "--mpi", "-d", "all", *small, "--expect",
                                    "bitwise", "--save", save, "--json", js], env)
        if case == "planted":
            if rc != 1:
                fail(f"planted ULP on rank 2: exit {rc}, want 1", o, e)
            m = re.search(r"--expect bitwise failed for 1 result: (\S+) host:exact", e)
            if not m or not re.fullmatch(host + r"2/host", m.group(1)):
                fail("the failure does not name rank 2's host:exact row", o, e)
            print("ok: planted ULP on rank 2 fails --expect bitwise and names", m.group(1))
            return
        if rc != 0:
            fail(f"exit {rc}, want 0", o, e)
        rows = re.findall(r"^R\d+\s+(" + host + r"(\d)/\S+)\s.*?\s(cl:own|host:exact)\s", o, re.M)
        want = {("0", "cl:own"), ("0", "host:exact"), ("1", "cl:own"), ("1", "host:exact"),
                ("2", "host:exact")}
        got = {(r[1], r[2]) for r in rows}
        if got != want or len(rows) != 5:
            fail(f"rows {rows}, want one per rank x engine {sorted(want)}", o, e)
        if "Oclgrind" not in o or "pthread" not in o:
            fail("the report does not name PoCL's and Oclgrind's devices", o, e)
        if "bitwise  PASS" not in o:
            fail("no bitwise PASS", o, e)
        if not re.search(r"^ranks \(mpirun, 3 ranks on 1 host\):", o, re.M):
            fail("no table of the ranks", o, e)
        here = os.path.dirname(os.path.abspath(__file__))
        rcv, ov, ev, _ = run([sys.executable, os.path.join(here, "..", "validate_json.py"),
                              os.path.join(here, "..", "..", "docs", "compare.schema.json"), js],
                             env)
        if rcv != 0:
            fail("--json does not follow docs/compare.schema.json", ov, ev)
        d = json.load(open(js))
        ranks = d.get("ranks", [])
        if [r["status"] for r in ranks] != ["ok"] * 3 or [r["results"] for r in ranks] != [2, 2, 1]:
            fail(f"--json ranks: {ranks}", o, e)
        if len(d["comparison"]["results"]) != 5:
            fail("--json comparison does not hold the 5 results", o, e)
        idx = json.load(open(os.path.join(save, "index.json")))
        if sorted({r.get("rank") for r in idx["results"]}) != [0, 1, 2]:
            fail(f"--save index.json ranks: {[r.get('rank') for r in idx['results']]}", o, e)
        # Every rank's entries carry what rank 0's do: the timing and the checks, for diff.
        # (roundtrip: the OpenCL engines' weights round trip; not applicable on the host)
        untimed = [(r.get("rank"), r["engine"]) for r in idx["results"]
                   if "timing" not in r or "deterministic" not in r
                   or (r["engine"].startswith("cl:") and "roundtrip" not in r)]
        if untimed:
            fail(f"--save index.json: no timing, deterministic or roundtrip for {untimed}", o, e)
        rc2, o2, e2, _ = run([clp, "diff", save, save, "--expect", "bitwise"], env)  # diff takes two
        if rc2 != 0:
            fail(f"diff of the saved folder: exit {rc2}", o2, e2)

        def verdicts(text):
            v = dict(re.findall(r"^  (torch|clblast|bitwise)\s+(PASS|FAIL)", text, re.M))
            return v

        if verdicts(o) != verdicts(o2) or len(verdicts(o)) != 3:
            fail(f"verdicts differ: compare {verdicts(o)}, diff {verdicts(o2)}", o + o2, e2)
        if len(re.findall(r"^R\d+\s+A: ", o2, re.M)) != 5:
            fail("diff does not list the 5 results", o2, e2)
        print("ok: 3 ranks, 5 rows, bitwise PASS; diff of the saved folder:", verdicts(o2))
    elif case == "failed":
        rc, o, e, dt = run(mpirun + ["compare", "--mpi", "-d", "0:0", *small], env)
        if rc != 2 or dt > 60:
            fail(f"exit {rc} after {dt:.1f} s, want 2 within 60 s", o, e)
        if not re.search(r"^  rank 2 \S+\s+failed: clparity compare: device selector '0:0' "
                         r"matches no device", o, re.M):
            fail("rank 2's row does not say failed with its first stderr line", o, e)
        if not re.search(r"^R\d+\s+" + host + r"1/0:0 Oclgrind", o, re.M):
            fail("the ranks that ran are not reported", o, e)
        print(f"ok: rank 2 failed, exit 2 after {dt:.1f} s")
    elif case == "version":
        env["CLPARITY_TEST_RANK_HOOK"] = "1:mpi-version"
        rc, o, e, dt = run(mpirun + ["compare", "--mpi", "-d", "all", *small], env)
        if rc != 2 or not re.search(r"rank 0 \(\S+\) runs \S+ \(\S+\), rank 1 \(\S+\) runs "
                                    r"0\.0\.0-test \(0000000\)", e):
            fail(f"exit {rc}, want 2 with both versions named", o, e)
        print("ok: different versions refused:", e.strip().splitlines()[0])
    elif case == "killed":
        env["CLPARITY_TEST_RANK_HOOK"] = "1:mpi-die"
        try:
            rc, o, e, dt = run(mpirun + ["compare", "--mpi", "-d", "all", *small], env,
                               timeout=60)
        except subprocess.TimeoutExpired:
            fail("mpirun still ran after 60 s with a rank killed")
        if rc == 0:
            fail("exit 0 with a rank killed", o, e)
        print(f"ok: a killed rank ends mpirun with status {rc} after {dt:.1f} s")
    elif case in ("train", "train_planted"):
        if case == "train_planted":
            env["CLPARITY_TEST_RANK_HOOK"] = "1:train-ulp"
        rc, o, e, _ = run(mpirun + ["train", "--mpi", "-d", "all", "--d-model", "17", "--layers",
                                    "3", "--batch", "3", "--steps", "4", "--allow-slow"], env)
        if case == "train_planted":
            if rc != 1 or not re.search(r"cl:own on " + host + r"1/0:0 Oclgrind\S* Simulator "
                                        r"diverged from host:exact at step 1", e):
                fail(f"exit {rc}, want 1 naming rank 1's cl:own", o, e)
            print("ok: rank 1's planted ULP diverges at step 1 and is named")
            return
        if rc != 0:
            fail(f"exit {rc}, want 0", o, e)
        steps = re.findall(r"^(\d+)\s+(" + host + r"(\d)/\S+(?: \S+)*?)\s+(cl:own|host:exact|"
                           r"host:f64)\s+\S+\s+(\S+)\s+(\d+)\s+(\S+)", o, re.M)
        per_step = {}
        for s in steps:
            per_step.setdefault(s[0], set()).add((s[2], s[3]))
        want = {("0", "host:exact"), ("0", "host:f64"), ("0", "cl:own"), ("1", "host:exact"),
                ("1", "cl:own"), ("2", "host:exact")}
        if sorted(per_step) != ["1", "2", "3", "4"] or any(v != want for v in per_step.values()):
            fail(f"per-step rows {per_step}, want {sorted(want)} at steps 1-4", o, e)
        for s in steps:
            if s[3] != "host:f64" and (s[4] != "0" or s[5] != "0" or s[6] != "1.000000"):
                fail(f"row {s} differs from host:exact", o, e)
        print("ok: 6 results of 3 ranks per step, every exact one equal to host:exact")
    else:
        print("unknown case", case)
        sys.exit(2)


if __name__ == "__main__":
    main()
