#!/usr/bin/env python3
"""Checks a `clparity train --save DIR` folder against an independent float64 NumPy
implementation of the training, written from the formulas of clparity/train.h:

  forward   z = a @ W.T + b, a' = (residual ? a : 0) + act(z)   (index.json's layer_list)
  loss      mean((y - t)^2) over batch x width
  gradient  g = 2/N (y - t); dz = g * (z > 0) for ReLU; dW = dz.T @ a; db = sum(dz);
            da = dz @ W (+ g with a residual)
  update    W -= lr * dW, with lr the float32 value of --lr; or the optimizer of
            index.json's model.optimizer (momentum, Nesterov, Adam, AdamW, weight decay), as
            PyTorch's documentation states them (optim_step below)

Usage: check_train.py DIR [--tol 1e-12] [--exact-equal] [--json FILE]
  - host:f64's final weights must match NumPy's within rel_to_max = max|a-r| / max|r| <= tol;
  - every float32 result must be within rel_to_max 1e-4 of NumPy's;
  - host:f64's final loss (index.json) must match NumPy's loss at the last step within tol,
    every other result's within 1e-4 relative, and the loss must have gone down from the
    first step (the training learned something, whatever the target);
  - with --exact-equal, every cl:own result's weights must be bit-identical to host:exact's,
    and so must its optimizer state (the state files of index.json);
  - host:f64's optimizer state must match NumPy's within the same tol (rel_to_max);
  - with --json FILE (the same run's `--json`), the last step's measurements of every result
    (base_max_abs, base_max_ulp, base_bitwise, f64_max_abs, f64_max_ulp) must equal those
    recomputed here from the saved final weights against host:exact's and host:f64's.
Exit status 0 on success, 1 on a failed check, 2 on a bad folder."""
import argparse
import json
import os
import sys

import numpy as np


class Optim:
    """An optimizer's state and step over the flat parameters, from its mathematical
    definition (PyTorch's documentation of SGD and Adam/AdamW), in float64 NumPy; opt is
    index.json's model.optimizer (None: plain SGD)."""

    def __init__(self, opt, lr, n):
        self.o = opt or {"name": "sgd", "weight_decay": 0.0}
        self.lr, self.t = lr, 0
        self.state = {}
        if self.o["name"] == "momentum":
            self.state["momentum_buffer"] = np.zeros(n)
        elif self.o["name"] in ("adam", "adamw"):
            self.state["exp_avg"] = np.zeros(n)
            self.state["exp_avg_sq"] = np.zeros(n)

    def step(self, p, g):
        o, lr, wd = self.o, self.lr, self.o["weight_decay"]
        self.t += 1
        if o["name"] in ("sgd", "momentum"):
            g = g + wd * p
            if o["name"] == "momentum":
                mu, b = o["momentum"], self.state["momentum_buffer"]
                b[:] = g if self.t == 1 else mu * b + g
                g = g + mu * b if o["nesterov"] else b.copy()
            p -= lr * g
            return
        b1, b2 = o["betas"]
        if o["name"] == "adamw":
            p *= 1 - lr * wd
        else:
            g = g + wd * p
        m, v = self.state["exp_avg"], self.state["exp_avg_sq"]
        m[:] = b1 * m + (1 - b1) * g
        v[:] = b2 * v + (1 - b2) * g * g
        mhat = m / (1 - b1 ** self.t)
        vhat = v / (1 - b2 ** self.t)
        p -= lr * mhat / (np.sqrt(vhat) + o["eps"])


