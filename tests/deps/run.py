#!/usr/bin/env python3
"""tools/check_deps on a planted tree of tests/deps: compiles each .c of the tree as CMake would
(WORK/CMakeFiles/fixture.dir/<file>.o with its .o.d), runs the checker on it and compares its
exit status and its output (stdout, then stderr) with tests/deps/<tree>.expected.

Usage: run.py CHECK_DEPS CC TREE WORK [--no-build]
  --no-build  compiles nothing: the checker must refuse a build with no object file.
Exit status 0 when both are as expected, 1 otherwise (with the difference)."""

import difflib
import os
import shutil
import subprocess
import sys

DIRS = "runtime,hostblas"


def main():
    args = sys.argv[1:]
    no_build = "--no-build" in args
    args = [a for a in args if a != "--no-build"]
    if len(args) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    check, cc, tree, work = args
    here = os.path.dirname(os.path.abspath(__file__))
    src = os.path.join(here, tree)
    shutil.rmtree(work, ignore_errors=True)
    objdir = os.path.join(work, "CMakeFiles", "fixture.dir")
    os.makedirs(objdir)
    if not no_build:
        for d in DIRS.split(","):
            for root, subdirs, names in os.walk(os.path.join(src, d)):
                subdirs.sort()
                for name in sorted(n for n in names if n.endswith(".c")):
                    c = os.path.join(root, name)
                    obj = os.path.join(objdir, os.path.relpath(c, src) + ".o")
                    os.makedirs(os.path.dirname(obj), exist_ok=True)
                    subprocess.run([cc, "-std=c11", "-Wall", "-Werror", "-c", "-MD", "-MF",
                                    obj + ".d", "-o", obj, c], check=True)
    # from inside WORK, so that the output names it "." on every machine
    p = subprocess.run([os.path.abspath(check), "--src", src, "--dirs", DIRS, "."], cwd=work,
                       capture_output=True, text=True)
    got = "status %d\n%s%s" % (p.returncode, p.stdout, p.stderr)
    with open(os.path.join(here, tree + (".none" if no_build else "") + ".expected")) as f:
        want = f.read()
    if got == want:
        print(got, end="")
        return 0
    print("tools/check_deps on tests/deps/%s: not as expected (- expected, + got):" % tree)
    sys.stdout.writelines(difflib.unified_diff(want.splitlines(True), got.splitlines(True)))
    return 1


if __name__ == "__main__":
    sys.exit(main())
