#!/usr/bin/env python3
"""The expected values of tests/test_train.c's optimizer tests, computed independently of
clparity: every operation of clparity/train.h's order is done exactly on fractions and then
rounded once, to float32 (host:exact, cl:own) or float64 (host:f64), to nearest even. The
model is one Linear 2 -> 2 with a bias, no activation, no residual: W = [[0.5, -0.25],
[0.125, 1]], b = [0.25, -0.5], x = [2, 0.5], target [1.5, -0.75], lr = float32(0.01); three
steps. These x and target were picked so that Adam's float32 values change, in some element
and step, when any one operation is done otherwise: lerp without its fma, addcmul as
value·(g·g) or fused, eps added before the division by bc2_sqrt, that division done as a
product with the reciprocal, addcdiv as value·(m / denom).

Usage: tests/optim_ref.py  (prints the C arrays that test_train.c holds)"""
from fractions import Fraction as F
import math


def rn(q, p, emin):
    """q (a Fraction) rounded to nearest even with p significand bits, exponent >= emin."""
    q = F(q)
    if q == 0:
        return 0.0
    s = -1 if q < 0 else 1
    q = abs(q)
    e = q.numerator.bit_length() - q.denominator.bit_length()
    if F(2) ** e > q:
        e -= 1
    e = max(e, emin)
    scale = F(2) ** (p - 1 - e)
    m = q * scale
    n = m.numerator // m.denominator
    rem = m - n
    if rem > F(1, 2) or (rem == F(1, 2) and n % 2 == 1):
        n += 1
    return s * float(F(n) / scale)


def isqrt_frac(a):
    """sqrt(a) truncated to 600 fractional bits: rounding it to 24 or 53 bits is the rounding
    of the exact root (an exact root is found exactly; an inexact one is irrational, so no tie
    lies within 2^-600 of it)."""
    n = F(a) * F(4) ** 600
    assert n.denominator == 1
    return F(math.isqrt(n.numerator), 2 ** 600)


def r32(q):
    return rn(q, 24, -126)


def r64(q):
    return rn(q, 53, -1022)


def run(kind, r, steps=3, lr=None, wd=0.0, mom=0.9, nesterov=False, betas=(0.9, 0.999),
        eps=1e-8):
    """The parameters [W00, W01, W10, W11, b0, b1] after each step, rounding with r."""
    lr = r32(F(0.01)) if lr is None else lr  # the float lr's value, as a double
    p = [0.5, -0.25, 0.125, 1.0, 0.25, -0.5]
    x, t = [2.0, 0.5], [1.5, -0.75]
    st1, st2 = [0.0] * 6, [0.0] * 6
    out = []
    fma = lambda a, b, c: r(F(a) * F(b) + F(c))
    add = lambda a, b: r(F(a) + F(b))
    sub = lambda a, b: r(F(a) - F(b))
    mul = lambda a, b: r(F(a) * F(b))
    div = lambda a, b: r(F(a) / F(b))
    sqrt = lambda a: r(isqrt_frac(a))
    for step in range(1, steps + 1):
        # forward: acc = fma(x[k], W[o][k], acc) from 0, k ascending, then + b[o]
        y = []
        for o in range(2):
            acc = 0.0
            for k in range(2):
                acc = fma(x[k], p[2 * o + k], acc)
            y.append(add(acc, p[4 + o]))
        s = div(2.0, 2.0)
        g = [mul(s, sub(y[o], t[o])) for o in range(2)]
        G = [fma(g[o], x[k], 0.0) for o in range(2) for k in range(2)] + [add(0.0, g[o])
                                                                           for o in range(2)]
        # the scalars in double (Python floats), rounded with r where they meet a tensor
        bc1 = 1 - betas[0] ** step
        bc2 = 1 - betas[1] ** step
        step_size = lr / bc1
        bc2_sqrt = math.sqrt(bc2)
        R = lambda v: r(F(v))
        for i in range(6):
            gi = G[i]
            if kind == "sgd":
                if wd != 0:
                    gi = fma(p[i], R(wd), gi)
                p[i] = fma(gi, R(-lr), p[i])
            elif kind == "momentum":
                if wd != 0:
                    gi = fma(p[i], R(wd), gi)
                if step == 1:
                    st1[i] = gi
                else:
                    st1[i] = add(mul(st1[i], R(mom)), gi)
                gi = fma(st1[i], R(mom), gi) if nesterov else st1[i]
                p[i] = fma(gi, R(-lr), p[i])
            else:
                if wd != 0 and kind == "adamw":
                    p[i] = mul(p[i], R(1 - lr * wd))
                elif wd != 0:
                    gi = fma(p[i], R(wd), gi)
                w = R(1 - betas[0])
                d = sub(gi, st1[i])
                st1[i] = fma(w, d, st1[i]) if abs(w) < 0.5 else fma(sub(w, 1.0), d, gi)
                st2[i] = add(mul(st2[i], R(betas[1])), mul(mul(R(1 - betas[1]), gi), gi))
                denom = add(div(sqrt(st2[i]), R(bc2_sqrt)), R(eps))
                p[i] = add(p[i], div(mul(R(-step_size), st1[i]), denom))
        out.append(list(p))
    return out


CASES = [
    ("adam", dict(kind="adam")),
    ("adam_wd", dict(kind="adam", wd=0.1)),
    ("adamw", dict(kind="adamw", wd=0.01)),
    ("adam_b05", dict(kind="adam", betas=(0.5, 0.75), eps=1e-3)),
    ("momentum", dict(kind="momentum")),
    ("nesterov", dict(kind="momentum", nesterov=True, wd=0.01)),
    ("sgd_wd", dict(kind="sgd", wd=0.1)),
]

if __name__ == "__main__":
    for name, kw in CASES:
        for ty, r in (("f32", r32), ("f64", r64)):
            vals = run(r=r, **kw)
            print(f"static const double want_{name}_{ty}[3][6] = {{")
            for row in vals:
                print("    {" + ", ".join(repr(v) for v in row) + "},")
            print("};")
