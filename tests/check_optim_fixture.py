#!/usr/bin/env python3
"""host:f64's optimizers against PyTorch's: tests/fixtures/optim_torch64.json (made by
tests/fixtures/make_optim_fixture.py with torch.optim in float64 on the CPU).

usage: check_optim_fixture.py CLPARITY OUTDIR (--fixture FILE | --numpy)

For each case of make_optim_fixture.CASES, runs `clparity train -d host --engines
host:exact,host:f64 --d-model 16 --layers 2 --batch 5 --target random --steps 100` with the
case's optimizer options, --save OUTDIR/<case> and --json, and checks:
  - the saved x, target and initial weights are the fixture's inputs, byte for byte (the
    fixture was made from tests/fixtures/optim_in/, which clparity must still generate), and
    index.json's model.optimizer is the case's, value for value;
  - host:f64's weights after the 100 steps against the fixture's: max over the elements of
    |a - b| / max(|b|, 1e-300) <= 1e-12; and each step's loss the same way;
  - host:exact's final weights within 1e-4 (max |a - b| / max |b|) of the fixture's (float32
    is not float64; a wrong formula would be far off).
--fixture FILE: the PyTorch fixture; exit 77 (ctest: skipped) with "fixture not made yet" when
the file does not exist. --numpy: the reference is made here by make_optim_fixture.py's numpy
backend (tests/check_train.py's float64 optimizers, written from PyTorch's documented
formulas): the same checks without torch.
Exit status 0 all passed, 1 a check failed, 2 a bad run or file, 77 no fixture."""
import argparse
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "fixtures"))
import make_optim_fixture as mk  # noqa: E402

TOL = 1e-12


def rel_elem(a, b):
    """max |a - b| / max(|b|, tiny) over the elements, and where."""
    r = np.abs(np.asarray(a) - np.asarray(b)) / np.maximum(np.abs(np.asarray(b)), 1e-300)
    i = int(np.argmax(r))
    return float(r[i]), i


def check_case(clp, out, name, opt, ref):
    d = os.path.join(out, name)
    cmd = [clp, "train", "-d", "host", "--engines", "host:exact,host:f64", "--d-model",
           str(ref["d"]), "--layers", str(ref["layers"]), "--batch", str(ref["batch"]),
           "--target", "random", "--steps", str(ref["steps"]), "--save", d, "--json",
           d + ".json"] + mk.clparity_args(opt)
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        print(f"FAIL: {name}: {' '.join(cmd)} exited {run.returncode}\n{run.stderr}")
        return False
    ok = True
    _, shas = mk.load_inputs(d)
    if shas != ref["inputs_sha256"]:
        print(f"FAIL: {name}: clparity's inputs {shas} are not the fixture's "
              f"{ref['inputs_sha256']}")
        ok = False
    index = json.load(open(os.path.join(d, "index.json")))
    got_opt = index["model"]["optimizer"]
    if got_opt != opt:
        print(f"FAIL: {name}: clparity trained with {got_opt}, the fixture with {opt}")
        ok = False
    if float(np.float32(index["model"]["lr"])) != ref["lr"]:  # cJSON prints 15 digits
        print(f"FAIL: {name}: lr {index['model']['lr']!r} against the fixture's {ref['lr']!r}")
        ok = False
    files = {r["engine"]: r["file"] for r in index["results"]}
    want = ref["cases"][name]
    f64 = np.load(os.path.join(d, files["host:f64"])).reshape(-1)
    rel, i = rel_elem(f64, want["weights"])
    print(f"{name}: host:f64 weights after {ref['steps']} steps vs {ref['made_by']}: max "
          f"elementwise rel {rel:.3e} (element {i}: {f64[i]!r} vs {want['weights'][i]!r})")
    if not rel <= TOL:
        print(f"FAIL: {name}: host:f64's weights differ by more than {TOL:g}")
        ok = False
    steps = json.load(open(d + ".json"))["steps"]
    losses = [s["loss"] for s in steps if s["engine"] == "host:f64"]
    lrel, li = rel_elem(losses, want["losses"])
    print(f"{name}: host:f64 losses (step 1 {losses[0]:.6e}, step {len(losses)} "
          f"{losses[-1]:.6e}) vs the fixture's: max rel {lrel:.3e} (step {li + 1})")
    if len(losses) != len(want["losses"]) or not lrel <= TOL:
        print(f"FAIL: {name}: host:f64's losses differ from the fixture's")
        ok = False
    if not losses[-1] < losses[0]:
        print(f"FAIL: {name}: the loss did not go down")
        ok = False
    ex = np.load(os.path.join(d, files["host:exact"])).reshape(-1).astype(np.float64)
    w = np.asarray(want["weights"])
    rtm = float(np.max(np.abs(ex - w)) / np.max(np.abs(w)))
    print(f"{name}: host:exact (float32) vs the fixture: rel_to_max {rtm:.3e}")
    if not rtm <= 1e-4:
        print(f"FAIL: {name}: host:exact is far from the float64 training")
        ok = False
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("clparity")
    ap.add_argument("out")
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--fixture")
    g.add_argument("--numpy", action="store_true")
    a = ap.parse_args()
    if a.numpy:
        ref = mk.make("numpy")
    elif not os.path.exists(a.fixture):
        print(f"SKIP: fixture not made yet: {a.fixture} does not exist (make it with "
              "tests/fixtures/make_optim_fixture.py on a machine with torch)")
        return 77
    else:
        try:
            ref = json.load(open(a.fixture))
        except (OSError, ValueError) as e:
            print(f"check_optim_fixture: bad fixture {a.fixture}: {e}")
            return 2
    os.makedirs(a.out, exist_ok=True)
    print(f"reference: {ref['made_by']}")
    ok = True
    for name, opt in mk.CASES.items():
        if name not in ref["cases"] or ref["cases"][name]["optimizer"] != opt:
            print(f"FAIL: {name}: the fixture has no such case, or another optimizer")
            ok = False
            continue
        ok = check_case(a.clparity, a.out, name, opt, ref) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
