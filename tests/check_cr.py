#!/usr/bin/env python3
"""Checks the correctly rounded engines (host:cr and cl:cr) against an independent exact
computation with fractions.Fraction (issue 23, docs/ENGINES.md "host:cr and cl:cr").

Usage: check_cr.py CLPARITY OUTDIR [--engines host:cr[,cl:cr]] [-d SELECTOR]
                   [--expect-mismatch] [--seed N] [--quick]

It generates small models of odd shapes (safetensors with the clparity.arch metadata, so that
every layer has its own bias, activation and residual) and float32 inputs (.npy): random layers,
sums on or one unit off a rounding tie, cancellation to zero (the sign of zero), outputs near
overflow and in the subnormal range, NaN and infinity patterns; with and without bias, ReLU and
residual, one to three layers; and sums just off a tie whose float-float error sum (cl:cr's
float32 method) rounds to the tie's wrong side, which only that method's error bound catches.
Each model runs once through `clparity run --save` on every engine listed; every output must
have the bits of the contract, computed here layer by layer from the float32 inputs and
weights:
  v = RN(sum_k x[k]*W[o][k] + b[o]), the exact sum rounded once to float32, ties to even
      (subnormals, overflow to inf from 2^128 - 2^103); NaN for a NaN term or inf*0 or +inf
      with -inf, else the infinity; an exact zero is -0 only when every term is -0, and a
      nonzero sum that rounds to zero keeps its sign;
  then ReLU as (v <= 0) ? +0 : v, then the residual x[o] + act(v) by the same rule.
NaN matches NaN whatever its payload (IEEE 754 does not fix payloads); every other output must
match bit for bit. A case is one input row through one model. --quick keeps the first few
models of each kind (the same models as the full run: for a simulator such as Oclgrind).

Exit status: 0 when every output matches (with --expect-mismatch: when some output does not,
the planted error of the test hook corrupt-cr being seen); 1 otherwise; 2 on a usage error or a
failed run.
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
from fractions import Fraction

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_uniform_bias import write_safetensors  # noqa: E402  (the tests' writer)

INF = math.inf
TWO128 = Fraction(2) ** 128
# What the exact computation met (the checks' coverage, printed at the end).
SEEN = {"exact ties": 0, "exact zeros": 0, "-0": 0, "subnormal": 0, "inf": 0, "NaN": 0}


# ---- the contract, exactly -------------------------------------------------------------------

def rn32(q):
    """The nonzero Fraction q rounded to the nearest float32, ties to even, as a Python float
    (a float32 value): subnormals down to 2^-149, +-inf from 2^128 - 2^103; a value that rounds
    to zero keeps q's sign."""
    neg = q < 0
    a = -q if neg else q
    n, d = a.numerator, a.denominator
    e = n.bit_length() - d.bit_length()  # 2^e <= a < 2^(e+2)
    if a < Fraction(2) ** e:
        e -= 1
    if a >= Fraction(2) ** (e + 1):
        e += 1
    lsb = max(e - 23, -149)
    scaled = a / Fraction(2) ** lsb
    r = scaled.numerator // scaled.denominator
    rem = scaled - r
    if rem == Fraction(1, 2):
        SEEN["exact ties"] += 1
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and r % 2 == 1):
        r += 1
    if r == 1 << 24:
        r >>= 1
        lsb += 1
    if Fraction(r) * Fraction(2) ** lsb >= TWO128:
        return -INF if neg else INF
    v = math.ldexp(r, lsb)
    return -v if neg else v


def signbit(v):
    return math.copysign(1.0, v) < 0


