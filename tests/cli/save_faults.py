#!/usr/bin/env python3
"""--save under faults. Usage: save_faults.py CLPARITY WORKDIR CASE, CASE one of:

enospc            a save that does not fit (a 200 KiB tmpfs, mounted here: skipped, 77, where
                  mount fails, e.g. not root) exits 3, says "No space left on device" and
                  that the folder is left as it was; the old folder is byte-identical and no
                  temporary is left; run's and train's --save alike.
between_renames   the two-rename fallback killed between its renames
                  (CLPARITY_TEST_HOOK=save-kill-between-renames) leaves no D but
                  .D.clparity-old.<pid> (the old folder, whole) and .D.clparity-tmp.<pid> (the
                  new one, whole); the next save puts the old one back first, then replaces
                  it, and nothing is left.
not_a_save        a folder holding other files (no index.json) or a subfolder is refused with
                  status 2 before any work, and left untouched (more: foreign_targets.py).
"""
import filecmp
import os
import shutil
import subprocess
import sys

clp, work, case = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]


def run(*args, env=None, size=("--d-model", "32", "--layers", "8")):
    cmd = [clp, "run", "-d", "host", "--engines", "host:exact", "--runs", "1", "--warmup", "0",
           *size, *args]
    res = subprocess.run(cmd, capture_output=True, text=True,
                         env={**os.environ, **(env or {})})
    print(f"$ {' '.join(cmd)} -> {res.returncode}")
    if res.stderr.strip():
        print("  " + res.stderr.strip().replace("\n", "\n  "))
    return res


def train(*args, size=("--d-model", "32", "--layers", "8")):
    cmd = [clp, "train", "-d", "host", "--engines", "host:exact", "--steps", "2", "--batch", "2",
           *size, *args]
    res = subprocess.run(cmd, capture_output=True, text=True)
    print(f"$ {' '.join(cmd)} -> {res.returncode}")
    if res.stderr.strip():
        print("  " + res.stderr.strip().replace("\n", "\n  "))
    return res


def same_tree(a, b):
    la, lb = sorted(os.listdir(a)), sorted(os.listdir(b))
    assert la == lb, f"FAIL: files {la} vs {lb}"
    for f in la:
        assert filecmp.cmp(os.path.join(a, f), os.path.join(b, f), shallow=False), \
            f"FAIL: {f} differs from the old folder's"


def expect(res, status, *phrases):
    first = res.stderr.splitlines()[0] if res.stderr else ""
    assert res.returncode == status, f"FAIL: exit {res.returncode}, expected {status}"
    for p in phrases:
        assert p in first, f"FAIL: stderr's first line lacks '{p}': {first}"


def leftovers(parent, name):
    return sorted(f for f in os.listdir(parent) if f.startswith(f".{name}.clparity-tmp.") or
                  f.startswith(f".{name}.clparity-old."))


def enospc():
    # One 200 KiB tmpfs each; train's folder holds more (the result weights, float64's too).
    for cmd, small in ((run, ("--d-model", "32", "--layers", "8")),
                       (train, ("--d-model", "16", "--layers", "4"))):
        mnt = os.path.join(work, "mnt_" + cmd.__name__)
        os.makedirs(mnt)
        m = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=200k", "tmpfs", mnt],
                           capture_output=True, text=True)
        if m.returncode != 0:
            print(f"skip: cannot mount a tmpfs: {m.stderr.strip()}")
            return 77
        try:
            d, old = os.path.join(mnt, "D"), os.path.join(work, "old_" + cmd.__name__)
            assert cmd("--save", d, size=small).returncode == 0, "FAIL: the small save did not fit"
            # Another small save fits beside it (the new folder is whole before the old goes).
            assert cmd("--seed", "5", "--save", d, size=small).returncode == 0, \
                "FAIL: the second small save"
            shutil.copytree(d, old)
            res = cmd("--seed", "6", "--save", d, size=("--d-model", "64", "--layers", "16"))
            expect(res, 3, "No space left on device", "left as it was")
            same_tree(d, old)
            assert not leftovers(mnt, "D"), f"FAIL: left {leftovers(mnt, 'D')}"
            print(f"ok: {cmd.__name__} --save: ENOSPC left the old folder byte-identical")
        finally:
            subprocess.run(["umount", mnt])
    return 0


def between_renames():
    d, old = os.path.join(work, "D"), os.path.join(work, "old")
    assert run("--seed", "1", "--save", d).returncode == 0
    shutil.copytree(d, old)
    res = run("--seed", "2", "--save", d, env={"CLPARITY_TEST_HOOK": "save-kill-between-renames"})
    assert res.returncode == -9, f"FAIL: exit {res.returncode}, expected to be killed"
    left = leftovers(work, "D")
    print(f"after the kill: D {'exists' if os.path.exists(d) else 'is missing'}; {left}")
    assert not os.path.exists(d), "FAIL: D exists after a kill between the renames"
    olds = [f for f in left if ".clparity-old." in f]
    tmps = [f for f in left if ".clparity-tmp." in f]
    assert len(olds) == 1 and len(tmps) == 1, f"FAIL: expected one .old and one .tmp: {left}"
    same_tree(os.path.join(work, olds[0]), old)  # the old folder, whole
    new = os.path.join(work, tmps[0])
    res = subprocess.run([clp, "diff", new, new], capture_output=True)  # diff takes two
    assert res.returncode == 0, "FAIL: the new folder (.D.clparity-tmp.<pid>) is not whole"
    # The next save puts the old folder back, then replaces it; nothing is left.
    assert run("--seed", "3", "--save", d).returncode == 0
    assert not leftovers(work, "D"), f"FAIL: left {leftovers(work, 'D')}"
    assert '"seed":\t"3"' in open(os.path.join(d, "index.json")).read()
    print("ok: recovered from a kill between the two renames")
    return 0


def not_a_save():
    for name, setup in (("other", lambda p: open(os.path.join(p, "notes.txt"), "w").write("x")),
                        ("sub", lambda p: os.makedirs(os.path.join(p, "inner")))):
        d = os.path.join(work, name)
        os.makedirs(d)
        setup(d)
        before = sorted(os.listdir(d))
        expect(run("--save", d), 2, "cannot be replaced")
        assert sorted(os.listdir(d)) == before, f"FAIL: {d} changed"
        assert not leftovers(work, name)
        res = train("--save", d)
        expect(res, 2, "cannot be replaced")
        assert sorted(os.listdir(d)) == before, f"FAIL: {d} changed"
    print("ok: folders that are not saves are refused and left alone")
    return 0


shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
sys.exit({"enospc": enospc, "between_renames": between_renames, "not_a_save": not_a_save}[case]())
