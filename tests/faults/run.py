#!/usr/bin/env python3
"""Fault injection, SQLite's way: run clparity's commands with the N-th call of one class
failing (tests/faults/shim.c, LD_PRELOAD), for N = 1, 2, ... up to the number of calls that a
run without a fault makes, and check every run:

  - the exit status is 0, 2 or 3, never a signal, never 1 (a check failed), never a sanitizer's 86;
  - a failed run (status != 0) names a cause on stderr, and prints no PASS verdict on stdout
    (unless clparity says that stdout could not be written whole or that the report is
    incomplete, when stdout holds a part of it, or that stderr failed, which its exit check
    finds after every verdict); outside the guard-* scenarios (where the outputs are the
    user's) the cause never calls an output the user's (FOREIGN_CLAIM: every output there is a
    clean run's, so a failure blamed on a file "not clparity's" is a wrong cause, as a parse
    out of memory once was);
  - every output that existed before (made by a clean run with another seed) is byte for byte
    as it was, or the new one is complete (the same files as a clean run with this seed, each
    .npy byte-equal to that run's, each JSON loading, index.json's hashes matching its files);
    after a device fault in run or compare (status 3), complete but for the results that
    index.json lists under "errors" (their files absent: issue 21 keeps the other results);
    a run that exits 0 must leave the new outputs complete. A save folder holding some old and
    some new files is reported as "mix" (a non-atomic save), a temporary file left as "litter";
  - the program cache and the tune store: a run after the faulted one, with no fault, exits 0
    and gives the clean run's hash (anything wrong in the cache means a rebuild, never a wrong
    result), and the tune store is the old file or a complete new one.

Sampling: a pair (command, class) whose clean run makes C calls tries every N in 1..C when
C <= --quota; otherwise N = 1..quota/2, N = C, and the rest drawn with random.Random(--seed)
from the calls in between. The summary prints, per pair, C, the points tried and the
violations; the exit status is 1 when there is any violation (each one is listed with its
command, class, N and what was wrong), 2 on a usage error, 0 otherwise.

A run that exits 0 must also have printed its whole report: its stdout, with the point's
folder named <dir> and every number masked (timings differ from run to run), must have the
same lines as the fault-free run of the same command and class (N = 0, the count run, which
starts from the same outputs and cache). A report cut short with exit 0 is the bug that
clparity's exit check (tools/main.c, gnulib's close_stdout) prevents.

--plant: a planted defect; the harness must then find violations, and exits 0 only if it
does (a harness that cannot fail is a defect):
  truncate-rename             the shim truncates every file of ours that a rename puts in place;
  skip-stdout-check           CLPARITY_TEST_HOOK: clparity skips its exit check of stdout
                              (caught by the stdout and fflush classes: exit 0, report cut);
  save-ignore-exchange-error  CLPARITY_TEST_HOOK: --save takes a failed renameat2 swap for a
                              done one (caught by the renameat2 class: exit 0, old folder kept).
  guard-off                   CLPARITY_TEST_HOOK: the folder guard is off (caught by the
                              guard-* scenarios: the user's files replaced).

The folder guard (issue 32), scenarios guard-save (run --save), guard-train (train --save) and
guard-files (run --json, --csv, --out): a save onto a folder that holds an earlier save of
clparity's and a foreign file (notes.txt), or a file output onto a file of the user's, must,
under every fault, leave them byte for byte as they were and end with status 2 (3 only where
a failure was injected), never 0. --plant guard-off turns the guard off
(CLPARITY_TEST_HOOK=guard-off): the run then replaces them, which the harness must report.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time

MODEL = ["--d-model", "13", "--layers", "2", "--batch", "3"]
TIMES = ["--runs", "1", "--warmup", "0"]
FILE_CLASSES = ["malloc", "open", "write", "fsync", "rename", "renameat2", "stdout", "fflush"]
CL_CLASSES = ["cl-buffer", "cl-enqueue", "cl-build", "cl-finish"]
ALL_CLASSES = FILE_CLASSES + CL_CLASSES
POCL = ["-d", "0,host", "--engines", "cl:own,host:exact"]


def scenarios():
    """name -> (argv builder(seed, out), outputs {name: kind}, classes, cache mode)."""
    s = {}
    s["run-host"] = (lambda seed, o: ["run", "-d", "host", *MODEL, *TIMES, "--seed", seed,
                                      "--save", o["save"]], {"save": "dir"}, FILE_CLASSES, None)
    s["run-pocl"] = (lambda seed, o: ["run", *POCL, *MODEL, *TIMES, "--seed", seed, "--save",
                                      o["save"]], {"save": "dir"}, ALL_CLASSES, None)
    s["compare-host"] = (lambda seed, o: ["compare", "-d", "host", *MODEL, *TIMES, "--seed", seed,
                                          "--json", o["out.json"]], {"out.json": "json"},
                         FILE_CLASSES, None)
    s["compare-pocl"] = (lambda seed, o: ["compare", *POCL, *MODEL, *TIMES, "--seed", seed,
                                          "--json", o["out.json"]], {"out.json": "json"},
                         ALL_CLASSES, None)
    s["train-host"] = (lambda seed, o: ["train", "-d", "host", *MODEL, "--steps", "3", "--seed",
                                        seed, "--save", o["save"]], {"save": "dir"},
                       FILE_CLASSES, None)
    s["train-pocl"] = (lambda seed, o: ["train", *POCL, *MODEL, "--steps", "3", "--seed", seed,
                                        "--save", o["save"]], {"save": "dir"}, ALL_CLASSES, None)
    s["sweep-host"] = (lambda seed, o: ["sweep", "-d", "host", "--vary", "batch", "--grid",
                                        "1,3", "--d-model", "13", "--layers", "2", *TIMES,
                                        "--csv", o["out.csv"], "--json", o["out.json"]],
                       # the CSV's sidecar (out.csv.json) with it: without it an earlier
                       # out.csv cannot be told from the user's, and every point was refused
                       {"out.csv": "csv", "out.csv.json": "json", "out.json": "json"},
                       FILE_CLASSES, None)
    s["cache-cold"] = (lambda seed, o: ["run", "-d", "0", "--engines", "cl:own", *MODEL, *TIMES,
                                        "--seed", seed], {}, ALL_CLASSES, "cold")
    s["cache-warm"] = (lambda seed, o: ["run", "-d", "0", "--engines", "cl:own", *MODEL, *TIMES,
                                        "--seed", seed], {}, ALL_CLASSES, "warm")
    s["tune"] = (lambda seed, o: ["tune", "-d", "0", "--quick", *TIMES], {}, ALL_CLASSES, "tune")
    s["guard-save"] = (lambda seed, o: ["run", "-d", "host", *MODEL, *TIMES, "--seed", seed,
                                        "--save", o["save"]], {"save": "dir"}, FILE_CLASSES,
                       "guard")
    s["guard-train"] = (lambda seed, o: ["train", "-d", "host", *MODEL, "--steps", "2", "--seed",
                                         seed, "--save", o["save"]], {"save": "dir"},
                        FILE_CLASSES, "guard")
    s["guard-files"] = (lambda seed, o: ["run", "-d", "host", "--engines", "host:exact", *MODEL,
                                         *TIMES, "--seed", seed, "--json", o["out.json"], "--csv",
                                         o["out.csv"], "--out", o["out.npy"]],
                        {"out.json": "json", "out.csv": "csv", "out.npy": "npy"}, FILE_CLASSES,
                        "guard")
    return s


OLD_SEED, NEW_SEED = "11", "12"
# The guard's verdicts on a file of the user's (runtime/files/owned.c, savedir.c).
FOREIGN_CLAIM = (r"is not clparity's|clparity did not write it|cannot be told from a file of "
                 r"clparity's|was changed since clparity wrote it|is not listed in its index\.json")
SHIM_PLANTS = ["truncate-rename"]
HOOK_PLANTS = ["skip-stdout-check", "save-ignore-exchange-error", "guard-off"]
OLD_TUNE_KEY = "faults-harness|old entry|kept"
# The guard-* scenarios: a file of the user's in an earlier save's folder, and files of the
# user's where a file output goes.
FOREIGN = ("notes.txt", b"a file of the user's, beside an earlier save\n")
FOREIGN_FILE = {"json": b'{"name": "my-web-app"}\n', "csv": b"name,score\nada,1\n",
                "npy": b"\x93NUMPY\x01\x00 not one of clparity's arrays\n"}


def check_guarded(before, now, rc, injected):
    """The guard-* scenarios: each output ({name: snapshot}) left as it was, and the status 2
    (3 only for an injected failure), never 0."""
    bad = []
    for k in before:
        if now[k] != before[k]:
            changed = sorted(r for r in set(before[k]) | set(now[k])
                             if before[k].get(r) != now[k].get(r))
            bad.append(f"guard: {k}, holding a file of the user's, changed "
                       f"({', '.join(r or k for r in changed[:4])})")
    if rc == 0:
        bad.append(f"guard: exit 0 over files of the user's ({', '.join(before)}; want 2)")
    elif rc == 3 and not injected:
        bad.append("guard: exit 3 with no failure injected (want 2)")
    return bad


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def fnv1a(data):
    h = 0xCBF29CE484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def npy_payload(path):
    """The array's bytes after the .npy header (no numpy needed: the header says its length)."""
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:6] != b"\x93NUMPY":
        raise ValueError("not an .npy file")
    major = raw[6]
    hl = int.from_bytes(raw[8:10] if major == 1 else raw[8:12], "little")
    start = (10 if major == 1 else 12) + hl
    header = raw[start - hl:start].decode("latin1")
    shape = tuple(int(v) for v in re.search(r"'shape': \(([^)]*)\)", header).group(1).split(",")
                  if v.strip())
    size = int(re.search(r"'descr': '[<>|]?[a-z](\d+)'", header).group(1))
    n = 1
    for v in shape:
        n *= v
    if len(raw) - start != n * size:
        raise ValueError(f"{len(raw) - start} bytes of data, the header says {n * size}")
    return raw[start:]