def contract_sum(products, terms):
    """RN of the exact sum of the products x*w ((x, w) pairs) and the terms, with IEEE 754's
    rules for NaN, infinities and the sign of zero."""
    nan = pinf = ninf = False
    any_term, all_neg_zero = False, True
    total = Fraction(0)

    def add(value, is_nan, neg):
        nonlocal nan, pinf, ninf, any_term, all_neg_zero, total
        any_term = True
        if is_nan:
            nan = True
        elif value is None:  # an infinity
            if neg:
                ninf = True
            else:
                pinf = True
        elif value == 0:
            all_neg_zero = all_neg_zero and neg
        else:
            all_neg_zero = False
            total += value

    for x, w in products:
        neg = signbit(x) != signbit(w)
        if math.isnan(x) or math.isnan(w):
            add(None, True, neg)
        elif math.isinf(x) or math.isinf(w):
            add(None, x == 0 or w == 0, neg)  # inf * 0 is NaN
        else:
            add(Fraction(x) * Fraction(w), False, neg)
    for t in terms:
        if math.isnan(t):
            add(None, True, False)
        elif math.isinf(t):
            add(None, False, t < 0)
        else:
            add(Fraction(t), False, signbit(t))
    if nan or (pinf and ninf):
        return math.nan
    if pinf or ninf:
        return -INF if ninf else INF
    if total == 0:
        SEEN["exact zeros"] += 1
        return -0.0 if any_term and all_neg_zero else 0.0
    return rn32(total)


def relu(v):
    return 0.0 if v <= 0.0 else v  # DESIGN's ReLU: NaN passes, -0 becomes +0


def forward(layers, x):
    """The model's output for the rows x (lists of float32 values as Python floats)."""
    for w, b, act, res in layers:
        out = []
        for row in x:
            y = []
            for o in range(w.shape[0]):
                wo = [float(v) for v in w[o]]
                v = contract_sum(list(zip(row, wo)), [] if b is None else [float(b[o])])
                if act:
                    v = relu(v)
                if res:
                    v = contract_sum([], [row[o], v])
                y.append(v)
            out.append(y)
        x = out
    return x


# ---- the cases ---------------------------------------------------------------------------------

ODD = [1, 3, 5, 7, 9, 11, 13, 17, 31]


def f32(a):
    return np.asarray(a, dtype=np.float64).astype(np.float32)


def exact32(v):
    """v as float32, which it must be already (the generators build exact values)."""
    r = np.float32(v)
    assert float(r) == v or (math.isnan(v) and math.isnan(r)), v
    return r


def wide(rng, shape, lo, hi):
    """Normal values times powers of two drawn from [lo, hi]."""
    return f32(rng.standard_normal(shape) * np.exp2(rng.integers(lo, hi + 1, size=shape)))


def random_model(rng, name):
    """One to three layers of odd widths with random bias, ReLU and residual, values spread over
    many binades so that sums cancel in part."""
    n = int(rng.integers(1, 4))
    widths = [int(rng.choice(ODD)) for _ in range(n + 1)]
    if rng.random() < 0.4:  # square layers take residuals
        widths = [widths[0]] * (n + 1)
    spread = int(rng.choice([0, 4, 20, 60]))
    layers = []
    for i in range(n):
        w = wide(rng, (widths[i + 1], widths[i]), -spread, spread)
        if rng.random() < 0.3:  # a weight cancelling another exactly
            o, k = int(rng.integers(widths[i + 1])), int(rng.integers(widths[i]))
            if widths[i] > 1:
                w[o, (k + 1) % widths[i]] = -w[o, k]
        b = wide(rng, widths[i + 1], -spread, spread) if rng.random() < 0.6 else None
        layers.append((w, b, bool(rng.random() < 0.5), widths[i] == widths[i + 1] and bool(rng.random() < 0.6)))
    x = wide(rng, (int(rng.choice([1, 3, 5])), widths[0]), -spread, spread)
    return name, layers, x


