#!/usr/bin/env python3
"""Checks a `clparity compare --model ... --save DIR --json FILE` run on a PyTorch fixture.

usage: check_fixture.py DIR JSON FIXTURES NAME [DEVICE_SUBSTRING ...]

- every result (every device x engine) matches PyTorch's float64 CPU output
  (FIXTURES/NAME_torch_cpu64.npy) within torch's float32 tolerance
  |a - r| <= 1e-5 + 1.3e-6 |r|, element by element;
- every cl:own result equals host:exact bit for bit;
- with labels (FIXTURES/NAME_y.npy), the accuracy of every result, both as clparity
  reports it in the JSON and as recomputed here from the saved outputs, equals PyTorch's
  float32 CPU accuracy (FIXTURES/fixtures.json);
- each DEVICE_SUBSTRING names a device present among the results (so that a run that lost
  a platform cannot pass).
PyTorch's own float32 outputs (CPU and CUDA) are measured the same way and printed, as a
yardstick.
"""
import json
import os
import sys

import numpy as np


def torch_tol(a, r):
    err = np.abs(a.astype(np.float64) - r)
    bad = int(np.count_nonzero(err > 1e-5 + 1.3e-6 * np.abs(r)))
    return bad, float(err.max() / np.abs(r).max())


def main(folder, json_path, fixtures, name, devices):
    ref = np.load(os.path.join(fixtures, f"{name}_torch_cpu64.npy"))
    for tag in ("cpu32", "cuda32"):
        bad, rtm = torch_tol(np.load(os.path.join(fixtures, f"{name}_torch_{tag}.npy")), ref)
        print(f"PyTorch {tag:6s} vs PyTorch float64: {bad} beyond torch's tolerance, "
              f"rel_to_max {rtm:.3e}")
    index = json.load(open(os.path.join(folder, "index.json")))
    model = index["model"]
    assert model["arch"] == "file" and len(model["model_sha256"]) == 64, model
    assert not os.path.exists(os.path.join(folder, "weights.npy")), "weights.npy re-saved"
    failures = []
    outputs = {}
    for r in index["results"]:
        a = np.load(os.path.join(folder, r["file"]))
        assert a.shape == ref.shape, (r["file"], a.shape, ref.shape)
        bad, rtm = torch_tol(a, ref)
        print(f"{r['device'][:40]:40s} {r['engine']:14s} {bad} beyond torch's tolerance, "
              f"rel_to_max {rtm:.3e}")
        if bad:
            failures.append(f"{r['engine']} on {r['device']}: {bad} elements beyond torch's "
                            "tolerance")
        outputs[(r["device"], r["engine"])] = a
    for d in devices:
        if not any(d in dev for dev, _ in outputs):
            failures.append(f"no result from a device matching '{d}'")
    exact = [a for (dev, eng), a in outputs.items() if eng == "host:exact"]
    own = [(dev, a) for (dev, eng), a in outputs.items() if eng == "cl:own"]
    if not exact or not own:
        failures.append("the run needs cl:own and host:exact results")
    for dev, a in own:
        if exact and a.tobytes() != exact[0].tobytes():
            failures.append(f"cl:own on {dev} differs from host:exact")
        else:
            print(f"cl:own on {dev[:40]} == host:exact bit for bit")
    labels_path = os.path.join(fixtures, f"{name}_y.npy")
    if os.path.exists(labels_path):
        y = np.load(labels_path)
        info = json.load(open(os.path.join(fixtures, "fixtures.json")))
        want = info[f"{name}_accuracy"]["cpu32"]
        report = json.load(open(json_path))["labels"]
        for (dev, eng), a in outputs.items():
            acc = float(np.mean(np.argmax(a, axis=1) == y))
            print(f"{dev[:40]:40s} {eng:14s} accuracy {acc:.6f} (PyTorch CPU {want:.6f})")
            if acc != want:
                failures.append(f"{eng} on {dev}: accuracy {acc} != PyTorch's {want}")
        for entry in report["accuracy"]:
            if abs(entry["accuracy"] - want) > 1e-12:
                failures.append(f"reported accuracy of {entry['engine']} on {entry['device']}: "
                                f"{entry['accuracy']} != PyTorch's {want}")
        assert report["count"] == len(y)
    if failures:
        print("FAIL:\n  " + "\n  ".join(failures))
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