def snapshot(path):
    """{relative name: bytes} of a file or of every file under a folder."""
    if os.path.isfile(path):
        return {"": open(path, "rb").read()}
    out = {}
    for root, _, files in os.walk(path):
        for f in files:
            p = os.path.join(root, f)
            out[os.path.relpath(p, path)] = open(p, "rb").read()
    return out


def failed_results(index_json):
    """(device, engine) of each result that index.json lists under "errors": a device fault in
    run or compare ends that result with its error and keeps the others (status 3)."""
    try:
        return {(e["device"], e["engine"]) for e in json.loads(index_json).get("errors", [])}
    except (ValueError, KeyError, TypeError, AttributeError):
        return set()


def check_dir_complete(path, ref, partial=False):
    """Problems of a save folder against the clean run's (ref: snapshot); [] when complete.
    partial (a failed run): the results that its index.json lists under "errors" may lack
    their files."""
    bad = []
    names = set(snapshot(path))
    want = set(ref)
    index = os.path.join(path, "index.json")
    failed = failed_results(open(index, "rb").read()) if partial and os.path.exists(index) else set()
    if failed and "index.json" in ref:
        want -= {r["file"] for r in json.loads(ref["index.json"]).get("results", [])
                 if (r.get("device"), r.get("engine")) in failed}
    if names != want:
        bad.append(f"files {sorted(names ^ want)} differ from a clean run's")
    for name in sorted(names & set(ref)):
        p = os.path.join(path, name)
        if name.endswith(".npy"):
            try:
                npy_payload(p)
            except (ValueError, AttributeError, IndexError) as e:
                bad.append(f"{name}: {e}")
                continue
            if open(p, "rb").read() != ref[name]:
                bad.append(f"{name} differs from a clean run's")
        elif name.endswith(".json"):
            bad += check_json_complete(p, ref[name], partial)
    if not bad and os.path.exists(index):
        idx = json.load(open(index))
        for r in idx.get("results", []) + ([idx["reference"]] if "reference" in idx else []):
            if "hash" in r and "file" in r and f"{fnv1a(npy_payload(os.path.join(path, r['file']))):016x}" != r["hash"]:
                bad.append(f"{r['file']}: hash differs from index.json's")
    return bad