def tie_model(rng, name, scale_exp):
    """Output o: a + t (+ nudge) (- a) (- t) + bias, a a float of [1, 2) with 24 random bits, t
    half its ulp, the nudge far below the double sum's error, all times 2^scale_exp. Rows: all
    ones (the nudge on), the nudge column 0 (the exact tie), -1 there (the nudge negated), all
    -1, and all 2^-3 (the same ties three binades down)."""
    out, inn = 13, 7
    s = 2.0 ** scale_exp
    nudge = 2.0 ** max(scale_exp - 24 - int(rng.integers(20, 60)), -149)
    w = np.zeros((out, inn), dtype=np.float32)
    b = np.zeros(out, dtype=np.float32)
    for o in range(out):
        a = 1.0 + int(rng.integers(1 << 23)) * 2.0 ** -23
        kind = o % 6
        w[o, 0] = exact32(a * s)
        w[o, 1] = exact32(2.0 ** -24 * s)
        w[o, 2] = exact32(nudge if kind in (0, 2) else -nudge if kind == 1 else 0.0)
        w[o, 3] = exact32(-a * s if kind in (3, 5) else 0.0)
        w[o, 4] = exact32(-(2.0 ** -24) * s if kind in (4, 5) else 0.0)
        w[o, 5] = exact32(float(rng.choice([0.0, -0.0])))
        w[o, 6] = exact32(2.0 ** -23 * s if kind == 2 else 0.0)  # one ulp of a: to the other side
        b[o] = exact32(-a * s if o % 4 == 3 and kind not in (3, 5) else 0.0)
    x = np.ones((5, inn), dtype=np.float32)
    x[1, 2] = 0.0
    x[2, 2] = -1.0
    x[3, :] = -1.0
    x[4, :] = 0.125
    bias = b if rng.random() < 0.7 else None
    return name, [(w, bias, bool(rng.random() < 0.4), False)], x


def subnormal_model(rng, name):
    """Sums in the subnormal range: k*2^-149 plus a tie 2^-150 (2^-75 * 2^-75), nudged by
    +-2^-298 or not; sums that round up into the normal range; random tiny products."""
    out, inn = 11, 5
    w = np.zeros((out, inn), dtype=np.float32)
    for o in range(out):
        k = int(rng.integers(0, 1 << 23)) if o % 3 else (1 << 23) - 1  # up to the largest subnormal
        w[o, 0] = exact32(k * 2.0 ** -149)
        w[o, 1] = exact32(2.0 ** -75)
        w[o, 2] = exact32([2.0 ** -149, -(2.0 ** -149), 0.0][o % 3])
        w[o, 3] = f32(rng.standard_normal() * 2.0 ** -70) if o % 5 == 4 else 0.0
        w[o, 4] = exact32(-(k * 2.0 ** -149) if o % 7 == 6 else 0.0)
    x = np.zeros((4, inn), dtype=np.float32)
    x[0] = [1.0, 2.0 ** -75, 2.0 ** -149, 2.0 ** -80, 1.0]
    x[1] = [1.0, 2.0 ** -75, 0.0, 2.0 ** -80, 1.0]
    x[2] = [-1.0, -(2.0 ** -75), 2.0 ** -149, -(2.0 ** -80), -1.0]
    x[3] = [1.0, 3 * 2.0 ** -76, 2.0 ** -149, 2.0 ** -79, 0.0]
    b = f32(rng.standard_normal(out) * 2.0 ** -140) if rng.random() < 0.5 else None
    return name, [(w, b, bool(rng.random() < 0.3), False)], x


def overflow_model(rng, name):
    """Sums at and around 2^128 - 2^103 (the largest float plus half its ulp) and huge products
    that cancel, or not; a residual that overflows the add."""
    mx = float(np.finfo(np.float32).max)  # 2^128 - 2^104
    out, inn = 9, 5
    w = np.zeros((out, inn), dtype=np.float32)
    for o in range(out):
        kind = o % 5
        if kind == 0:  # max + 2^103 (+- 2^-298)
            w[o] = [mx, 2.0 ** 103, [2.0 ** -149, -(2.0 ** -149), 0.0][o % 3], 0.0, 0.0]
        elif kind == 1:  # products of 2^64-ish factors near the top
            w[o] = f32(np.exp2(63) * (1 + rng.random(inn)))
        elif kind == 2:  # huge products cancelling to something small
            v = float(f32(2.0 ** 100 * (1 + rng.random())))
            w[o] = [v, -v, 1.5, 0.0, 2.0 ** -149]
        elif kind == 3:  # just below the largest float's upper midpoint
            w[o] = [mx, 2.0 ** 102, 2.0 ** 101, 0.0, -(2.0 ** -149)]
        else:
            w[o] = f32(rng.standard_normal(inn) * 2.0 ** 120)
    x = np.ones((4, inn), dtype=np.float32)
    x[1] = [1.0, 1.0, -1.0, 2.0 ** 64, 2.0 ** -149]
    x[2] = -x[0]
    x[3] = f32(np.exp2(64) * rng.random(inn))
    layers = [(w, f32(rng.standard_normal(out) * 2.0 ** 126) if rng.random() < 0.5 else None,
               bool(rng.random() < 0.5), False)]
    if rng.random() < 0.5:  # a square layer whose residual add can overflow
        w2 = f32(np.eye(out) * 1.0)
        layers.append((w2, None, False, True))
    return name, layers, x


