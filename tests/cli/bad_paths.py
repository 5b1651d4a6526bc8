#!/usr/bin/env python3
"""One rule for bad paths and bad variables (issue 32): every path option of every command is
checked before any work, and a bad one is status 2 with one line naming the option and the
reason: an empty path, a symbolic link loop, a parent that is not a folder, a folder that
cannot be written, an input that is not there, a folder where a file is wanted (and the
reverse), an output onto an input. Every CLPARITY_* variable of runtime/base/env.c's table (read
with `clparity --env-table tsv`) is tried with garbage: status 2 naming the variable and the
value, before any work.

Each case must exit 2 within a few seconds, name what the case says on stderr's first line,
print nothing on stdout (no work began: the table is printed only after the work) and leave
the work folder as it was (nothing written, nothing removed).

usage: bad_paths.py CLPARITY WORKDIR [TABLE_FROM]
  TABLE_FROM: another clparity whose --env-table to use (to try a build older than the table)
"""
import os
import shutil
import subprocess
import sys
import time

TIMEOUT = 60
FAST = 2.0  # seconds: a refusal before any work; the work itself takes longer than this


def listing(root):
    """Every path under root with its size, as the check that nothing was written."""
    out = {}
    for d, dirs, files in os.walk(root):
        for n in dirs + files:
            p = os.path.join(d, n)
            out[p] = os.lstat(p).st_size
    return out


def unwritable_folder(work):
    """A folder that this process cannot write into, or None (root writes anywhere: a chmod
    does not stop it). /proc/self refuses every process, root included."""
    if os.geteuid() != 0:
        d = os.path.join(work, "ro")
        os.makedirs(d, exist_ok=True)
        os.chmod(d, 0o555)
        return d
    if os.path.isdir("/proc/self") and not os.access("/proc/self", os.W_OK):
        return "/proc/self"
    return None


def fixtures():
    """The loops, a plain file and an empty folder, made again before each case: a build that
    writes through one of them must not spoil the cases after it."""
    for p in ("loop_a", "loop_b", "loop.png", "FILE", "DIR"):
        if os.path.isdir(p) and not os.path.islink(p):
            shutil.rmtree(p)
        elif os.path.lexists(p):
            os.remove(p)
    os.symlink("loop_b", "loop_a")
    os.symlink("loop_a", "loop_b")
    os.symlink("loop.png", "loop.png")  # --plot wants its suffix
    with open("FILE", "w") as f:
        f.write("a plain file, not a folder\n")
    os.makedirs("DIR")