def train_f64(x, t, p, layers, steps, lr, opt=None):
    """The flat parameters p after `steps` steps of the optimizer opt (index.json's
    model.optimizer; None: plain SGD), the loss of each step (at its forward, before its
    update) and the optimizer's state; layers is index.json's layer_list."""
    p = p.astype(np.float64).reshape(-1).copy()
    x = x.astype(np.float64)
    t = t.astype(np.float64)
    n = t.size
    losses = []
    optim = Optim(opt, lr, p.size)

    def weight(ly):
        return p[ly["w_off"]:ly["w_off"] + ly["out"] * ly["in"]].reshape(ly["out"], ly["in"])

    for _ in range(steps):
        acts, zs = [x], []
        a = x
        for ly in layers:
            z = a @ weight(ly).T
            if ly["has_bias"]:
                z = z + p[ly["b_off"]:ly["b_off"] + ly["out"]]
            zs.append(z)
            r = np.where(z > 0, z, 0.0) if ly["act"] == "relu" else z
            a = a + r if ly["residual"] else r
            acts.append(a)
        losses.append(float(np.sum((a - t) ** 2) / n))
        g = (2.0 / n) * (a - t)
        grad = np.zeros_like(p)
        for l in reversed(range(len(layers))):
            ly = layers[l]
            dz = g * (zs[l] > 0) if ly["act"] == "relu" else g
            w = weight(ly)
            grad[ly["w_off"]:ly["w_off"] + ly["out"] * ly["in"]] = (dz.T @ acts[l]).reshape(-1)
            if ly["has_bias"]:
                grad[ly["b_off"]:ly["b_off"] + ly["out"]] = dz.sum(axis=0)
            g = dz @ w + (g if ly["residual"] else 0.0)  # every W is updated after the backward
        optim.step(p, grad)
    return p, losses, optim.state


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--tol", type=float, default=1e-12)
    ap.add_argument("--exact-equal", action="store_true")
    ap.add_argument("--json")
    a = ap.parse_args()
    try:
        with open(os.path.join(a.dir, "index.json")) as f:
            index = json.load(f)
        m = index["model"]
        x = np.load(os.path.join(a.dir, "x.npy"))
        t = np.load(os.path.join(a.dir, "target.npy"))
        w0 = np.load(os.path.join(a.dir, "weights.npy"))
        res = {(r["device"], r["engine"]): np.load(os.path.join(a.dir, r["file"]))
               for r in index["results"]}
    except (OSError, KeyError, ValueError) as e:
        print(f"check_train: bad folder {a.dir}: {e}", file=sys.stderr)
        return 2
    lr = float(np.float32(m["lr"]))
    w0 = w0.reshape(-1)
    ref, losses, ref_state = train_f64(x, t, w0, m["layer_list"], int(m["steps"]), lr,
                                       m.get("optimizer"))
    ok = True
    res = {k: v.reshape(-1) for k, v in res.items()}
    f64 = res[("host", "host:f64")]
    if f64.dtype != np.float64:
        print(f"FAIL: host:f64 weights are {f64.dtype}, not float64")
        ok = False
    rel = float(np.max(np.abs(f64 - ref)) / np.max(np.abs(ref)))
    print(f"host:f64 vs NumPy float64 after {m['steps']} steps: rel_to_max = {rel:.3e} "
          f"(tol {a.tol:g})")
    if not rel <= a.tol:
        ok = False
        print("FAIL: host:f64 differs from the NumPy implementation")
    # The training must have moved the weights, or the comparison proves nothing.
    moved = float(np.max(np.abs(ref - w0.astype(np.float64))))
    print(f"largest weight change over the training: {moved:.3e}")
    if not moved > 0:
        ok = False
        print("FAIL: the weights did not change")
    print(f"NumPy's loss: {losses[0]:.6e} at step 1, {losses[-1]:.6e} at step {len(losses)}")
    if len(losses) > 1 and not losses[-1] < losses[0]:
        ok = False
        print("FAIL: the loss did not go down")
    for r in index["results"]:
        rl = abs(r["final_loss"] - losses[-1]) / abs(losses[-1]) if losses[-1] else r["final_loss"]
        tol = a.tol if r["engine"] == "host:f64" else 1e-4
        if not rl <= tol:
            ok = False
            print(f"FAIL: {r['device']} {r['engine']}: final loss {r['final_loss']!r} is "
                  f"{rl:.3e} from NumPy's (tol {tol:g})")
    exact = res[("host", "host:exact")]
    for (dev, eng), w in sorted(res.items()):
        if w.dtype != np.float32:
            continue
        rel32 = float(np.max(np.abs(w.astype(np.float64) - ref)) / np.max(np.abs(ref)))
        print(f"{dev} {eng} vs NumPy float64: rel_to_max = {rel32:.3e}")
        if not rel32 <= 1e-4:
            ok = False
            print(f"FAIL: {dev} {eng} is far from the float64 training")
        if a.exact_equal and eng in ("cl:own", "host:exact"):
            same = w.tobytes() == exact.tobytes()
            print(f"{dev} {eng}: {'bit-identical to' if same else 'DIFFERS from'} host:exact")
            ok = ok and same
    ok = check_state(a, index, ref_state) and ok
    if a.json:
        ok = check_measures(a.json, int(m["steps"]), res) and ok
    return 0 if ok else 1


