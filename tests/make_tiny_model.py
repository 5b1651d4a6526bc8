#!/usr/bin/env python3
"""Writes a small MLP in safetensors whose weights are scaled far down, so that training it
against zero targets meets subnormal floats: make_tiny_model.py OUT.safetensors SCALE.

Layers "0" (7 -> 5, bias) and "2" (5 -> 3, bias), PyTorch's nn.Sequential(Linear, ReLU, Linear)
names; weights ((37·i mod 17) − 8)·SCALE·2^-3 rounded to float32, biases ((11·i mod 7) − 3)·
SCALE·2^-4. With SCALE 2^-64 the outputs are near 1e-19, the gradients near 1e-20 and Adam's
(c2·g)·g subnormal; with 2^-135 the gradients themselves are subnormal (momentum's
b·mu + g, the updates' fma)."""
import json
import struct
import sys

import numpy as np


def write_safetensors(out, tensors):
    """tensors (name: float32 array) into the safetensors file out, names sorted (also
    tests/make_zero_model.py's)."""
    header, blob = {}, b""
    for name in sorted(tensors):
        a = tensors[name]
        header[name] = {"dtype": "F32", "shape": list(a.shape),
                        "data_offsets": [len(blob), len(blob) + a.nbytes]}
        blob += a.astype("<f4").tobytes()
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(out, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + blob)


def main():
    out, scale = sys.argv[1], float(eval(sys.argv[2], {"__builtins__": {}}))
    tensors = {}
    for name, (o, i) in (("0", (5, 7)), ("2", (3, 5))):
        w = np.array([((37 * k) % 17 - 8) * scale / 8 for k in range(o * i)], dtype=np.float32)
        b = np.array([((11 * k) % 7 - 3) * scale / 16 for k in range(o)], dtype=np.float32)
        tensors[name + ".weight"] = w.reshape(o, i)
        tensors[name + ".bias"] = b
    write_safetensors(out, tensors)


if __name__ == "__main__":
    main()