def special_model(rng, name):
    """NaN, +-inf and +-0 in the inputs, weights and biases: inf * 0, +inf with -inf, a lone
    infinity, -0 only sums."""
    out, inn = 7, 5
    pool = [math.nan, INF, -INF, 0.0, -0.0, 1.0, -2.5, 2.0 ** -149, float(np.finfo(np.float32).max)]
    w = f32(rng.choice(pool, size=(out, inn), p=[0.05, 0.08, 0.08, 0.2, 0.2, 0.15, 0.14, 0.05, 0.05]))
    b = f32(rng.choice(pool, size=out, p=[0.05, 0.1, 0.1, 0.25, 0.25, 0.1, 0.05, 0.05, 0.05]))
    x = f32(rng.choice(pool, size=(5, inn), p=[0.02, 0.05, 0.05, 0.25, 0.25, 0.2, 0.14, 0.02, 0.02]))
    x[0] = [-0.0] * inn  # -0 products only (with -0 weights or +0 and negative weights)
    res = bool(rng.random() < 0.5)
    layers = [(w, b if rng.random() < 0.7 else None, bool(rng.random() < 0.5), False)]
    if res:
        layers.append((f32(rng.choice([0.0, -0.0, 1.0], size=(out, out))), None, False, True))
    return name, layers, x


def zero_model(rng, name):
    """The sign of zero: rows of -0 and +0 against weights of one sign, of mixed signs and of
    signed zeros; biases -0, +0 or none; sums of -0 terms only stay -0 (without ReLU), and the
    residual -0 + -0 too; nonzero terms that cancel give +0."""
    n = 5
    w = np.zeros((n, n), dtype=np.float32)
    w[0] = [1.0, 2.0, 0.5, 3.0, 1.0]
    w[1] = [-1.0, -2.0, -0.5, -3.0, -1.0]
    w[2] = [1.0, -1.0, 2.0, -2.0, 0.0]
    w[3] = [0.0, -0.0, 0.0, -0.0, 0.0]
    w[4] = [-0.0, -0.0, -0.0, -0.0, -0.0]
    b = f32(rng.choice([0.0, -0.0], size=n))
    x = np.zeros((4, n), dtype=np.float32)
    x[0] = -0.0
    x[2] = [-0.0, 0.0, -0.0, 0.0, -0.0]
    x[3] = [1.0, 1.0, 1.0, 1.0, -0.0]
    layers = [(w, b if rng.random() < 0.6 else None, bool(rng.random() < 0.3), bool(rng.random() < 0.6))]
    return name, layers, x


def bound_model(rng, name):
    """Sums just off a tie whose float-float error sum (cl:cr's float32 method, issue 34) rounds
    to the wrong side: 1 + 2^-23 + 2^-24 (a tie; h holds 1 + 2^-22, l -2^-24), then 3d and four
    -d (d = 2^-50): l's roundings leave h + l above the tie while the exact sum is d below it,
    so only the method's error bound keeps its certificate from a wrong answer; and the mirror
    (1 + 2^-24, -3d, four +d). The terms stand at k = 0, 128, ..., 768 (zeros between), so that
    one work-item sums them in this order in every layout (f32-item's k ascending; f32's
    work-item 0 for any wg <= 128), at several scales and signs, rows of ones, twos and minus
    ones."""
    d = 2.0 ** -50
    odd = [1 + 2.0 ** -23, 2.0 ** -24, 3 * d, -d, -d, -d, -d]
    even = [1.0, 2.0 ** -24, -3 * d, d, d, d, d]
    out, step = 8, 128
    w = np.zeros((out, step * (len(odd) - 1) + 1), dtype=np.float32)
    for o in range(out):
        s = 2.0 ** int(rng.choice([0, 20, -20, 40, -40])) * (-1.0 if o % 4 >= 2 else 1.0)
        w[o, ::step] = [exact32(v * s) for v in (odd if o % 2 == 0 else even)]
    x = np.ones((3, w.shape[1]), dtype=np.float32)
    x[1] *= 2.0
    x[2] *= -1.0
    return name, [(w, None, False, False)], x


