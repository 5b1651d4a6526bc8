#!/usr/bin/env python3
"""Replace only what clparity wrote (issue 32). An output that would replace something is
written only over clparity's own output; anything else is refused with status 2 and one line
on stderr naming the first foreign file, before any work (nothing on stdout), and is left
byte for byte as it was. A re-run onto its own earlier outputs still replaces them.

usage: foreign_targets.py CLPARITY WORKDIR CASE, CASE one of:

save        the three forms of the issue: a folder with a foreign index.json ({"name": ...})
            and notes.txt, the same as --save . from inside it, a folder whose only file is
            thesis.tmp.docx; then a save of clparity's with a file added (notes.txt), with a
            file changed (x.npy), with a subfolder; train --save onto such a folder; and a
            file dropped into a save while the run works (the check at write time).
files       --json, --csv, --out and --plot (where gnuplot is) onto a file of the user's.
rerun       run (--save, --json, --csv, --out, --plot) and train (--save, --json, --csv) twice
            onto the same paths: exit 0, the second run's outputs in place; an empty folder
            and an empty file are filled.
leftovers   a save removes only its own temporary leftovers (".D.clparity-tmp.<pid>" of a pid
            that is gone), never the user's "D.tmp.<digits>" or "D.old.<digits>" beside D;
            the same for a file output (".o.json.clparity-tmp.<pid>", "o.json.tmp.<digits>").
"""
import os
import shutil
import subprocess
import sys

clp, work, case = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
SMALL = ["--d-model", "8", "--layers", "2", "--runs", "1", "--warmup", "0"]
RUN = ["run", "-d", "host", "--engines", "host:exact", *SMALL]
TRAIN = ["train", "-d", "host", "--engines", "host:exact", "--d-model", "8", "--layers", "2",
         "--steps", "2", "--batch", "2"]
FAILS = []


def clparity(argv, cwd=None):
    r = subprocess.run([clp, *argv], capture_output=True, text=True, cwd=cwd or work)
    print(f"$ clparity {' '.join(argv)} -> {r.returncode}")
    for line in r.stderr.strip().splitlines():
        print(f"  {line}")
    return r


def tree(path):
    """{relative name: bytes} of a file or of every file and folder under a folder."""
    if os.path.isfile(path):
        return {"": open(path, "rb").read()}
    out = {}
    for root, dirs, files in os.walk(path):
        for d in dirs:
            out[os.path.relpath(os.path.join(root, d), path) + "/"] = b""
        for f in files:
            out[os.path.relpath(os.path.join(root, f), path)] = open(os.path.join(root, f),
                                                                      "rb").read()
    return out


def check(name, ok, why):
    print(f"{'ok' if ok else 'FAIL'}: {name}{'' if ok else ': ' + why}")
    if not ok:
        FAILS.append(name)


def refused(name, argv, kept, names, cwd=None):
    """argv must exit 2 with one stderr line holding each of names, print nothing on stdout,
    and leave every path of kept as it was."""
    before = {p: tree(os.path.join(work, p)) for p in kept}
    r = clparity(argv, cwd)
    lines = r.stderr.strip().splitlines()
    after = {p: tree(os.path.join(work, p)) if os.path.exists(os.path.join(work, p)) else None
             for p in kept}
    check(name, r.returncode == 2 and len(lines) == 1 and all(n in lines[0] for n in names) and
          not r.stdout.strip() and after == before,
          f"exit {r.returncode} (want 2), {len(lines)} stderr lines (want 1 naming {names}), "
          f"{len(r.stdout)} bytes on stdout (want none), kept as it was: {after == before}")


def save_case():
    os.makedirs("victim")
    open("victim/notes.txt", "w").write("precious\n")
    open("victim/index.json", "w").write('{"name":"my-web-app"}\n')
    refused("fake index.json", [*RUN, "--save", "victim"], ["victim"], ["index.json"])
    refused("--save . from inside", [*RUN, "--save", "."], ["victim"], ["index.json"],
            cwd=os.path.join(work, "victim"))
    os.makedirs("thesis")
    open("thesis/thesis.tmp.docx", "w").write("chapter 1\n")
    refused("only thesis.tmp.docx", [*RUN, "--save", "thesis"], ["thesis"], ["thesis.tmp.docx"])
    # A real save of clparity's, then something of the user's in it.
    for d in ("added", "changed", "sub"):
        r = clparity([*RUN, "--save", d])
        assert r.returncode == 0, f"setting up {d}"
    open("added/notes.txt", "w").write("precious\n")
    refused("a save with a file added", [*RUN, "--save", "added"], ["added"], ["notes.txt"])
    with open("changed/x.npy", "ab") as f:
        f.write(b"\0\0\0\0")
    refused("a save with x.npy changed", [*RUN, "--save", "changed"], ["changed"], ["x.npy"])
    os.makedirs("sub/inner")
    open("sub/inner/keep.txt", "w").write("precious\n")
    refused("a save with a subfolder", [*RUN, "--save", "sub"], ["sub"], ["inner"])
    refused("train --save onto a fake index.json", [*TRAIN, "--save", "victim"], ["victim"],
            ["index.json"])
    refused("train --save onto a save with a file added", [*TRAIN, "--save", "added"], ["added"],
            ["notes.txt"])
    # A file that appears after the check before the work: the check at write time, just
    # before the swap, refuses (CLPARITY_TEST_HOOK=save-late-file drops late.txt into D then).
    assert clparity([*RUN, "--save", "late"]).returncode == 0, "setting up late"
    before = tree("late")
    r = subprocess.run([clp, *RUN, "--seed", "2", "--save", "late"], capture_output=True,
                       text=True, env={**os.environ, "CLPARITY_TEST_HOOK": "save-late-file"})
    after = tree("late")
    lines = r.stderr.strip().splitlines()
    check("a file dropped into a save during the run", r.returncode == 2 and
          "late.txt" in (lines[0] if lines else "") and "late.txt" in after and
          {k: v for k, v in after.items() if k != "late.txt"} == before,
          f"exit {r.returncode} (want 2), stderr {lines[:1]}, the old save kept: "
          f"{ {k: v for k, v in after.items() if k != 'late.txt'} == before}, late.txt kept: "
          f"{'late.txt' in after}")