def check_json_complete(path, ref, partial=False):
    """partial (a failed run): index.json may move failed results to "errors"."""
    try:
        d = json.load(open(path))
    except (ValueError, OSError) as e:
        return [f"{os.path.basename(path)}: {e}"]
    r = json.loads(ref)
    bad = []
    extra = {"errors"} if partial and isinstance(d.get("errors"), list) else set()
    if set(d) - extra != set(r):
        bad.append(f"{os.path.basename(path)}: keys {sorted((set(d) - extra) ^ set(r))} differ from a clean run's")
    for k in ("results", "rows", "points", "steps"):
        n = len(d.get(k, [])) + (len(d["errors"]) if k == "results" and extra else 0)
        if isinstance(r.get(k), list) and n != len(r[k]):
            bad.append(f"{os.path.basename(path)}: {n} {k}, a clean run has {len(r[k])}")
    return bad


def check_csv_complete(path, ref):
    data = open(path, "rb").read()
    if data.count(b"\n") != ref.count(b"\n") or not data.endswith(b"\n"):
        nl = b"\n"
        return [f"{os.path.basename(path)}: {data.count(nl)} lines, a clean run has {ref.count(nl)}"]
    return []


def kind_of(b):
    """A violation's kind, for the summary."""
    if b.startswith("mix"):
        return "mix: a save folder with old and new files (a non-atomic --save)"
    if b.startswith("exit 0 with a cut report"):
        return "exit 0 with stdout not the whole report"
    if b.startswith("exit 0") and re.search(r"keys \[|results, a clean run", b):
        return "exit 0 with a JSON file missing parts (a cJSON_Add* whose allocation failed, unchecked)"
    return b.split(":")[0]


