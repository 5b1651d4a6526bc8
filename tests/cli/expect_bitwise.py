#!/usr/bin/env python3
"""expect_bitwise.py FOLDER... -- COMMAND [ARGS...]

Runs COMMAND, a `compare` or `diff` with --expect bitwise, and checks its exit status against
what the saved FOLDERs hold on this machine (each one's index.json, read after COMMAND ran, so
that COMMAND may be the compare that saves it): 0 when every float32 result there has
host:exact's hash, else 1 with the first line of stderr naming the engine of each result that
differs.

Why: whether a vendor library (host:openblas, cl:clblast) gives host:exact's bits is the
library's business, not clparity's. It changes with the CPU, with OpenBLAS's kernel
(OPENBLAS_CORETYPE: Haswell's and Zen's equal host:exact at d=32 B=3, SkylakeX's do not) and
with the OpenCL device, so a test computes it at test time instead of writing it down
(issue 32). cl:own and host:exact promise the bits; their tests say so outright.

Exit status: 0 when COMMAND did what the folders say, 1 when not, 2 on a bad folder."""
import json
import os
import re
import subprocess
import sys


def differing(folders):
    """The (folder, device, engine) of each float32 result whose hash is not host:exact's, and
    host:exact's hash (every folder's must agree: one model, one input)."""
    results = []
    for folder in folders:
        with open(os.path.join(folder, "index.json")) as f:
            index = json.load(f)
        # compare --save keeps its hidden baseline apart when host:exact is not an engine
        base = index.get("baseline")
        if base:
            results.append((folder, "(baseline)", base["engine"], "<f4", base["hash"]))
        results += [(folder, r["device"], r["engine"], r["dtype"], r["hash"])
                    for r in index["results"]]
    exact = {h for _, _, e, _, h in results if e == "host:exact"}
    if len(exact) != 1:
        sys.exit(f"expect_bitwise: {', '.join(folders)}: want one host:exact hash, found "
                 f"{sorted(exact) or 'none'}")
    return [(f, d, e) for f, d, e, t, h in results if t == "<f4" and h not in exact]


def main():
    if "--" not in sys.argv[2:]:
        sys.exit(__doc__.strip())
    sep = sys.argv.index("--")
    folders, command = sys.argv[1:sep], sys.argv[sep + 1:]
    p = subprocess.run(command, capture_output=True, text=True)
    sys.stdout.write(p.stdout)
    sys.stderr.write(p.stderr)
    try:
        diff = differing(folders)
    except (OSError, ValueError, KeyError) as e:
        print(f"expect_bitwise: {e}", file=sys.stderr)
        return 2
    for f, d, e in diff:
        print(f"expect_bitwise: {f}: {e} on {d} differs from host:exact on this machine")
    want = 1 if diff else 0
    print(f"expect_bitwise: {len(diff)} result(s) differ from host:exact here: expecting "
          f"exit {want}")
    first = p.stderr.splitlines()[0] if p.stderr else ""
    bad = []
    if p.returncode != want:
        bad.append(f"exit status {p.returncode}, expected {want}: {' '.join(command)}")
    if diff and not re.search(r"--expect bitwise failed for", first):
        bad.append(f"the first stderr line does not say that --expect bitwise failed: {first}")
    for e in sorted({e for _, _, e in diff}):
        if not re.search(r"\b" + re.escape(e) + r"\b", first):
            bad.append(f"the first stderr line does not name {e}: {first}")
    for b in bad:
        print("FAIL:", b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