def main(clp, work, table_from):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.chdir(work)
    # A job long enough (over 2 s of CPU on the 2-core EPYC) that a refusal after the work, or
    # after part of it, shows.
    small = ["-d", "host", "--engines", "host:exact", "--runs", "1", "--warmup", "0"]
    big = small + ["--d-model", "1024", "--layers", "48", "--batch", "64"]
    fixtures()
    # A --save folder of clparity's own, and a model file, made before the cases.
    r = subprocess.run([clp, "run"] + small + ["--d-model", "8", "--layers", "2", "--save", "S"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print(f"FAIL: setting up S: {r.stderr}")
        return 1
    ro = unwritable_folder(work)

    def out_cases(cmd, args, opt, kind="file"):
        """The cases every output option must refuse: (name, argv, substrings)."""
        o = opt.lstrip("-")
        ext = ".png" if o == "plot" else ""
        c = [
            (f"{cmd}_{o}_empty", [cmd] + args + [opt, ""], [opt, "empty"]),
            (f"{cmd}_{o}_loop", [cmd] + args + [opt, "loop.png" if ext else "loop_a"],
             [opt, "Too many levels of symbolic links"]),
            (f"{cmd}_{o}_parent_file", [cmd] + args + [opt, "FILE/x" + ext],
             [opt, "Not a directory"]),
            (f"{cmd}_{o}_parent_loop", [cmd] + args + [opt, "loop_a/x" + ext],
             [opt, "Too many levels of symbolic links"]),
            (f"{cmd}_{o}_parent_missing", [cmd] + args + [opt, "nowhere/x" + ext],
             [opt, "No such file or directory"]),
        ]
        if kind == "file" and o != "plot":
            c.append((f"{cmd}_{o}_is_dir", [cmd] + args + [opt, "DIR"], [opt, "is a directory"]))
        if kind == "dir":
            c.append((f"{cmd}_{o}_is_file", [cmd] + args + [opt, "FILE"],
                      [opt, "not a directory"]))
        if ro:
            c.append((f"{cmd}_{o}_unwritable", [cmd] + args + [opt, f"{ro}/x{ext}"], [opt, ro]))
        return c

    # --plot is refused without gnuplot before its path is looked at (tested elsewhere).
    plot = ("--plot",) if shutil.which("gnuplot") else ()
    if not plot:
        print("SKIP --plot: gnuplot is not in PATH")
    cases = []
    for cmd, args in (("run", big), ("compare", big)):
        for opt in ("--json", "--csv", "--out") + plot:
            if cmd == "compare" and opt == "--out":
                continue
            cases += out_cases(cmd, args, opt)
        cases += out_cases(cmd, args, "--save", "dir")
        for opt in ("--model", "--input", "--labels"):
            o = opt.lstrip("-")
            cases += [
                (f"{cmd}_{o}_empty", [cmd] + small + [opt, ""], [opt, "empty"]),
                (f"{cmd}_{o}_loop", [cmd] + small + [opt, "loop_a"],
                 [opt, "loop_a: cannot open: Too many levels of symbolic links"]),
                (f"{cmd}_{o}_parent_file", [cmd] + small + [opt, "FILE/x"],
                 [opt, "cannot open: Not a directory"]),
                (f"{cmd}_{o}_missing", [cmd] + small + [opt, "nowhere.bin"],
                 [opt, "cannot open: No such file or directory"]),
                (f"{cmd}_{o}_is_dir", [cmd] + small + [opt, "DIR"], [opt, "not a regular file"]),
            ]
        cases += [
            (f"{cmd}_json_onto_model", [cmd] + small + ["--model", "FILE", "--json", "FILE"],
             ["--json FILE is also --model FILE"]),
            (f"{cmd}_csv_onto_json", [cmd] + big + ["--json", "o.x", "--csv", "o.x"],
             ["are the same file"]),
        ]
    cases += [("run_out_onto_model", ["run"] + small + ["--model", "FILE", "--out", "FILE"],
               ["--out FILE is also --model FILE"])]
    train = ["-d", "host", "--engines", "host:exact", "--steps", "20000", "--d-model", "64"]
    for opt in ("--json", "--csv") + plot:
        cases += out_cases("train", train, opt)
    cases += out_cases("train", train, "--save", "dir")
    cases += [
        ("train_model_loop", ["train"] + train[:4] + ["--model", "loop_a"],
         ["--model loop_a: cannot open"]),
        ("train_model_empty", ["train"] + train[:4] + ["--model", ""], ["--model", "empty"]),
        ("train_json_onto_model", ["train"] + train[:4] + ["--model", "FILE", "--json", "FILE"],
         ["--json FILE is also --model FILE"]),
    ]
    sweep = ["--vary", "batch", "--grid", "1,2", "-d", "host", "--engines", "host:exact"]
    for opt in ("--json", "--csv") + plot:
        cases += out_cases("sweep", sweep, opt)
    ulp = ["-d", "host"]
    cases += out_cases("ulp", ulp, "--json")
    cases += out_cases("devices", [], "--json")
    cases += out_cases("peak", ["-d", "host", "--remeasure"], "--json")
    cases += out_cases("diff", ["S", "S"], "--json")
    cases += [
        ("diff_folder_loop", ["diff", "S", "loop_a"], ["folder loop_a: cannot open"]),
        ("diff_folder_empty", ["diff", "S", ""], ["folder", "empty"]),
        ("diff_folder_missing", ["diff", "S", "nowhere"], ["folder nowhere: cannot open"]),
        ("diff_folder_is_file", ["diff", "S", "FILE"], ["FILE is not a folder"]),
        ("cache_list_json_empty", ["cache", "list", "--json", ""], ["--json", "empty"]),
        ("cache_list_json_loop", ["cache", "list", "--json", "loop_a"],
         ["--json", "Too many levels of symbolic links"]),
        ("tune_json_empty", ["tune", "-d", "host", "--json", ""], ["--json", "empty"]),
        ("tune_json_loop", ["tune", "-d", "host", "--json", "loop_a"],
         ["--json", "Too many levels of symbolic links"]),
    ]
    if not ro:
        print("SKIP unwritable folder: running as root, and /proc/self is writable here: "
              "no folder refuses this process")

    # Every variable of the table, with garbage of its kind.
    table = subprocess.run([table_from, "--env-table", "tsv"], capture_output=True, text=True)
    if table.returncode != 0 or not table.stdout:
        print(f"FAIL: clparity --env-table tsv: status {table.returncode}: {table.stderr}")
        return 1
    env_cases = []
    for line in table.stdout.splitlines():
        name, kind, words, lo, hi, test_only = line.split("\t")
        bad = {"word": ["bogus"], "number": ["abc", "-5", "nan"], "integer": ["abc", "0", "1.5"],
               "folder": ["nowhere", "FILE"], "settings": ["bogus", "zz=1"]}.get(kind, [])
        if name == "CLPARITY_DEVICES":
            env_cases.append((name, "nosuch-device", ["run"] + big[2:]))
            continue
        if not bad:
            print(f"SKIP {name}: {kind}, not checked by the binary "
                  f"({'tests only' if test_only == '1' else 'read elsewhere'})")
            continue
        for v in bad:
            env_cases.append((name, v, ["run"] + big))
    env_cases += [("CLPARITY_CACHE_MAX_MB", "abc", ["cache", "list"]),
                  ("CLPARITY_OWN_PROBE", "bogus", ["devices"])]
    for name, v, args in env_cases:
        cases.append((f"env {name}={v} {args[0]}", args + ["--json", "env.json"], [name, f"'{v}'"],
                      {name: v}))

    failures = []
    base = dict(os.environ)
    for case in cases:
        name, args, want = case[:3]
        env = dict(base)
        env.update(case[3] if len(case) > 3 else {})
        fixtures()
        before = listing(".")
        t0 = time.monotonic()
        try:
            r = subprocess.run([clp] + args, capture_output=True, text=True, timeout=TIMEOUT,
                               env=env)
            rc, out, err = r.returncode, r.stdout, r.stderr
        except subprocess.TimeoutExpired:
            rc, out, err = "timeout", "", f"still running after {TIMEOUT} s\n"
        took = time.monotonic() - t0
        first = err.splitlines()[0] if err else ""
        why = []
        if rc != 2:
            why.append(f"status {rc}, expected 2")
        if not all(w in first for w in want):
            why.append(f"first stderr line lacks {want}")
        if out:
            why.append("work began: stdout is not empty")
        if took > FAST:
            why.append(f"took {took:.1f} s: not refused before the work")
        after = listing(".")
        if after != before:
            made = sorted(set(after) - set(before))
            gone = sorted(set(before) - set(after))
            why.append(f"the folder changed: made {made}, removed {gone}")
            for p in made:
                if os.path.isdir(p) and not os.path.islink(p):
                    shutil.rmtree(p, ignore_errors=True)
                elif os.path.lexists(p):
                    os.remove(p)
        print(f"{'ok  ' if not why else 'FAIL'} {name}: status {rc}, {took:.2f} s: {first}")
        if why:
            failures.append(f"{name}: {'; '.join(why)}\nstdout: {out[-300:]}\nstderr: {err[-500:]}")
    if ro and ro.startswith(work):
        os.chmod(ro, 0o755)
    if failures:
        print(f"\n{len(failures)} of {len(cases)} cases failed:")
        for f in failures:
            print("---\n" + f)
        return 1
    print(f"all {len(cases)} cases refused with status 2 before any work")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], os.path.abspath(sys.argv[2]),
                  os.path.abspath(sys.argv[3] if len(sys.argv) > 3 else sys.argv[1])))