def is_temporary(name):
    """clparity's temporary names: ".<name>.clparity-tmp.<pid>" (and a save's
    ".<name>.clparity-old.<pid>"), the program cache's "<key>.bin.tmp.<pid>"."""
    return ".tmp." in name or ".clparity-tmp." in name or ".clparity-old." in name


def report_lines(out, d):
    """stdout as the stdout check compares it: the point's folder as <dir>, durations as <t>
    (their unit follows their size), numbers as #, runs of blanks as one (a column's width
    follows its numbers), in the speed section, which orders the results by time, each result
    (engine and device) as <result>, and the cache's and kernel path's details of the builds:
    and ran: lines left out."""
    lines, speed, ran = [], False, False
    for l in out.replace(d, "<dir>").splitlines():
        # The speed section ranks the results by their times: which comes first varies.
        speed = l.startswith("speed (") or (speed and l.strip() != "")
        # Each result there is named "<engine> on <device>": a host and a PoCL result may
        # swap places, so the device is masked with the engine (report.c's speed lines).
        if speed:
            l = re.sub(r"^(\s+)\S.* ran$", r"\1<result> ran", l)
            l = re.sub(r"within noise of .*?: no verdict", "within noise of <result>: no verdict",
                       l)
            l = re.sub(r"times faster than .*$", "times faster than <result>", l)
        # What the program cache did, the kernel path taken and the paths rejected: a fault
        # may change them and the run still be right (a bad entry rebuilt, a path whose build
        # failed passed over); the run after the point checks the cache, the hashes the result.
        if re.match(r"\s+rejected ", l):
            continue
        l = re.sub(r" \(cache .*", " (cache ...)", l)
        ran = l.startswith("ran:") or (ran and l.startswith(" "))
        if ran:
            l = re.sub(r"^((ran:)?\s+cl:[a-z0-9]+ on [^:]*):.*", r"\1: ...", l)
        # A peak that could not be read from its cache is measured again: either is whole, and
        # a peak measured now may be noisy where the cached one was not (or the reverse).
        l = re.sub(r"\((measured now|cached)\b[^)]*\)?", "(<peak>)", l)
        # A duration's unit follows its size ("0.312 ms", "1.204 s": cp_fmt_secs), which a
        # fault may change (a build from scratch where the cache had it).
        l = re.sub(r"\d+(\.\d+)?([eE][+-]?\d+)? (ms|s)\b", "<t>", l)
        lines.append(re.sub(r"\s+", " ", re.sub(r"\d+(\.\d+)?([eE][+-]?\d+)?", "#", l)).strip())
    return lines


def litter(path):
    out = []
    for root, _, files in os.walk(path):
        out += [os.path.relpath(os.path.join(root, f), path) for f in files if is_temporary(f)]
    return out


