#!/usr/bin/env python3
"""Checks the correctly rounded engines' training (cl:cr, host:cr; docs/TRAINING.md).

check_cr_train.py TRAIN_JSON
    A `clparity train --json` run with cl:cr (issue 23, acceptance 4): every cl:cr result's
    weights were host:cr's bits at every recorded step (first_divergent_step_cr 0), its final
    forward was host:cr's (forward_equals_cr), and its final weights' hash is host:cr's.

check_cr_train.py DIR [--json TRAIN_JSON] [--plant-bit STEP]
    The independent reference (issue 34, acceptance 4): a `clparity train --save DIR` folder
    (any optimizer: sgd, momentum, nesterov, adam, adamw, weight decay) trained again here
    from its inputs, its initial weights and index.json's settings, written from the contract
    of docs/TRAINING.md and nothing of clparity's code:
      - every sum (the forward's Σ x·W + b, the input gradient's Σ dz·W + g of a residual, the
        weight and bias gradients' Σ dz·x and Σ dz) is summed exactly in rationals
        (fractions.Fraction) and rounded once to float32, to nearest even;
      - every elementwise operation is one float32 operation: NumPy's float32 -, +, · (IEEE);
        fma, / and sqrt exactly in rationals, rounded once (sqrt through math.isqrt);
      - the optimizer's scalars in double as train's host side computes them: (1 − beta^t)
        from the exact power rounded to double, then each rounded to float32.
    Every cl:cr and host:cr result's final weights and optimizer state must be the
    reference's bits, and with --json (the same run's) every recorded step's loss too (the
    loss is a function of that step's forward output, in double, i ascending; compared bit for
    bit: the JSON's numbers read back as the doubles written, cp_json_print).
    --plant-bit STEP flips the lowest bit of the reference's first weight after STEP's
    update: the check must then fail (the test that it can).
Exit status 0 when all hold, 1 otherwise, 2 on a bad folder."""
import argparse
import json
import math
import os
import sys
from fractions import Fraction as F

import numpy as np

f32 = np.float32


def rn32(q):
    """The exact rational q rounded to float32, to nearest even (subnormals, overflow)."""
    q = F(q)
    return rn32_nd(q.numerator, q.denominator)


def rn32_nd(sn, d):
    """sn/d (integers, d > 0) rounded so: N = round(|sn/d|·2^(23−e)) with
    e = max(floor(log2 |sn/d|), −126)."""
    n = abs(sn)
    if n == 0:
        return f32(0.0)  # an exact zero: the caller gives its sign
    e = n.bit_length() - d.bit_length()
    if (n < d << e) if e >= 0 else (n << -e < d):
        e -= 1
    e = max(e, -126)
    sh = 23 - e
    num, den = (n << sh, d) if sh >= 0 else (n, d << -sh)
    N, r = divmod(num, den)
    if 2 * r > den or (2 * r == den and N % 2 == 1):
        N += 1
    v = math.ldexp(N, e - 23) if N < 2 ** 25 and e - 23 < 1000 else math.inf
    if v >= 2.0 ** 128:
        v = math.inf
    return f32(-v if sn < 0 else v)


def exact(x):
    return F(float(x))


