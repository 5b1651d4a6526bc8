#!/usr/bin/env python3
"""`clparity diff` checks every file of a saved folder against its index.json before it
compares anything: each case below is a copy of one good save with one thing broken, and
diff must exit 2 with stderr's first line naming the problem (the clean copy exits 0).

Usage: diff_checks.py CLPARITY WORKDIR
"""
import json
import os
import shutil
import subprocess
import sys

clp, work = sys.argv[1], os.path.abspath(sys.argv[2])
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
good = os.path.join(work, "good")
subprocess.run([clp, "run", "-d", "host", "--engines", "host:exact,host:openblas", "--runs", "1",
                "--warmup", "0", "--d-model", "32", "--layers", "4", "--batch", "3", "--save",
                good], check=True, capture_output=True)
RESULT = "host.host-exact.npy"
# Whether host:openblas gives host:exact's bits is OpenBLAS's business: at d=32 B=3 its Haswell
# and Zen kernels do, its SkylakeX and Cooperlake ones do not (OPENBLAS_CORETYPE). The clean
# copy's `diff --expect bitwise` must exit as this machine's bits say: 0 when they are equal,
# 1 naming host:openblas when not (issue 32); without --expect it exits 0 either way.
with open(os.path.join(good, "index.json")) as f:
    hashes = {r["engine"]: r["hash"] for r in json.load(f)["results"]}
SAME = hashes["host:openblas"] == hashes["host:exact"]
print(f"host:openblas {'equals' if SAME else 'differs from'} host:exact on this machine "
      f"(hashes {hashes['host:openblas']}, {hashes['host:exact']})")


def flip_last_byte(f):
    def do(d):
        p = os.path.join(d, f)
        b = bytearray(open(p, "rb").read())
        b[-1] ^= 0x01
        open(p, "wb").write(bytes(b))
    return do


def remove(f):
    return lambda d: os.remove(os.path.join(d, f))


def edit_index(fn):
    def do(d):
        p = os.path.join(d, "index.json")
        index = json.load(open(p))
        fn(index)
        open(p, "w").write(json.dumps(index))
    return do


def set_file(i, name):
    def fn(index):
        index["results"][i]["file"] = name
    return fn


CASES = [
    # name, change, diff's arguments ({g}: the good folder, {t}: the broken copy; diff takes
    # two folders or more, the broken one first where its own checks are meant), regex
    ("clean", None, ["{g}", "{t}"], 0, ""),
    ("clean_bitwise", None, ["--expect", "bitwise", "{g}", "{t}"], 0 if SAME else 1,
     "" if SAME else "--expect bitwise failed for 2 results: .*host:openblas"),
    ("x_tampered", flip_last_byte("x.npy"), ["{g}", "{t}"], 2,
     "/x.npy: contents SHA-256 .*, index.json says"),
    ("weights_tampered", flip_last_byte("weights.npy"), ["{t}", "{g}"], 2,
     "/weights.npy: contents SHA-256 .*, index.json says"),
    ("result_tampered", flip_last_byte(RESULT), ["{g}", "{t}"], 2,
     f"/{RESULT}: contents hash .*, index.json says"),
    ("reference_tampered_second", flip_last_byte("reference.npy"), ["{g}", "{t}"], 2,
     "/reference.npy: contents hash"),
    ("result_missing", remove(RESULT), ["{t}", "{g}"], 2, f"/{RESULT}: missing from the saved folder"),
    ("x_missing", remove("x.npy"), ["{t}", "{g}"], 2, "/x.npy: missing from the saved folder"),
    ("weights_missing", remove("weights.npy"), ["{t}", "{g}"], 2,
     "/weights.npy: missing from the saved folder"),
    ("empty_results", edit_index(lambda i: i.update(results=[])), ["--expect", "bitwise", "{t}", "{g}"],
     2, "index.json: no results listed: nothing to compare"),
    ("empty_results_second", edit_index(lambda i: i.update(results=[])),
     ["--expect", "bitwise", "{g}", "{t}"], 2, "index.json: no results listed"),
    ("nul_in_name", edit_index(set_file(0, RESULT + "\u0000../x.npy")), ["{t}", "{g}"], 2,
     r"index.json: a name holds a NUL character \(\\u0000\)"),
    ("slash_in_name", edit_index(set_file(0, "../good/" + RESULT)), ["{t}", "{g}"], 2,
     "index.json: bad result file name '../good/"),
    ("empty_name", edit_index(set_file(0, "")), ["{t}", "{g}"], 2, "index.json: bad result file name ''"),
    ("name_is_x", edit_index(set_file(0, "x.npy")), ["{t}", "{g}"], 2,
     "index.json: bad result file name 'x.npy'"),
    ("duplicate_entry", edit_index(lambda i: i["results"].append(dict(i["results"][0]))),
     ["--expect", "bitwise", "{t}", "{g}"], 2, "index.json: the file host[.]host-[a-z]+[.]npy is listed twice"),
    ("duplicate_of_reference", edit_index(set_file(0, "reference.npy")), ["{t}", "{g}"], 2,
     "index.json: the file reference.npy is listed twice"),
]

import re  # noqa: E402

failed = 0
for name, change, args, status, regex in CASES:
    t = os.path.join(work, name)
    shutil.copytree(good, t)
    if change:
        change(t)
    argv = [clp, "diff", *[a.format(g=good, t=t) for a in args]]
    res = subprocess.run(argv, capture_output=True, text=True)
    first = res.stderr.splitlines()[0] if res.stderr else ""
    ok = res.returncode == status and (not regex or re.search(regex, first))
    print(f"{'ok  ' if ok else 'FAIL'} {name}: exit {res.returncode} (want {status}): {first}")
    if not ok:
        failed += 1
        print(res.stdout[-2000:])
sys.exit(1 if failed else 0)