class Harness:
    def __init__(self, a):
        self.a = a
        self.scen = scenarios()
        self.work = os.path.abspath(a.work)
        self.results = {}  # (scenario, class) -> [calls, tried, violations]
        self.violations = []
        self.tracer_retries = 0
        self.index = 0
        self.reports = {}  # (scenario, class) -> the count run's stdout (report_lines)

    def env(self, cache, fclass=None, n=0, report=None, asan=False):
        e = dict(os.environ)
        for k in list(e):
            if k.startswith("CLPARITY_") or k == "LD_PRELOAD":
                del e[k]
        e.update({"OCL_ICD_VENDORS": self.a.icd, "XDG_CACHE_HOME": cache,
                  "POCL_CACHE_DIR": os.path.join(self.work, "pocl-cache"),
                  "CLPARITY_HOST_THREADS": "1"})
        if fclass:
            e.update({"LD_PRELOAD": self.a.shim, "CLPARITY_FAULT_CLASS": fclass,
                      "CLPARITY_FAULT_N": str(n), "CLPARITY_FAULT_REPORT": report})
            if self.a.plant in SHIM_PLANTS:
                e["CLPARITY_FAULT_PLANT"] = self.a.plant
            elif self.a.plant in HOOK_PLANTS:
                e["CLPARITY_TEST_HOOK"] = self.a.plant
            # An ASan build (here, or in .ci/run's asan job) accepts the shim before its runtime.
            if e.get("ASAN_OPTIONS"):
                e["ASAN_OPTIONS"] += ":verify_asan_link_order=0"
        if asan:
            # As .ci/run's asan job: any report is fatal with status 86; the shim comes before
            # ASan's runtime in the library list, which ASan accepts with verify_asan_link_order=0.
            e["ASAN_OPTIONS"] = ("detect_leaks=1:halt_on_error=1:exitcode=86:"
                                 "detect_stack_use_after_return=1:verify_asan_link_order=0")
            e["UBSAN_OPTIONS"] = "halt_on_error=1:print_stacktrace=1:exitcode=86"
            e["LSAN_OPTIONS"] = f"suppressions={self.a.lsan_supp}:print_suppressions=0"
        return e

    def run(self, argv, env, cwd, asan=False):
        exe = self.a.asan_clparity if asan else self.a.clparity
        for _ in range(3):
            p = subprocess.run([exe, *argv], env=env, cwd=cwd, capture_output=True,
                               timeout=self.a.timeout * (4 if asan else 1))
            err = p.stderr.decode(errors="replace")
            # LeakSanitizer's tracer can crash on PoCL's worker threads at exit: a failure of
            # the tool, not a finding (tools/ci/lsan_tracer_crashes.py); such a run goes again.
            tracer = ("LeakSanitizer has encountered a fatal error" in err
                      or "Tracer caught signal" in err)
            if not (asan and tracer and not re.search(
                    r"ERROR: (AddressSanitizer|LeakSanitizer: detected)|runtime error:", err)):
                break
            self.tracer_retries += 1
        return p.returncode, p.stdout.decode(errors="replace"), err

    def outputs(self, base, outs):
        return {k: os.path.join(base, k) for k in outs}

    def prepare(self, name):
        """Clean runs: the old outputs (OLD_SEED), the new outputs' reference (NEW_SEED), the
        cache template; returns the scenario's state."""
        build, outs, classes, mode = self.scen[name]
        d = os.path.join(self.work, name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        st = {"dir": d, "cache": os.path.join(d, "cache-template")}
        os.makedirs(st["cache"])
        old, new = os.path.join(d, "old"), os.path.join(d, "new")
        os.makedirs(old)
        os.makedirs(new)
        for seed, base in ((OLD_SEED, old), (NEW_SEED, new)):
            try:
                rc, out, err = self.run(build(seed, self.outputs(base, outs)),
                                        self.env(st["cache"]), d)
            except subprocess.TimeoutExpired:
                sys.exit(f"faults: the clean run of {name} did not end within {self.a.timeout} s "
                         "(a machine too loaded? --timeout sets the limit)")
            if rc != 0:
                sys.exit(f"faults: the clean run of {name} failed ({rc}): {err.strip()[:500]}")
        st["old"] = {k: snapshot(os.path.join(old, k)) for k in outs}
        for k, kind in outs.items() if mode == "guard" else []:
            if kind == "dir":  # the user's file in the earlier save's folder
                st["old"][k][FOREIGN[0]] = FOREIGN[1]
            else:  # the user's file where the output goes
                st["old"][k] = {"": FOREIGN_FILE[kind]}
        st["new"] = {k: snapshot(os.path.join(new, k)) for k in outs}
        st["hash"] = self.result_hashes(out)
        if mode == "tune":
            store = os.path.join(st["cache"], "clparity", "tune.json")
            j = json.load(open(store))
            j[OLD_TUNE_KEY] = {"params": "rc=16"}
            with open(store, "w") as f:
                json.dump(j, f, indent=2)
            st["tune_old"] = open(store, "rb").read()
            st["tune_keys"] = set(j)
        return st

    @staticmethod
    def result_hashes(out):
        return sorted(re.findall(r"\b[0-9a-f]{16}\b", "\n".join(
            l for l in out.splitlines() if re.search(r"\b(cl|host):[a-z0-9]+\b", l))))

    def fresh_cache(self, st, mode, dst):
        if mode == "cold":
            os.makedirs(dst)
        else:
            shutil.copytree(st["cache"], dst, symlinks=True)

    def point(self, name, st, fclass, n, asan=False):
        """Runs one failure point; returns (calls, injected, [problems])."""
        build, outs, classes, mode = self.scen[name]
        d = os.path.join(st["dir"], f"{fclass}-{n}")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        cache = os.path.join(d, "cache")
        self.fresh_cache(st, mode, cache)
        paths = self.outputs(d, outs)
        for k, kind in outs.items():
            for rel, data in st["old"][k].items():
                p = os.path.join(paths[k], rel) if rel else paths[k]
                os.makedirs(os.path.dirname(p), exist_ok=True)
                with open(p, "wb") as f:
                    f.write(data)
        report = os.path.join(d, "report")
        env = self.env(cache, fclass, n, report, asan)
        if mode == "cold":
            # Issue 32: on a cold cache cl:own's builds, stores and probe runs would move to the
            # setup child, which runs without the shim; here they stay in this process
            env["CLPARITY_ISOLATE"] = "off"
        try:
            rc, out, err = self.run(build(NEW_SEED, paths), env, d, asan)
        except subprocess.TimeoutExpired:
            return 0, False, [f"no end after {self.a.timeout} s"]
        bad = []
        calls, injected = 0, False
        try:
            _, c, inj = open(report).read().split()
            calls, injected = int(c), inj == "1"
        except (OSError, ValueError):
            if rc >= 0:
                bad.append(f"no report from the shim (exit {rc})")
        if rc < 0:
            bad.append(f"killed by signal {-rc}: {err.strip()[-300:]}")
        elif rc == 86 or re.search(r"ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:", err):
            bad.append(f"sanitizer report: {err.strip()[-600:]}")
        elif rc not in (0, 2, 3):
            bad.append(f"exit {rc}, not 0, 2 or 3: {err.strip()[-300:]}")
        if rc != 0 and not re.search(r"[A-Za-z]{3,}", err):
            bad.append(f"exit {rc} with no cause on stderr ({err.strip()[:100]!r})")
        # Outside the guard-* scenarios every output that exists is clparity's (a clean run's):
        # a failure blamed on the user's files is a wrong cause (a parse out of memory taken for
        # a file that is not clparity's).
        m = re.search(FOREIGN_CLAIM, err) if mode != "guard" else None
        if rc != 0 and m:
            bad.append(f"a wrong cause: clparity's own file called the user's ({m.group(0)!r}): "
                       f"{err.strip()[-300:]}")
        # A report that clparity says it could not write whole (or print whole: out of memory
        # for the timing table) may hold a PASS of its part; a
        # failed stderr, checked at exit, comes after every verdict.
        if rc != 0 and re.search(r"\bPASS\b", out) and not re.search(
                r"cannot write (the report )?to std(out|err)|the report is incomplete", err):
            bad.append(f"exit {rc}, yet stdout says PASS")
        if mode == "guard":
            bad += check_guarded(st["old"], {k: snapshot(p) if os.path.exists(p) else {}
                                             for k, p in paths.items()}, rc, injected)
        # The whole report after exit 0: the count run's (N = 0) lines, numbers masked.
        lines = report_lines(out, d)
        if n == 0 and rc == 0:
            self.reports[(name, fclass)] = lines
        elif rc == 0 and (name, fclass) in self.reports:
            ref = self.reports[(name, fclass)]
            if lines != ref:
                i = next((k for k, (a, b) in enumerate(zip(lines, ref)) if a != b),
                         min(len(lines), len(ref)))
                bad.append(f"exit 0 with a cut report: stdout has {len(lines)} lines, the "
                           f"fault-free run {len(ref)}; line {i + 1}: "
                           f"{(lines[i] if i < len(lines) else '(none)')[:80]!r}, want "
                           f"{(ref[i] if i < len(ref) else '(none)')[:80]!r}")
        for k, kind in ({} if mode == "guard" else outs).items():
            p = paths[k]
            now = snapshot(p) if os.path.exists(p) else {}
            if now == st["old"][k] and rc != 0:
                continue
            if kind == "dir":
                probs = check_dir_complete(p, st["new"][k], partial=rc == 3)
                olds = sorted(r for r in now if st["old"][k].get(r) == now[r])
                news = sorted(r for r in now if st["new"][k].get(r) == now[r] and r not in olds)
                if probs and olds and (news or any(r not in olds for r in now)):
                    bad.append(f"mix (non-atomic save): {k}/ holds {len(olds)} old files "
                               f"({', '.join(olds[:4])}) and {len(now) - len(olds)} new or other "
                               f"({', '.join(sorted(set(now) - set(olds))[:4])})")
                    continue
            elif kind == "json":
                probs = check_json_complete(p, st["new"][k].get("", b"{}"), partial=rc == 3)
            else:
                probs = check_csv_complete(p, st["new"][k].get("", b""))
            if now == st["old"][k]:
                probs = [f"{k}: exit 0 but the old file is still there"]
            for q in probs:
                bad.append(f"{'exit 0' if rc == 0 else 'failed run'}: {k}: neither the old "
                           f"output nor a complete new one: {q}")
            for lp in litter(p) if os.path.isdir(p) else []:
                bad.append(f"litter: {k}/{lp} left behind")
        for k in outs:
            for lp in [f for f in os.listdir(d) if is_temporary(f)]:
                bad.append(f"litter: {lp} left behind")
            break
        if mode in ("cold", "warm", "tune"):
            for lp in litter(os.path.join(cache, "clparity")) if os.path.isdir(
                    os.path.join(cache, "clparity")) else []:
                bad.append(f"litter in the cache: {lp}")
        if mode == "tune":
            store = os.path.join(cache, "clparity", "tune.json")
            data = open(store, "rb").read() if os.path.exists(store) else b""
            if data != st["tune_old"]:
                try:
                    keys = set(json.loads(data))
                    if not st["tune_keys"] <= keys:
                        bad.append(f"tune store lost entries {sorted(st['tune_keys'] - keys)}")
                except ValueError as e:
                    bad.append(f"tune store neither the old one nor complete: {e}")
            elif rc == 0:
                bad.append("tune exit 0 but the store is the old one")
        if mode in ("cold", "warm", "tune") and not self.a.plant:
            # The cache as the faulted run left it: a clean run must still give the clean hash.
            vb = build(NEW_SEED, paths) if mode != "tune" else scenarios()["cache-warm"][0](NEW_SEED, {})
            rc2, out2, err2 = self.run(vb, self.env(cache), d)
            h2 = self.result_hashes(out2)
            want = st["hash"] if mode != "tune" else None
            if rc2 != 0 or (want is not None and h2 != want):
                bad.append(f"the run after it, with no fault, on the cache it left: exit {rc2}, "
                           f"hashes {h2} (clean: {want}): {err2.strip()[:300]}")
        if not bad and not self.a.keep:
            shutil.rmtree(d, ignore_errors=True)
        else:  # what the point printed, for inspection
            for f, text in (("stdout.txt", out), ("stderr.txt", err)):
                with open(os.path.join(d, f), "w") as fh:
                    fh.write(text)
        return calls, injected, bad

    def quota(self, name):
        # tune times its settings (about 1.5 s a run here): a third of the quota
        return max(2, self.a.quota // 3) if name == "tune" else self.a.quota

    def sample(self, name, fclass, calls):
        q = self.quota(name)
        if calls <= q:
            return list(range(1, calls + 1))
        first = list(range(1, q // 2 + 1))
        rng = random.Random(f"{self.a.seed}:{name}:{fclass}")
        rest = rng.sample(range(q // 2 + 1, calls), q - len(first) - 1)
        return first + sorted(rest) + [calls]

    def main(self):
        names = self.a.scenarios.split(",") if self.a.scenarios else list(self.scen)
        for n in names:
            if n not in self.scen:
                print(f"faults: unknown scenario '{n}' (have {', '.join(self.scen)})", file=sys.stderr)
                return 2
        t0 = time.time()
        pool = concurrent.futures.ThreadPoolExecutor(self.a.jobs)
        for name in names:
            st = self.prepare(name)
            classes = [c for c in self.scen[name][2]
                       if not self.a.classes or c in self.a.classes.split(",")]
            # Count runs (N = 0): how many calls of each class a run makes with no fault.
            counts = dict(zip(classes, pool.map(lambda c: self.point(name, st, c, 0), classes)))
            futs = []
            for c in classes:
                calls, _, bad = counts[c]
                self.results[(name, c)] = [calls, 0, 0, 0, 0]
                for b in bad:
                    self.violations.append((name, c, 0, b))
                    self.results[(name, c)][2] += 1
                for n in self.sample(name, c, calls):
                    self.index += 1
                    asan = bool(self.a.asan_clparity) and self.index % self.a.asan_every == 0
                    futs.append((c, n, asan, pool.submit(self.point, name, st, c, n, asan)))
            for c, n, asan, f in futs:
                try:
                    calls, injected, bad = f.result()
                except Exception as e:  # a checker that breaks is a finding too, never a pass
                    calls, injected, bad = 0, True, [f"checker error: {type(e).__name__}: {e}"]
                r = self.results[(name, c)]
                r[1] += 1
                r[3] += 0 if injected else 1
                r[4] += 1 if asan else 0
                for b in bad:
                    self.violations.append((name, c, n, b + (" [ASan build]" if asan else "")))
                r[2] += len(bad)
            print(f"faults: {name} done at {time.time() - t0:.0f} s", flush=True)
        pool.shutdown()
        return self.summary(time.time() - t0)

    def summary(self, secs):
        print(f"\nfaults: sampling: per (command, class), with C the calls of a run with no fault "
              f"and Q = {self.a.quota} (tune: {self.quota('tune')}): every N = 1..C when C <= Q; "
              f"else N = 1..Q/2, N = C, and Q/2 - 1 more drawn from the rest with "
              f"random.Random('{self.a.seed}:<command>:<class>')")
        if self.a.asan_clparity:
            print(f"faults: every {self.a.asan_every}th point runs {self.a.asan_clparity} (ASan + "
                  f"UBSan + LeakSanitizer, reports fatal with status 86); LeakSanitizer's tracer "
                  f"crashed and its run went again {self.tracer_retries} times")
        print(f"{'command':14s} {'class':11s} {'calls':>6s} {'tried':>6s} {'asan':>5s} {'violations':>10s}")
        total = asan = 0
        per_class = {}
        for (name, c), (calls, tried, nbad, noinj, na) in self.results.items():
            total += tried
            asan += na
            per_class[c] = [x + y for x, y in zip(per_class.get(c, [0, 0, 0]), [tried, na, nbad])]
            note = f"  ({noinj} ran with no failure injected)" if noinj else ""
            print(f"{name:14s} {c:11s} {calls:6d} {tried:6d} {na:5d} {nbad:10d}{note}")
        print("per class:")
        for c, (tried, na, nbad) in per_class.items():
            print(f"{'':14s} {c:11s} {'':6s} {tried:6d} {na:5d} {nbad:10d}")
        print(f"total: {total} failure points ({asan} under ASan) in {secs:.0f} s, "
              f"{len(self.violations)} violations")
        kinds = {}
        for name, c, n, b in self.violations:
            print(f"VIOLATION {name} {c} N={n}: {b}")
            kinds[kind_of(b)] = kinds.get(kind_of(b), 0) + 1
        if kinds:
            print("violations by kind:")
            for k, v in sorted(kinds.items(), key=lambda kv: -kv[1]):
                print(f"  {v:5d}  {k}")
        if self.a.plant:
            if self.violations:
                print(f"faults: planted bug ({self.a.plant}) caught: {len(self.violations)} violations")
                return 0
            print(f"faults: FAIL: planted bug ({self.a.plant}) NOT caught")
            return 1
        if self.a.min_points and total < self.a.min_points:
            print(f"faults: FAIL: only {total} points tried, at least {self.a.min_points} wanted")
            return 1
        return 1 if self.violations else 0


def parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--clparity", required=True)
    p.add_argument("--shim", required=True)
    p.add_argument("--icd", required=True, help="OCL_ICD_VENDORS folder holding PoCL")
    p.add_argument("--work", required=True, help="scratch folder (emptied)")
    p.add_argument("--quota", type=int, default=24, help="points per (command, class)")
    p.add_argument("--seed", default="21")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--scenarios", help="comma list (default all)")
    p.add_argument("--classes", help="comma list (default all)")
    p.add_argument("--plant", choices=SHIM_PLANTS + HOOK_PLANTS)
    p.add_argument("--keep", action="store_true", help="keep every point's folder")
    p.add_argument("--min-points", type=int, default=0)
    p.add_argument("--timeout", type=int, default=120)
    p.add_argument("--asan-clparity", help="an ASan build of clparity (build-asan/clparity)")
    p.add_argument("--asan-every", type=int, default=8, help="run every Kth point under ASan")
    p.add_argument("--lsan-supp", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                       "..", "..", "tools", "ci", "lsan.supp"))
    a = p.parse_args()
    for f in (a.clparity, a.shim, a.asan_clparity):
        if f and not os.path.exists(f):
            p.error(f"{f}: no such file")
    a.clparity, a.shim = os.path.abspath(a.clparity), os.path.abspath(a.shim)
    if a.asan_clparity:
        a.asan_clparity = os.path.abspath(a.asan_clparity)
    a.lsan_supp = os.path.abspath(a.lsan_supp)
    return a


if __name__ == "__main__":
    sys.exit(Harness(parse()).main())
