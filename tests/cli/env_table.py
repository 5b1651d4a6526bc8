#!/usr/bin/env python3
"""docs/COMMANDS.md's list of CLPARITY_* variables is runtime/base/env.c's table (issue 32): the
block between the env-table markers must be exactly what `clparity --env-table` prints; every
variable that the C sources name in a string ("CLPARITY_...") must be in the table, so that a
new reader cannot skip it; and every variable of COMMANDS.md's Environment table must be in it.

usage: env_table.py CLPARITY SOURCE_DIR [COMMANDS.md]
"""
import difflib
import os
import re
import subprocess
import sys

BEGIN = "<!-- env-table: begin"
END = "<!-- env-table: end -->"


def main(clp, src, commands):
    failures = []
    md = subprocess.run([clp, "--env-table"], capture_output=True, text=True)
    tsv = subprocess.run([clp, "--env-table", "tsv"], capture_output=True, text=True)
    if md.returncode != 0 or tsv.returncode != 0:
        print(f"FAIL: clparity --env-table: status {md.returncode}, {tsv.returncode}: "
              f"{md.stderr}{tsv.stderr}")
        return 1
    names = {ln.split("\t")[0] for ln in tsv.stdout.splitlines()}
    with open(commands, encoding="utf-8") as f:
        doc = f.read()
    if BEGIN not in doc or END not in doc:
        failures.append(f"{commands} has no {BEGIN} ... {END} block")
    else:
        start = doc.index("\n", doc.index(BEGIN)) + 1
        block = doc[start:doc.index(END)]
        if block != md.stdout:
            diff = difflib.unified_diff(block.splitlines(), md.stdout.splitlines(),
                                        f"{commands} (env-table block)",
                                        "clparity --env-table", lineterm="")
            failures.append("the block differs from the table (paste `clparity --env-table` "
                            "between the markers):\n" + "\n".join(diff))
    read = set()
    for root in ("runtime", "hostblas", "tools", "tests"):
        for d, _, files in os.walk(os.path.join(src, root)):
            for n in files:
                if n.endswith((".c", ".h")):
                    with open(os.path.join(d, n), encoding="utf-8", errors="replace") as f:
                        read |= {(m, os.path.join(d, n)) for m in
                                 re.findall(r'"(CLPARITY_[A-Z0-9_]+)"', f.read())}
    for name, where in sorted(read):
        # A name that ends in "_" is a prefix (isolate.c drops CLPARITY_FAULT_* from its
        # child's environment): the table must list at least one variable of that family.
        known = any(n.startswith(name) for n in names) if name.endswith("_") else name in names
        if not known:
            failures.append(f"{where} reads {name}, which runtime/base/env.c's table does not list")
    documented = set(re.findall(r"^\| `(CLPARITY_[A-Z0-9_]+)`", doc, re.M))
    for name in sorted(documented - names):
        failures.append(f"{commands} documents {name}, which the table does not list")
    print(f"{len(names)} variables in the table; {len({n for n, _ in read})} named by the "
          f"sources; {len(documented)} in {os.path.basename(commands)}")
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    a = sys.argv
    sys.exit(main(a[1], a[2], a[3] if len(a) > 3 else os.path.join(a[2], "docs", "COMMANDS.md")))
