#!/usr/bin/env python3
"""Checks a `clparity run --save DIR` folder with an independent float64 forward in numpy.

- host:f64 matches numpy's float64 forward of x.npy and weights.npy to rel_to_max <= 1e-12;
- every float32 result is within rel_to_max <= 1e-5 of it;
- every cl:own result equals host:exact bit for bit;
- index.json has DESIGN.md's keys, and each result's hash is FNV-1a 64 of its bytes.
"""
import json
import sys

import numpy as np


def fnv1a(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def main(folder, expect_devices=None):
    index = json.load(open(f"{folder}/index.json"))
    for key in ("schema", "version", "provenance", "model", "results"):
        assert key in index, f"index.json lacks {key}"
    for key in ("clparity_version", "git_hash", "command", "date", "host_cpu", "icd",
                "environment", "kernel_build_options"):
        assert key in index["provenance"], f"provenance lacks {key}"
    x = np.load(f"{folder}/x.npy")
    w = np.load(f"{folder}/weights.npy")
    assert x.dtype == np.float32 and w.dtype == np.float32
    model = index["model"]
    assert w.shape == (model["layers"], model["d"], model["d"]), w.shape
    assert x.shape == (model["batch"], model["d"]), x.shape
    y = x.astype(np.float64)
    for layer in w.astype(np.float64):
        t = y @ layer.T
        y = y + np.where(t <= 0.0, 0.0, t)
    ref = y
    scale = np.max(np.abs(ref))
    results = index["results"]
    by_engine = {}
    for r in results:
        a = np.load(f"{folder}/{r['file']}")
        assert a.dtype == (np.float64 if r["dtype"] == "<f8" else np.float32), r
        h = fnv1a(a.astype(a.dtype.newbyteorder("<")).tobytes())
        assert f"{h:016x}" == r["hash"], f"{r['file']}: hash {h:016x} != {r['hash']}"
        err = np.max(np.abs(a.astype(np.float64) - ref)) / scale
        limit = 1e-12 if r["engine"] == "host:f64" else 1e-5
        print(f"{r['device']:40s} {r['engine']:14s} rel_to_max {err:.3e} (limit {limit:g})")
        assert err <= limit, f"{r['engine']} on {r['device']}: rel_to_max {err} > {limit}"
        by_engine.setdefault(r["engine"], []).append((r["device"], a))
    # The reference is saved whether or not host:f64 was listed among the engines.
    if "reference" in index:
        a = np.load(f"{folder}/{index['reference']['file']}")
        assert a.dtype == np.float64
        assert f"{fnv1a(a.tobytes()):016x}" == index["reference"]["hash"]
        err = np.max(np.abs(a - ref)) / scale
        print(f"reference.npy (host:f64) rel_to_max {err:.3e} (limit 1e-12)")
        assert err <= 1e-12, f"reference.npy: rel_to_max {err} > 1e-12"
        by_engine.setdefault("host:f64", []).append(("host", a))
    assert "host:f64" in by_engine, "no host:f64 result"
    exact = by_engine["host:exact"][0][1] if "host:exact" in by_engine else np.load(f"{folder}/baseline.npy")
    for dev, a in by_engine.get("cl:own", []):
        same = np.array_equal(a.view(np.uint32), exact.view(np.uint32))
        print(f"cl:own on {dev}: bitwise equal to host:exact: {same}")
        assert same, f"cl:own on {dev} differs from host:exact"
    if expect_devices:
        seen = {d for d, _ in by_engine.get("cl:own", [])}
        for want in expect_devices:
            assert any(want.lower() in d.lower() for d in seen), f"no cl:own result on {want}"
    print(f"ok: {len(results)} results checked")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