def fixed(x):
    """The float32 x as the integer x·2^149 (every float32 is a multiple of 2^-149)."""
    n, d = float(x).as_integer_ratio()
    return n * (2 ** 149 // d)


def dot32(xs, ws, extra=()):
    """RN(Σ x·w + Σ extra), the exact sum (integers scaled by 2^298) rounded once; an exact
    zero is −0 only when every term was −0 (IEEE 754's sum of zeros)."""
    s = sum(fixed(a) * fixed(b) for a, b in zip(xs, ws)) + sum(fixed(e) for e in extra) * 2 ** 149
    if s != 0:
        return rn32_nd(s, 2 ** 298)
    signs = [f32(a) * f32(b) for a, b in zip(xs, ws)] + [f32(e) for e in extra]
    return f32(-0.0) if signs and all(np.signbit(v) and v == 0 for v in signs) else f32(0.0)


def fma32(a, b, c):
    """RN(a·b + c), one rounding (a zero result signed as IEEE's fma)."""
    s = exact(a) * exact(b) + exact(c)
    if s != 0:
        return rn32(s)
    return f32(a) * f32(b) + f32(c)  # both exact zeros: float32's sign rule


def div32(a, b):
    """RN(a / b) for b nonzero; a zero quotient signed as IEEE's (the operands' signs)."""
    if a == 0:
        return f32(-0.0) if np.signbit(a) != np.signbit(b) else f32(0.0)
    return rn32(exact(a) / exact(b))


def sqrt32(a):
    """RN(sqrt(a)) for a >= 0: the root truncated to 600 fractional bits rounds as the exact
    root (an inexact root is irrational: no tie lies within 2^-600 of it)."""
    if a == 0:
        return f32(a)
    n = exact(a) * F(4) ** 600
    assert n.denominator == 1
    return rn32(F(math.isqrt(n.numerator), 2 ** 600))


def pow_rn(b, t):
    """b^t (b a double) exactly, rounded to double."""
    p = F(b) ** t
    return float(p)  # Fraction -> float rounds to nearest (even)


class Optim:
    """train's optimizers in clparity/train.h's order on float32 (hostblas/train_host_tmpl.h
    states the same order in C)."""

    def __init__(self, o, lr, n):
        self.o = o or {"name": "sgd", "weight_decay": 0.0}
        self.lr, self.t = lr, 0
        self.state = {}
        if self.o["name"] == "momentum":
            self.state["momentum_buffer"] = [f32(0)] * n
        elif self.o["name"] in ("adam", "adamw"):
            self.state["exp_avg"] = [f32(0)] * n
            self.state["exp_avg_sq"] = [f32(0)] * n

    def step(self, p, G):
        o, lr = self.o, self.lr
        self.t += 1
        t = self.t
        wd_d = float(o.get("weight_decay", 0.0))
        neg_lr, wd = f32(-lr), f32(wd_d)
        decay_on = wd_d != 0.0
        name = o["name"]
        if name == "sgd":
            for i in range(len(p)):
                g = fma32(p[i], wd, G[i]) if decay_on else G[i]
                p[i] = fma32(g, neg_lr, p[i])
            return
        if name == "momentum":
            mom, b = f32(o["momentum"]), self.state["momentum_buffer"]
            for i in range(len(p)):
                g = fma32(p[i], wd, G[i]) if decay_on else G[i]
                b[i] = g if t == 1 else f32(f32(b[i] * mom) + g)
                g = fma32(b[i], mom, g) if o["nesterov"] else b[i]
                p[i] = fma32(g, neg_lr, p[i])
            return
        b1, b2 = float(o["betas"][0]), float(o["betas"][1])
        w1, beta2, c2 = f32(1.0 - b1), f32(b2), f32(1.0 - b2)
        bc1, bc2 = 1.0 - pow_rn(b1, t), 1.0 - pow_rn(b2, t)
        nss, bc2_sqrt = f32(-(lr / bc1)), f32(math.sqrt(bc2))
        decay, eps = f32(1.0 - lr * wd_d), f32(o["eps"])
        small = abs(w1) < f32(0.5)
        m, v = self.state["exp_avg"], self.state["exp_avg_sq"]
        for i in range(len(p)):
            g = G[i]
            if decay_on and name == "adamw":
                p[i] = f32(p[i] * decay)
            elif decay_on:
                g = fma32(p[i], wd, g)
            d = f32(g - m[i])
            m[i] = fma32(w1, d, m[i]) if small else fma32(f32(w1 - f32(1)), d, g)
            v[i] = f32(v[i] * beta2)
            v[i] = f32(v[i] + f32(f32(c2 * g) * g))
            denom = f32(div32(sqrt32(v[i]), bc2_sqrt) + eps)
            p[i] = f32(p[i] + div32(f32(nss * m[i]), denom))


def relu(v):
    return f32(0.0) if v <= 0 else v  # NaN passes


def train_cr(x, t, p, layers, steps, lr, opt, plant_step):
    """The reference's weights, state and losses after `steps` steps."""
    B, n = x.shape[0], t.size
    p = [f32(v) for v in p.reshape(-1)]
    t = t.reshape(B, -1)
    optim = Optim(opt, lr, len(p))
    losses = []

    def w(ly, o, k):
        return p[ly["w_off"] + o * ly["in"] + k]

    for step in range(1, steps + 1):
        acts, zs = [[[f32(v) for v in row] for row in x]], []
        for ly in layers:
            a, z, y = acts[-1], [], []
            for b in range(B):
                zr, yr = [], []
                for o in range(ly["out"]):
                    bias = [p[ly["b_off"] + o]] if ly["has_bias"] else []
                    v = dot32(a[b], [w(ly, o, k) for k in range(ly["in"])], bias)
                    r = relu(v) if ly["act"] == "relu" else v
                    zr.append(v)
                    yr.append(f32(a[b][o] + r) if ly["residual"] else r)
                z.append(zr)
                y.append(yr)
            zs.append(z)
            acts.append(y)
        y = acts[-1]
        s = 0.0
        for b in range(B):
            for o in range(len(y[b])):
                dd = float(y[b][o]) - float(t[b][o])
                s = s + dd * dd
        losses.append(s / n)
        sc = f32(f32(2) / f32(n))
        g = [[f32(sc * f32(y[b][o] - t[b][o])) for o in range(len(y[b]))] for b in range(B)]
        G = [f32(0)] * len(p)
        for li in reversed(range(len(layers))):
            ly = layers[li]
            dz = [[(g[b][o] if zs[li][b][o] > 0 else f32(0)) if ly["act"] == "relu" else g[b][o]
                   for o in range(ly["out"])] for b in range(B)]
            xa = acts[li]
            for o in range(ly["out"]):
                for k in range(ly["in"]):
                    G[ly["w_off"] + o * ly["in"] + k] = dot32([dz[b][o] for b in range(B)],
                                                             [xa[b][k] for b in range(B)])
                if ly["has_bias"]:
                    G[ly["b_off"] + o] = dot32([], [], [dz[b][o] for b in range(B)])
            if li > 0:  # dx with the pre-update W (every update comes after the backward)
                g = [[dot32([dz[b][o] for o in range(ly["out"])],
                            [w(ly, o, k) for o in range(ly["out"])],
                            [g[b][k]] if ly["residual"] else [])
                      for k in range(ly["in"])] for b in range(B)]
        optim.step(p, G)
        if step == plant_step:
            p[0] = (np.array([p[0]], dtype=np.float32).view(np.uint32) ^ 1).view(np.float32)[0]
    return np.array(p, dtype=np.float32), {k: np.array(v, dtype=np.float32)
                                           for k, v in optim.state.items()}, losses


def check_json(path):
    with open(path) as f:
        doc = json.load(f)
    host = [r for r in doc["results"] if r["engine"] == "host:cr"]
    cls = [r for r in doc["results"] if r["engine"] == "cl:cr"]
    if len(host) != 1 or not cls:
        print(f"FAIL: {len(host)} host:cr and {len(cls)} cl:cr results in {path}")
        return 1
    bad = 0
    for r in cls:
        ok = (r.get("first_divergent_step_cr") == 0 and r.get("forward_equals_cr") is True
              and r["hash"] == host[0]["hash"])
        print(f"{'ok' if ok else 'FAIL'}: cl:cr on {r['device']}: weights {r['hash']} (host:cr "
              f"{host[0]['hash']}), first step not host:cr's: {r.get('first_divergent_step_cr')}, "
              f"forward equal: {r.get('forward_equals_cr')}")
        bad += not ok
    return 1 if bad else 0


def first_diff(a, b):
    d = np.flatnonzero(a.view(np.uint32) != b.view(np.uint32))
    return (len(d), int(d[0])) if len(d) else (0, -1)


def check_reference(a):
    try:
        with open(os.path.join(a.path, "index.json")) as f:
            index = json.load(f)
        m = index["model"]
        x = np.load(os.path.join(a.path, "x.npy"))
        t = np.load(os.path.join(a.path, "target.npy"))
        w0 = np.load(os.path.join(a.path, "weights.npy"))
        res = [r for r in index["results"] if r["engine"] in ("cl:cr", "host:cr")]
        steps_doc = None
        if a.json:
            with open(a.json) as f:
                steps_doc = json.load(f)["steps"]
    except (OSError, KeyError, ValueError) as e:
        print(f"check_cr_train: bad folder {a.path}: {e}", file=sys.stderr)
        return 2
    if not res:
        print(f"FAIL: no cl:cr or host:cr result in {a.path}")
        return 1
    lr = float(np.float32(m["lr"]))
    x = x.reshape(int(m["batch"]), -1).astype(np.float32)
    ref, state, losses = train_cr(x, t.astype(np.float32), w0.astype(np.float32),
                                  m["layer_list"], int(m["steps"]), lr, m.get("optimizer"),
                                  a.plant_bit)
    moved = int(np.sum(ref.view(np.uint32) != w0.reshape(-1).astype(np.float32).view(np.uint32)))
    name = (m.get("optimizer") or {}).get("name", "sgd")
    print(f"reference: {name}, {m['steps']} steps, {moved} of {ref.size} weights moved, "
          f"loss {losses[0]!r} at step 1, {losses[-1]!r} at step {len(losses)}")
    bad = 0 if moved else 1
    if not moved:
        print("FAIL: the training did not move the weights: the comparison proves nothing")
    for r in res:
        w = np.load(os.path.join(a.path, r["file"])).reshape(-1)
        nd, i = first_diff(w, ref)
        ok = w.dtype == np.float32 and nd == 0
        print(f"{'ok' if ok else 'FAIL'}: {r['engine']} on {r['device']}: weights "
              + ("the reference's bits" if ok else
                 f"differ in {nd} of {ref.size}, first [{i}] {float(w[i])!r} against "
                 f"{float(ref[i])!r}"))
        bad += not ok
        files = r.get("state_files", {})
        if sorted(files) != sorted(state):
            print(f"FAIL: {r['engine']}: state files {sorted(files)}, not {sorted(state)}")
            bad += 1
        for k in sorted(state):
            if k not in files:
                continue
            s = np.load(os.path.join(a.path, files[k])).reshape(-1)
            nd, i = first_diff(s, state[k])
            print(f"{'ok' if nd == 0 else 'FAIL'}: {r['engine']} on {r['device']}: {k} "
                  + ("the reference's bits" if nd == 0 else
                     f"differs in {nd}, first [{i}] {float(s[i])!r} against "
                     f"{float(state[k][i])!r}"))
            bad += nd != 0
        if steps_doc is not None:
            recs = [s for s in steps_doc if s["engine"] == r["engine"] and
                    s["device"] == r["device"]]
            wrong = [s["step"] for s in recs if s["loss"] != losses[s["step"] - 1]]
            ok = recs and not wrong
            print(f"{'ok' if ok else 'FAIL'}: {r['engine']} on {r['device']}: the loss of "
                  f"{len(recs)} recorded steps "
                  + ("the reference's" if ok else f"differs at steps {wrong[:5]}"))
            bad += not ok
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("path", help="train's --json file, or a --save folder")
    ap.add_argument("--json", help="the same run's --json file (with a folder)")
    ap.add_argument("--plant-bit", type=int, default=0, metavar="STEP")
    a = ap.parse_args()
    if os.path.isdir(a.path):
        return check_reference(a)
    return check_json(a.path)


if __name__ == "__main__":
    sys.exit(main())
