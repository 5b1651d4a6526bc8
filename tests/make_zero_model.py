#!/usr/bin/env python3
"""Writes an MLP in safetensors whose outputs are exact zeros of both signs, for the correctly
rounded trainers' sums whose every term is a zero (cr.cl's cr_tr_zero, host:cr's cr_dot_zero):
make_zero_model.py OUT.safetensors.

nn.Sequential(Linear(7, 5, bias=False), ReLU, Linear(5, 3, bias=False)) names: layer "0"'s
weights all +0, so its outputs are zeros and the ReLU makes them +0; layer "2"'s row 0 all
negative (each product with +0 is -0: the output is -0), row 1 all positive (+0), row 2 of both
signs (+0). At lr 0 plain SGD leaves every weight as it is (fma(-0, g, w) = w, and +0 for
w = +0), so the forward of the final weights still has them."""
import json
import struct
import sys

import numpy as np


def main():
    w2 = np.array([[-1.0, -0.5, -2.0, -0.25, -3.0],
                   [1.0, 0.5, 2.0, 0.25, 3.0],
                   [1.0, -0.5, 2.0, -0.25, 3.0]], dtype=np.float32)
    tensors = {"0.weight": np.zeros((5, 7), dtype=np.float32), "2.weight": w2}
    header, blob = {}, b""
    for name in sorted(tensors):
        a = tensors[name]
        header[name] = {"dtype": "F32", "shape": list(a.shape),
                        "data_offsets": [len(blob), len(blob) + a.nbytes]}
        blob += a.astype("<f4").tobytes()
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(sys.argv[1], "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + blob)


if __name__ == "__main__":
    main()