def ulp_key(v):
    """NumPy's integer_repr of float32 values: negative floats below zero, in order."""
    i = np.asarray(v, dtype=np.float32).view(np.int32).astype(np.int64)
    return np.where(i < 0, np.int64(-2**31) - i, i)


def check_measures(path, steps, res):
    """The last step's records in train's --json against the saved final weights."""
    with open(path) as f:
        recs = [r for r in json.load(f)["steps"] if r["step"] == steps]
    exact, f64 = res[("host", "host:exact")], res[("host", "host:f64")]
    ok = bool(recs)
    for r in recs:
        w = res[(r["device"], r["engine"])]
        a = w.astype(np.float64)
        a32 = a.astype(np.float32)
        want = {
            "base_max_abs": float(np.max(np.abs(a - exact.astype(np.float64)))),
            "base_max_ulp": int(np.max(np.abs(ulp_key(a32) - ulp_key(exact)))),
            "base_bitwise": float(np.mean(a32.view(np.int32) == exact.view(np.int32))
                                  if w.dtype == np.float32 else np.mean(a == exact)),
            "f64_max_abs": float(np.max(np.abs(a - f64))),
            "f64_max_ulp": int(np.max(np.abs(ulp_key(a32) - ulp_key(f64.astype(np.float32))))),
        }
        bad = {k: (r[k], v) for k, v in want.items() if r[k] != v}
        print(f"{r['device']} {r['engine']} step {steps}: measurements "
              f"{'equal NumPy' + chr(39) + 's' if not bad else 'DIFFER: ' + repr(bad)}")
        ok = ok and not bad
    if not recs:
        print(f"FAIL: {path} has no records of step {steps}")
    return ok


def check_state(a, index, ref_state):
    """The optimizer state files: host:f64's against NumPy's (tol, rel_to_max), and with
    --exact-equal every cl:own result's bit-identical to host:exact's."""
    ok = True
    files = {(r["device"], r["engine"]): r.get("state_files", {}) for r in index["results"]}
    if sorted(files.get(("host", "host:exact"), {})) != sorted(ref_state):
        print(f"FAIL: host:exact's state files {sorted(files.get(('host', 'host:exact'), {}))} "
              f"are not the optimizer's {sorted(ref_state)}")
        return False
    load = lambda f: np.load(os.path.join(a.dir, f)).reshape(-1)
    for name, ref in sorted(ref_state.items()):
        f64 = load(files[("host", "host:f64")][name])
        rel = float(np.max(np.abs(f64 - ref)) / max(np.max(np.abs(ref)), 1e-300))
        print(f"host:f64 {name} vs NumPy: rel_to_max = {rel:.3e}")
        if not rel <= a.tol:
            ok = False
            print(f"FAIL: host:f64's {name} differs from the NumPy implementation")
        exact = load(files[("host", "host:exact")][name])
        for (dev, eng), fs in sorted(files.items()):
            if a.exact_equal and eng == "cl:own":
                same = load(fs[name]).tobytes() == exact.tobytes()
                print(f"{dev} {eng} {name}: {'bit-identical to' if same else 'DIFFERS from'} "
                      "host:exact's")
                ok = ok and same
    return ok


if __name__ == "__main__":
    sys.exit(main())