def depth_model(rng, name):
    """Sums whose double chains lose almost the whole of their certified bound (issue 34: the
    bound's depth, docs/ENGINES.md): 16 products of 1 at k = 0..15, then 1008 tiny ones of
    tau = 2^-53 (1 - 2^-23), each lost when added to a partial sum of 1 or more (below its half
    ulp; a tile's sum of 16 of them, too, against 16). So every layout of cl:cr's double sums
    that puts k = 0..15 first (stream and gemv at wg = 16: one 1 per work-item; gemm and tiles
    at tk = 16 and rm <= 2: the first tile) computes 16 and loses T = 1008 tau, about
    1008 u (u = 2^-53), against the bound gamma_h * 16 of its depth h (stream: 68, gemm: 79).
    The bias 2^-20 - 2^-44 (a float32) puts the exact sum T - 512 u (about 496 u) above the
    float32 midpoint 16 + 2^-20, and the computed one 512 u below it: only a bound over 512 u
    (a depth of 30 or more) keeps the certificate from the wrong side. With the correct depth
    the certificate fails and Sum2 (or the exact sum) decides; with a bound too small (test hook
    cr-bound-low: depth 0, about 32 u) the first certificate takes the wrong float. At several scales and signs of the outputs; rows 1 and 2
    (x scaled by 2 and -4, the bias not) are ordinary sums beside it."""
    n, big = 1024, 16
    out = 4
    w = np.zeros((out, n), dtype=np.float32)
    b = np.zeros(out, dtype=np.float32)
    for o in range(out):
        s = 2.0 ** int(rng.choice([0, 10, -10])) * (-1.0 if o % 2 else 1.0)
        w[o, :big] = exact32(s)
        w[o, big:] = exact32(s * 2.0 ** -26 * (1 - 2.0 ** -23))
        b[o] = exact32(s * (2.0 ** -20 - 2.0 ** -44))
    x = np.full((3, n), 2.0 ** -27, dtype=np.float32)
    x[:, :big] = 1.0
    x[1] *= 2.0
    x[2] *= -4.0
    return name, [(w, b, False, False)], x


def cases(seed):
    rng = np.random.default_rng(seed)
    out = []
    for i in range(40):
        out.append(random_model(rng, f"random{i}"))
    for i, e in enumerate([0, 0, 50, -100, 100, -120, 7, -30, 126 - 24, -125]):
        out.append(tie_model(rng, f"ties{i}_2^{e}", e))
    for i in range(5):
        out.append(subnormal_model(rng, f"subnormal{i}"))
    for i in range(5):
        out.append(overflow_model(rng, f"overflow{i}"))
    for i in range(7):
        out.append(special_model(rng, f"special{i}"))
    for i in range(6):
        out.append(zero_model(rng, f"zero{i}"))
    for i in range(3):
        out.append(bound_model(rng, f"bound{i}"))
    for i in range(2):
        out.append(depth_model(rng, f"depth{i}"))
    return out


# ---- running and comparing ---------------------------------------------------------------------

def write_model(path, layers):
    tensors, arch = {}, []
    for i, (w, b, act, res) in enumerate(layers):
        tensors[f"l{i}.weight"] = w
        if b is not None:
            tensors[f"l{i}.bias"] = b
        arch.append({"weight": f"l{i}.weight", "bias": f"l{i}.bias" if b is not None else None,
                     "act": "relu" if act else "none", "residual": res})
    write_safetensors(path, tensors, {"clparity.arch": json.dumps({"version": 1, "layers": arch})})


def bits(v):
    return int(np.float32(v).view(np.uint32))


def same(got, want):
    return (math.isnan(got) and math.isnan(want)) or bits(got) == bits(want)