def files_case():
    open("a.json", "w").write('{"a": 1}\n')
    open("a.csv", "w").write("a,b\n1,2\n")
    open("a.npy", "wb").write(b"\x93NUMPY\x01\x00" + b"not clparity's")
    refused("--json onto the user's JSON", [*RUN, "--json", "a.json"], ["a.json"], ["a.json"])
    refused("--csv onto the user's CSV", [*RUN, "--csv", "a.csv"], ["a.csv"], ["a.csv"])
    refused("--out onto the user's .npy", [*RUN, "--out", "a.npy"], ["a.npy"], ["a.npy"])
    refused("train --json onto the user's JSON", [*TRAIN, "--json", "a.json"], ["a.json"],
            ["a.json"])
    refused("train --csv onto the user's CSV", [*TRAIN, "--csv", "a.csv"], ["a.csv"], ["a.csv"])
    if shutil.which("gnuplot"):
        open("a.png", "wb").write(b"\x89PNG\r\n\x1a\n" + b"a holiday photo")
        open("a.svg", "w").write('<?xml version="1.0"?>\n<svg></svg>\n')
        refused("--plot onto the user's PNG", [*RUN, "--plot", "a.png"], ["a.png"], ["a.png"])
        refused("--plot onto the user's SVG", [*RUN, "--plot", "a.svg"], ["a.svg"], ["a.svg"])
    else:
        print("note: no gnuplot, --plot not tried")


def rerun_case():
    os.makedirs("E")
    open("empty.json", "w").close()
    plots = ["--plot", "o.png"] if shutil.which("gnuplot") else []
    outs = ["--save", "S", "--json", "o.json", "--csv", "o.csv", "--out", "o.npy", *plots]
    for seed in ("1", "2"):
        r = clparity([*RUN, "--seed", seed, *outs])
        check(f"run onto its own outputs (seed {seed})", r.returncode == 0, f"exit {r.returncode}")
        check(f"run's --save holds seed {seed}", os.path.exists("S/index.json") and
              f'"seed":\t"{seed}"' in open("S/index.json").read(), "not the new save")
        r = clparity([*TRAIN, "--seed", seed, "--save", "T", "--json", "t.json", "--csv", "t.csv"])
        check(f"train onto its own outputs (seed {seed})", r.returncode == 0,
              f"exit {r.returncode}")
    check("a second plot", not plots or b"clparity" in open("o.png", "rb").read(),
          "the PNG has no mark")
    r = clparity([*RUN, "--save", "E", "--json", "empty.json"])
    check("an empty folder and an empty file are filled", r.returncode == 0 and
          os.path.exists("E/index.json") and os.path.getsize("empty.json") > 0,
          f"exit {r.returncode}")


def leftovers_case():
    os.makedirs("D.tmp.999999999")
    open("D.tmp.999999999/mine.txt", "w").write("precious\n")
    open("D.old.999999999", "w").write("precious\n")
    os.makedirs(".D.clparity-tmp.999999999")  # ours, of a pid that is gone: removed
    open(".D.clparity-tmp.999999999/x.npy", "w").write("half")
    kept = {p: tree(p) for p in ("D.tmp.999999999", "D.old.999999999")}
    r = clparity([*RUN, "--save", "D"])
    check("a save beside the user's D.tmp.<digits> and D.old.<digits>", r.returncode == 0 and
          all(os.path.exists(p) and tree(p) == t for p, t in kept.items()),
          f"exit {r.returncode}; the user's files left as they were: "
          f"{[os.path.exists(p) and tree(p) == t for p, t in kept.items()]}")
    check("its own leftover of a gone pid is removed",
          not os.path.exists(".D.clparity-tmp.999999999"), "still there")
    # The same for a file: ".o.json.clparity-tmp.<gone pid>" goes, "o.json.tmp.<digits>" stays.
    open("o.json.tmp.999999999", "w").write("precious\n")
    open(".o.json.clparity-tmp.999999999", "w").write("half")
    r = clparity([*RUN, "--json", "o.json"])
    check("--json beside the user's o.json.tmp.<digits>", r.returncode == 0 and
          open("o.json.tmp.999999999").read() == "precious\n", f"exit {r.returncode}")
    litter = [f for f in os.listdir(".") if "clparity-tmp" in f or "clparity-old" in f]
    check("no temporary left", not litter, f"left {litter}")


shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
os.chdir(work)
{"save": save_case, "files": files_case, "rerun": rerun_case,
 "leftovers": leftovers_case}[case]()
print(f"{'FAIL' if FAILS else 'ok'}: {len(FAILS)} failed: {FAILS}")
sys.exit(1 if FAILS else 0)