def run_case(clp, folder, name, layers, x, engines, device):
    model, inp, save = (os.path.join(folder, f"{name}{s}") for s in (".safetensors", "_x.npy", ""))
    write_model(model, layers)
    np.save(inp, x)
    shutil.rmtree(save, ignore_errors=True)
    cmd = [clp, "run", "--model", model, "--input", inp, "-d", device, "--engines", engines,
           "--no-reference", "--runs", "1", "--warmup", "0", "--quiet", "--save", save]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        print(f"FAIL {name}: clparity exited {p.returncode}: {' '.join(cmd)}\n{p.stdout}{p.stderr}")
        sys.exit(2)
    index = json.load(open(os.path.join(save, "index.json")))
    got = {}
    for r in index["results"]:
        got[(r["engine"], r["device"])] = np.load(os.path.join(save, r["file"]))
    return got


def tally(v):
    """Counts the special outputs among the expected ones."""
    if math.isnan(v):
        SEEN["NaN"] += 1
    elif math.isinf(v):
        SEEN["inf"] += 1
    elif v == 0 and signbit(v):
        SEEN["-0"] += 1
    elif v != 0 and abs(v) < 2.0 ** -126:
        SEEN["subnormal"] += 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("clparity")
    ap.add_argument("outdir")
    ap.add_argument("--engines", default="host:cr", help="comma list (default host:cr)")
    ap.add_argument("-d", "--device", default="host", help="clparity's device selector")
    ap.add_argument("--expect-mismatch", action="store_true",
                    help="pass only when some output differs (a planted error)")
    ap.add_argument("--seed", type=int, default=23)
    ap.add_argument("--quick", action="store_true",
                    help="the first models of each kind only (10 random, 3 of each other kind)")
    ap.add_argument("--kinds", help="comma list of the kinds of model to run (random, ties, "
                    "subnormal, overflow, special, zero, bound, depth; default all)")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    wanted = a.engines.split(",")
    n_cases = n_outputs = n_bad = 0
    counts = {}
    shown = 0
    taken = {}
    for name, layers, x in cases(a.seed):
        kind = name.rstrip("0123456789").split("_")[0].rstrip("0123456789")
        taken[kind] = taken.get(kind, 0) + 1
        if a.quick and taken[kind] > (10 if kind == "random" else 3):
            continue
        if a.kinds and kind not in a.kinds.split(","):
            continue
        want = forward(layers, [[float(v) for v in row] for row in x])
        got = run_case(a.clparity, a.outdir, name, layers, x, a.engines, a.device)
        engines_seen = {e for e, _ in got}
        missing = [e for e in wanted if e not in engines_seen]
        if missing:
            print(f"FAIL {name}: no result for {', '.join(missing)} in the saved folder")
            sys.exit(2)
        for (engine, device), y in sorted(got.items()):
            assert y.dtype == np.float32 and y.shape == (x.shape[0], len(want[0])), (name, y.shape)
            for r in range(y.shape[0]):
                n_cases += 1
                counts[kind] = counts.get(kind, 0) + 1
                for o in range(y.shape[1]):
                    n_outputs += 1
                    g, w = float(y[r, o]), want[r][o]
                    tally(w)
                    if not same(g, w):
                        n_bad += 1
                        if shown < 10:
                            shown += 1
                            print(f"MISMATCH {engine} on {device}, {name} row {r} output {o}: "
                                  f"got {g!r} (0x{bits(g):08x}), exact RN {w!r} (0x{bits(w):08x})")
    kinds = ", ".join(f"{k} {v}" for k, v in counts.items())
    seen = ", ".join(f"{k} {v}" for k, v in SEEN.items())
    print(f"{n_cases} cases ({kinds}), {n_outputs} outputs of {a.engines} on {a.device} "
          f"(met on the way, every layer: {seen}): {n_bad} differ from the exact rounding")
    if a.expect_mismatch:
        if n_bad == 0:
            print("FAIL: the planted one-bit error went unseen")
            return 1
        print("ok: the planted error was seen")
        return 0
    return 1 if n_bad else 0


if __name__ == "__main__":
    sys.exit(main())
